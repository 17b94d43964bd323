package tensorpool

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// FuzzTransportCheck drives a whole call (NewClient's transport, the
// generated parser, Check) against an arbitrary answer: status, headers
// (Content-Type, Content-Length, Retry-After) and body. The body may echo
// the key: "{key}" is replaced by it, "{ukey}" by it \u-escaped, "{mkey}" by
// it with every other character \u-escaped. Whatever
// the answer: no panic; a non-2xx status gives an *APIError with that
// status; a 2xx gives success (only the status the spec declares), a
// *DecodeError (ErrResponseTooLarge included); a key that the id rule
// refuses as an id is never sent;
// and the key appears in no error, no rendering of one and no log line.
func FuzzTransportCheck(f *testing.F) {
	f.Add(uint8(0), 200, "application/json", "", "", []byte(infoOK))
	f.Add(uint8(0), 200, "application/json", "", "", []byte(`{"status":`))
	f.Add(uint8(0), 200, "application/json", "", "", []byte(`{"request_id":5}`))
	f.Add(uint8(1), 202, "application/json", "", "", []byte(attachOK))
	f.Add(uint8(1), 502, "text/html", "", "100000", []byte("<html>bad gateway</html>"))
	f.Add(uint8(2), 422, "application/json", "", "", []byte(`{"detail":[{"loc":["header","{ukey}"],"msg":"bad {key}","type":"t"}]}`))
	f.Add(uint8(2), 422, "application/json", "", "", []byte(`{"detail":"not eligible"}`))
	f.Add(uint8(3), 429, "application/json", "0", "", []byte(`{"detail":"slow down {key}"}`))
	f.Add(uint8(4), 503, "", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", []byte{})
	f.Add(uint8(1), 502, "text/html", "", "", []byte(`<p>{ukey}</p>`+strings.Repeat("x", 5000)))
	f.Add(uint8(6), 400, "application/json", "", "", []byte(`{"detail":"{mkey}", oops`))
	f.Add(uint8(0), 200, "application/json", "", "", []byte(`{"x":"{ukey}`))
	f.Add(uint8(0), 999, "application/json\r\nX: y", "\x00", "abc", []byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, op uint8, status int, ctype, retryAfter, contentLength string, body []byte) {
		key := testKey
		if op&4 != 0 {
			key = hostileKey
		}
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			h := http.Header{}
			for k, v := range map[string]string{"Content-Type": ctype, "Retry-After": retryAfter, "Content-Length": contentLength} {
				if v != "" {
					h.Set(k, v)
				}
			}
			b := bytes.ReplaceAll(body, []byte("{key}"), []byte(key))
			b = bytes.ReplaceAll(b, []byte("{ukey}"), []byte(uEscape(key)))
			b = bytes.ReplaceAll(b, []byte("{mkey}"), []byte(mixedEscape(key)))
			resp := reply(r, status, h, "")
			resp.Body = io.NopCloser(bytes.NewReader(b))
			resp.ContentLength = -1
			if n, err := strconv.ParseInt(contentLength, 10, 64); err == nil {
				resp.ContentLength = n
			}
			return resp, nil
		}}
		c := fakeClient(t, f, WithAPIKey(key), WithMaxResponseBytes(4096),
			WithRetryPolicy(RetryPolicy{MaxRetries: 1})) // Retry-After 0 and backoff retried at once, any other not waited for
		var code int
		var err error
		switch op % 4 {
		case 0:
			code, err = callCheck(c.GetRequestInfoWithResponse(bg, "r-1"))
		case 1:
			code, err = callCheck(c.StorageAttachWithResponse(bg, attachBody))
		case 2:
			code, err = callCheck(c.StorageDestroyWithResponse(bg, "s-1"))
		default:
			code, err = callCheck(c.GetRequestInfoWithResponse(bg, key)) // the key where an id belongs
		}
		var apiErr *APIError
		var decodeErr *DecodeError
		switch {
		case op%4 == 3 && strings.ContainsAny(key, `/\`): // the id rule: refused unsent
			if !errors.Is(err, ErrInvalidRequest) || f.n() != 0 {
				t.Fatalf("the key as an id: err %v after %d requests, want ErrInvalidRequest and none", err, f.n())
			}
		case status < 200 || status > 299:
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("status %d: err %v (%T), want an *APIError with that status", status, err, err)
			}
		case err != nil && !errors.As(err, &decodeErr):
			t.Fatalf("status %d: err %v (%T), want nil or a *DecodeError", status, err, err)
		case err == nil && code != status:
			t.Fatalf("status %d: response status %d", status, code)
		case err == nil && code != map[bool]int{true: 200, false: 202}[op%4 == 0 || op%4 == 3]:
			t.Fatalf("status %d: Check accepted a success the spec does not declare", status)
		}
		if err == nil {
			return
		}
		outs := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%x", err)}
		if apiErr != nil {
			outs = append(outs, string(apiErr.Body), fmt.Sprintf("%+v", apiErr.Details))
		}
		if decodeErr != nil {
			outs = append(outs, string(decodeErr.Body), decodeErr.ContentType)
		}
		for _, out := range outs {
			if f := leakedOf(out, key); f != "" {
				t.Fatalf("key leaked as %q: %s", f, out)
			}
		}
	})
}

// callCheck passes a generated call through Check and returns the status
// of its response, if any.
func callCheck[R Response](r R, err error) (int, error) {
	r, err = Check(r, err)
	if err != nil {
		return 0, err
	}
	return r.StatusCode(), nil
}

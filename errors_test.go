package tensorpool

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

func TestAPIErrorMessages(t *testing.T) {
	long := strings.Repeat("é", 2000)
	cases := []struct {
		name, ctype, body, want string
		details                 int
	}{
		{"fastapi detail string", "application/json", `{"detail":"Storage not found"}`, "Storage not found", 0},
		{"fastapi validation list", "application/json",
			`{"detail":[{"loc":["body","storage_id"],"msg":"Field required","type":"missing"},{"loc":["body","cluster_ids",0],"msg":"Input should be a valid string","type":"string_type"}]}`,
			"body.storage_id: Field required; body.cluster_ids.0: Input should be a valid string", 2},
		{"many validation errors", "application/json",
			`{"detail":[{"loc":["a"],"msg":"1","type":"t"},{"loc":["b"],"msg":"2","type":"t"},{"loc":["c"],"msg":"3","type":"t"},{"loc":["d"],"msg":"4","type":"t"},{"loc":["e"],"msg":"5","type":"t"}]}`,
			"a: 1; b: 2; c: 3; and 2 more", 5},
		{"detail object", "application/json", `{"detail":{"message":"cluster busy","code":7}}`, "cluster busy", 0},
		{"message", "application/json", `{"message":"Cluster already has storage attached"}`, "Cluster already has storage attached", 0},
		{"error", "application/json", `{"error":"denied"}`, "denied", 0},
		{"external_message", "application/json", `{"external_message":"try later"}`, "try later", 0},
		{"message beats error", "application/json", `{"error":"e","message":"m"}`, "m", 0},
		{"detail beats message", "application/json", `{"message":"m","detail":"d"}`, "d", 0},
		{"empty detail falls through", "application/json", `{"detail":"","message":"m"}`, "m", 0},
		{"non-string message", "application/json", `{"message":42}`, "", 0},
		{"json array", "application/json", `["x"]`, "", 0},
		{"broken json", "application/json", `{"detail":`, "", 0},
		{"html", "text/html", "<html><body>502 Bad Gateway</body></html>", "", 0},
		{"plain text", "text/plain; charset=utf-8", "upstream timed out\nsecond line", `upstream timed out\nsecond line`, 0},
		{"control characters", "application/json", `{"detail":"a\nb\u0000c\u001b[31m"}`, `a\nb\x00c\x1b[31m`, 0},
		{"invalid utf-8", "text/plain", "bad \xff byte", "bad \uFFFD byte", 0},
		{"empty", "", "", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: 409, Header: http.Header{"Content-Type": {tc.ctype}}}
			e := newAPIError(resp, []byte(tc.body), nil)
			if e.Message != tc.want || len(e.Details) != tc.details {
				t.Errorf("Message %q (%d details), want %q (%d)", e.Message, len(e.Details), tc.want, tc.details)
			}
			if string(e.Body) != tc.body {
				t.Errorf("Body %q", e.Body)
			}
		})
	}
	e := newAPIError(&http.Response{StatusCode: 400, Header: http.Header{}}, []byte(`{"detail":"`+long+`"}`), nil)
	if len(e.Message) > servertext.MaxLen || !utf8.ValidString(e.Message) || !strings.HasSuffix(e.Message, "…") {
		t.Errorf("long message: %d bytes, valid %t", len(e.Message), utf8.ValidString(e.Message))
	}
	big := newAPIError(&http.Response{StatusCode: 500, Header: http.Header{}}, make([]byte, 1<<20), nil)
	if len(big.Body) != maxErrorBody || big.Truncated {
		t.Errorf("Body %d bytes, want the first %d", len(big.Body), maxErrorBody)
	}
}

func TestAPIErrorFields(t *testing.T) {
	req, _ := http.NewRequest("POST", "https://engine.tensorpool.dev/storage/attach?x=1", nil)
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"12"}}, Request: req}
	e := newAPIError(resp, []byte(`{"detail":"slow down"}`), nil)
	want := APIError{StatusCode: 429, Method: "POST", Path: "/storage/attach", Message: "slow down", RetryAfter: 12 * time.Second}
	if e.StatusCode != want.StatusCode || e.Method != want.Method || e.Path != want.Path || e.Message != want.Message || e.RetryAfter != want.RetryAfter {
		t.Errorf("got %+v", e)
	}
	if got := e.Error(); got != "tensorpool: POST /storage/attach: 429 Too Many Requests: slow down" {
		t.Errorf("Error() = %q", got)
	}
}

func TestCheck(t *testing.T) {
	f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
		switch n {
		case 1:
			return reply(r, 202, nil, attachOK), nil
		case 2:
			return reply(r, 200, nil, attachOK), nil
		case 3:
			return reply(r, 409, nil, `{"detail":"Cluster already has storage attached"}`), nil
		case 4:
			return reply(r, 404, http.Header{}, ""), nil
		default:
			return reply(r, 422, nil, `{"detail":[{"loc":["body","cluster_ids"],"msg":"List should have at most 1 item","type":"too_long"}]}`), nil
		}
	}}
	c := fakeClient(t, f)
	if _, err := Check(c.StorageAttachWithResponse(bg, attachBody)); err != nil {
		t.Errorf("202: %v", err)
	}
	// a 200 where the spec declares 202 for attach is not a success: its
	// JSON202 would be nil
	var de *DecodeError
	if r, err := Check(c.StorageAttachWithResponse(bg, attachBody)); !errors.As(err, &de) ||
		de.StatusCode != 200 || de.Method != "POST" || de.Path != "/storage/attach" || string(de.Body) != attachOK || r == nil {
		t.Errorf("200 on attach: %v", err)
	}
	r, err := Check(c.StorageAttachWithResponse(bg, attachBody))
	var e *APIError
	if !errors.As(err, &e) || !IsStatus(err, http.StatusConflict) || e.Message != "Cluster already has storage attached" || e.Method != "POST" || e.Path != "/storage/attach" {
		t.Errorf("409: %v", err)
	}
	if r == nil || r.StatusCode() != 409 {
		t.Error("Check dropped the response")
	}
	if _, err := Check(c.StorageDestroyWithResponse(bg, "s-1")); !IsStatus(err, 404) || err.Error() != "tensorpool: DELETE /storage/s-1: 404 Not Found" {
		t.Errorf("404: %v", err)
	}
	r, err = Check(c.StorageAttachWithResponse(bg, attachBody))
	if !IsStatus(err, 422) || !errors.As(err, &e) || len(e.Details) != 1 || r.JSON422 == nil {
		t.Errorf("422: %v", err)
	}
	// a transport error passes through untouched
	sentinel := errors.New("boom")
	if _, err := Check[*gen.StorageAttachResponse](nil, sentinel); err != sentinel {
		t.Errorf("err %v", err)
	}
	// a nil response without an error does not panic
	if _, err := Check[*gen.StorageAttachResponse](nil, nil); err == nil {
		t.Error("nil response accepted")
	}
	// a response built by hand, without HTTPResponse
	if _, err := Check(&gen.StorageAttachResponse{}, nil); IsStatus(err) && !IsStatus(err, 0) || err == nil {
		t.Errorf("hand-built response: %v", err)
	}
}

// TestNonFastAPI422 covers a 422 whose detail is a string: the generated
// parser alone would fail with a JSON error and no status.
func TestNonFastAPI422(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 422, nil, `{"detail":"cluster c-1 is not eligible"}`), nil
	}}
	c := fakeClient(t, f)
	_, err := Check(c.StorageAttachWithResponse(bg, attachBody))
	var e *APIError
	if !errors.As(err, &e) || e.StatusCode != 422 || e.Message != "cluster c-1 is not eligible" {
		t.Fatalf("err %v", err)
	}
}

func TestIsStatus(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &APIError{StatusCode: 409})
	for _, tc := range []struct {
		err   error
		codes []int
		want  bool
	}{
		{err, []int{409}, true},
		{err, []int{404, 409}, true},
		{err, nil, true},
		{err, []int{404}, false},
		{errors.New("x"), nil, false},
		{nil, []int{409}, false},
		{&DecodeError{StatusCode: 409}, []int{409}, false},
	} {
		if got := IsStatus(tc.err, tc.codes...); got != tc.want {
			t.Errorf("IsStatus(%v, %v) = %t", tc.err, tc.codes, got)
		}
	}
}

// TestEchoedKeyScrubbed: a server that echoes the Authorization header in
// its error body does not get the key into the error.
func TestEchoedKeyScrubbed(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 401, nil, `{"detail":"invalid token `+r.Header.Get("Authorization")+`"}`), nil
	}}
	c := fakeClient(t, f)
	_, err := Check(c.GetRequestInfoWithResponse(bg, "r-1"))
	var e *APIError
	if !errors.As(err, &e) || !IsStatus(err, http.StatusUnauthorized) {
		t.Fatalf("err %v", err)
	}
	if e.Message != "invalid token Bearer [REDACTED]" {
		t.Errorf("Message %q", e.Message)
	}
	noKey(t, "APIError", e)
	noKey(t, "APIError.Body", string(e.Body))
}

func FuzzAPIError(f *testing.F) {
	seeds := []string{
		`{"detail":"Storage not found"}`,
		`{"detail":[{"loc":["body","storage_id"],"msg":"Field required","type":"missing"}]}`,
		`{"detail":[{"loc":[1,{"x":2}],"msg":3}]}`,
		`{"detail":{"detail":{"message":"deep"}}}`,
		`{"message":"m","error":"e","external_message":"x"}`,
		`<html>oops</html>`,
		"line1\nline2",
		`{"detail":"` + testKey + `"}`,
		`{"detail":[{"loc":["header","{key}"],"msg":"bad {key}","type":"t"}]}`,
		`{"detail":"\u0074p-live-0123456789abcdefSECRET"}`,
		"\xff\xfe",
		"",
		`{"detail":"{ukey}", broken`,
		`{"detail":"{mkey}`,
		`<html>{ukey} \ud83d\ude00 \ud800 \x</html>`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "application/json", 400)
	}
	f.Add([]byte("plain"), "text/plain", 503)
	f.Fuzz(func(t *testing.T, body []byte, ctype string, status int) {
		req, _ := http.NewRequest("GET", "https://engine.test/x", nil)
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}}, Request: req}
		e := newAPIError(resp, body, nil)
		if len(e.Body) > maxErrorBody || len(e.Message) > servertext.MaxLen {
			t.Fatalf("sizes: body %d, message %d", len(e.Body), len(e.Message))
		}
		if !utf8.ValidString(e.Message) || strings.ContainsAny(e.Message, "\n\r\x00") {
			t.Fatalf("message not printable: %q", e.Message)
		}
		for _, key := range []string{testKey, hostileKey} {
			// as the doer hands a body on: scrubbed
			planted := strings.NewReplacer("{key}", key, "{ukey}", uEscape(key), "{mkey}", mixedEscape(key)).Replace(string(body))
			e := newAPIError(resp, []byte(newRedactor(key).text(planted)), nil)
			outs := []string{e.Error(), fmt.Sprintf("%v", e), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e), fmt.Sprintf("%x", e), string(e.Body)}
			for _, d := range e.Details {
				outs = append(outs, d.Msg, d.Type, fmt.Sprintf("%+v", d))
				for _, item := range d.Loc {
					outs = append(outs, fmt.Sprint(item))
				}
			}
			for _, out := range outs {
				if f := leakedOf(out, key); f != "" {
					t.Fatalf("key leaked as %q: %s", f, out)
				}
			}
		}
	})
}

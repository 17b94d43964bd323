package tensorpool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

// A key that ends up in a URL (a caller passing it where an id belongs) is
// scrubbed from log lines and from every error: net/http's *url.Error, an
// *APIError's Path, a *ResponseTooLargeError's Path.
func TestKeyInURLNeverPrinted(t *testing.T) {
	t.Run("transport error", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropAfterRequest(w) })
		buf := &logBuffer{}
		c := serverClient(t, s, WithMaxRetries(1),
			WithLogger(slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		_, err := c.GetRequestInfoWithResponse(bg, testKey)
		if err == nil {
			t.Fatal("no error from a dropped connection")
		}
		noKey(t, "error", err)
		if strings.Contains(buf.String(), testKey) || !strings.Contains(buf.String(), "/request/info/"+redacted) {
			t.Errorf("log lines hold the key, or not the scrubbed URL:\n%s", buf.String())
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") {
			t.Errorf("the scrubbed error lost its cause: %v", err)
		}
	})
	t.Run("APIError", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { jsonReply(w, 404, `{"detail":"Not Found"}`) })
		_, err := Check(serverClient(t, s).GetRequestInfoWithResponse(bg, testKey))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Path, redacted) {
			t.Fatalf("err %v, want an *APIError with the key scrubbed from Path", err)
		}
		noKey(t, "APIError", apiErr)
	})
	t.Run("ResponseTooLargeError", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			jsonReply(w, 200, `{"detail":"`+strings.Repeat("x", 4096)+`"}`)
		})
		_, err := serverClient(t, s, WithMaxResponseBytes(1024)).GetRequestInfoWithResponse(bg, testKey)
		if !errors.Is(err, ErrResponseTooLarge) {
			t.Fatalf("err %v, want ErrResponseTooLarge", err)
		}
		noKey(t, "ResponseTooLargeError", err)
	})
}

// A redirect to a URL with a user name (a credential) does not print it, in
// the error or in a log line.
func TestRedirectUserinfoNeverPrinted(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close() // nothing listens there now: the redirected request fails
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://tp-hunter2@"+dead+"/x", http.StatusFound)
	})
	buf := &logBuffer{}
	c := serverClient(t, s, WithLogger(slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err = c.GetRequestInfoWithResponse(bg, "r-1")
	if err == nil {
		t.Fatal("no error")
	}
	for _, out := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err), buf.String()} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("the redirect's user name is printed: %s", out)
		}
	}
}

// scrubError keeps errors.Is working through what it scrubs.
func TestScrubErrorKeepsIs(t *testing.T) {
	k := secret{testKey}
	err := k.scrubError(errors.Join(context.Canceled, errors.New("echo "+testKey)))
	if strings.Contains(err.Error(), testKey) || !errors.Is(err, context.Canceled) {
		t.Fatalf("%v: want the key gone and errors.Is(context.Canceled)", err)
	}
	if plain := errors.New("no key here"); k.scrubError(plain) != plain {
		t.Error("an error without the key was replaced")
	}
}

// A 422 whose details echo the key JSON-escaped: decoding unescapes it, and
// the decoded details are scrubbed too.
func TestValidationDetailsScrubbedAfterDecoding(t *testing.T) {
	escaped := strings.ReplaceAll(testKey, "t", `\u0074`)
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		jsonReply(w, 422, `{"detail":[{"loc":["header","authorization"],"msg":"bad key `+escaped+`","type":"value_error"}]}`)
	})
	_, err := Check(serverClient(t, s).GetRequestInfoWithResponse(bg, "req_1"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || len(apiErr.Details) != 1 {
		t.Fatalf("err %v, want an *APIError with one detail", err)
	}
	noKey(t, "APIError", apiErr)
	noKey(t, "APIError.Details", apiErr.Details)
}

// Validation sees the request as sent: after the call's own request
// editors, which could otherwise rewrite the body past it.
func TestValidationAfterPerCallEditors(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 202, nil, okBody(r.Method)), nil
	}}
	c := fakeClient(t, f)
	rewrite := func(_ context.Context, r *http.Request) error {
		b := []byte(`{"storage_id":"x","cluster_ids":[]}`)
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		r.ContentLength = int64(len(b))
		return nil
	}
	_, err := c.StorageAttachWithResponse(bg, attachBody, rewrite)
	if !errors.Is(err, ErrInvalidRequest) || f.n() != 0 {
		t.Fatalf("err %v after %d requests, want ErrInvalidRequest and nothing sent", err, f.n())
	}
}

// A doer that follows redirects itself (with the key) to another origin:
// its answer is refused, so the caller learns of it.
func TestDoerThatFollowsRedirectsIsRefused(t *testing.T) {
	other := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { jsonReply(w, 200, infoOK) })
	origin := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	})
	c := serverClient(t, origin, WithClientOptions(gen.WithHTTPClient(doerFunc((&http.Client{}).Do))))
	_, err := c.GetRequestInfoWithResponse(bg, "r-1")
	if !errors.Is(err, ErrDoerRedirected) {
		t.Fatalf("err %v, want ErrDoerRedirected", err)
	}
	// The same doer without a redirect works.
	same := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { jsonReply(w, 200, infoOK) })
	c = serverClient(t, same, WithClientOptions(gen.WithHTTPClient(doerFunc((&http.Client{}).Do))))
	if resp, err := c.GetRequestInfoWithResponse(bg, "r-1"); err != nil || resp.JSON200 == nil {
		t.Fatalf("plain call through a doer: %v", err)
	}
}

// uEscape writes every character of s as a JSON \u escape.
func uEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// A key made of characters that get escaped is scrubbed in its escaped
// forms too: percent-encoded in a URL (*url.Error, log lines), Go-quoted in
// an *InvalidRequestError, \u-escaped in a 422's loc, msg and body.
func TestEscapedKeyNeverPrinted(t *testing.T) {
	t.Run("in a URL", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropAfterRequest(w) })
		_, err := serverClient(t, s, WithAPIKey(hostileKey), WithMaxRetries(0)).GetRequestInfoWithResponse(bg, hostileKey)
		if err == nil {
			t.Fatal("no error from a dropped connection")
		}
		noKey(t, "error", err)
	})
	t.Run("APIError.Path", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { jsonReply(w, 404, `{"detail":"Not Found"}`) })
		_, err := Check(serverClient(t, s, WithAPIKey(hostileKey)).GetRequestInfoWithResponse(bg, hostileKey))
		if !IsNotFound(err) {
			t.Fatalf("err %v", err)
		}
		noKey(t, "APIError", err)
	})
	t.Run("InvalidRequestError", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {})
		_, err := serverClient(t, s, WithAPIKey(hostileKey)).StorageDestroyWithResponse(bg, hostileKey)
		if !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("err %v", err)
		}
		noKey(t, "InvalidRequestError", err)
	})
	t.Run("422 details", func(t *testing.T) {
		esc := uEscape(hostileKey)
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			jsonReply(w, 422, `{"detail":[{"loc":["header","`+esc+`",{"k":"`+esc+`"}],"msg":"bad `+esc+`","type":"`+esc+`"}]}`)
		})
		_, err := Check(serverClient(t, s, WithAPIKey(hostileKey)).GetRequestInfoWithResponse(bg, "r-1"))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || len(apiErr.Details) != 1 || len(apiErr.Details[0].Loc) != 3 {
			t.Fatalf("err %v, want an *APIError with one detail of 3 loc items", err)
		}
		noKey(t, "APIError", apiErr)
		noKey(t, "APIError.Body", string(apiErr.Body))
		for i, item := range apiErr.Details[0].Loc {
			raw, _ := item.MarshalJSON()
			var v any
			_ = json.Unmarshal(raw, &v)
			noKey(t, fmt.Sprintf("loc[%d]", i), fmt.Sprint(v))
		}
		if got, _ := apiErr.Details[0].Loc[1].AsValidationErrorLoc0(); got != redacted {
			t.Errorf("loc[1] = %q, want %q", got, redacted)
		}
		noKey(t, "Details[0].Msg", apiErr.Details[0].Msg)
	})
}

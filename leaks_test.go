package tensorpool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

// A key that ends up in a URL (a caller passing it where an id belongs) is
// scrubbed from log lines and from every error: net/http's *url.Error, an
// *APIError's Path, a too-large *DecodeError's Path.
func TestKeyInURLNeverPrinted(t *testing.T) {
	t.Run("transport error", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropAfterRequest(w) })
		buf := &logBuffer{}
		c := serverClient(t, s, WithRetryPolicy(RetryPolicy{MaxRetries: 1}),
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
	// A mutating call's redirect is not followed: its error names the target.
	_, err2 := Check(c.StorageDestroyWithResponse(bg, "s-1"))
	if !IsStatus(err2, http.StatusFound) || !strings.Contains(err2.Error(), "redirect to http://"+dead+"/x not followed") {
		t.Fatalf("DELETE: %v, want the 302 naming its target", err2)
	}
	for _, out := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err), err2.Error(), fmt.Sprintf("%+v", err2), buf.String()} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("the redirect's user name is printed: %s", out)
		}
	}
}

// TestErrorHeadersUnderTheFullRule: an error response's headers are
// diagnostics, redacted under the full rule, a cut key included. A 302
// whose Location ends in the key, percent-encoded and cut by the server,
// shows no start of it in the error's text, Message or Header (a
// success's headers keep such a run: TestSuccessBodyIsData).
func TestErrorHeadersUnderTheFullRule(t *testing.T) {
	for _, key := range []string{testKey, hostileKey} {
		for _, form := range []string{url.PathEscape(key), url.QueryEscape(key)} {
			cut := form[:12]
			f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
				return reply(r, http.StatusFound, http.Header{"Location": {"https://login.test/cb?token=" + cut}, "X-Echo": {"bad key " + cut}}, ""), nil
			}}
			c := fakeClient(t, f, WithAPIKey(key))
			_, err := Check(c.StorageDestroyWithResponse(bg, "s-1"))
			var e *APIError
			if !errors.As(err, &e) || e.StatusCode != http.StatusFound {
				t.Fatalf("Location ending in %q: err %v, want the 302", cut, err)
			}
			if want := "redirect to https://login.test/cb?token=" + redacted + " not followed"; e.Message != want {
				t.Errorf("Location ending in %q: Message %q, want %q", cut, e.Message, want)
			}
			for name, out := range map[string]string{"Error()": e.Error(), "Message": e.Message, "Header": fmt.Sprint(e.Header)} {
				if strings.Contains(out, form[:minCut]) {
					t.Errorf("Location ending in %q: %s shows a cut key: %s", cut, name, out)
				}
			}
		}
	}
}

// A 422 whose details echo the key JSON-escaped: decoding would unescape
// it, so the doer redacts the escaped run before the parser sees it.
func TestValidationDetailsScrubbedAfterDecoding(t *testing.T) {
	escaped := strings.ReplaceAll(testKey, "t", `\u0074`)
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		jsonReply(w, 422, `{"detail":[{"loc":["header","authorization"],"msg":"bad key `+escaped+`","type":"value_error"}]}`)
	})
	_, err := Check(serverClient(t, s).GetRequestInfoWithResponse(bg, "req_1"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || apiErr.Details[0].Msg != "bad key "+redacted {
		t.Fatalf("err %v, want a 422 *APIError whose detail says %q", err, "bad key "+redacted)
	}
	noKey(t, "APIError", apiErr)
	noKey(t, "APIError.Body", string(apiErr.Body))
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

// uEscape writes every character of s as a JSON \u escape.
func uEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// A key made of characters that get escaped is redacted in its escaped
// forms too: percent-encoded in a URL (*url.Error, log lines), \u-escaped
// in a 422's loc, msg and body.
func TestEscapedKeyNeverPrinted(t *testing.T) {
	t.Run("in a URL", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropAfterRequest(w) })
		_, err := serverClient(t, s, WithAPIKey(hostileKey), WithRetryPolicy(RetryPolicy{})).GetRequestInfoWithResponse(bg, hostileKey)
		if err == nil {
			t.Fatal("no error from a dropped connection")
		}
		noKey(t, "error", err)
	})
	t.Run("APIError.Path", func(t *testing.T) {
		key := strings.NewReplacer("/", "", `\`, "").Replace(hostileKey) // the id rule refuses these two
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { jsonReply(w, 404, `{"detail":"Not Found"}`) })
		_, err := serverClient(t, s, WithAPIKey(key)).GetRequestInfoWithResponse(bg, key)
		if !IsStatus(err, 404) {
			t.Fatalf("err %v", err)
		}
		for _, out := range []string{err.Error(), fmt.Sprintf("%#v", err)} {
			if f := leakedOf(out, key); f != "" {
				t.Errorf("key leaked as %q: %s", f, out)
			}
		}
	})
	t.Run("refused as an id", func(t *testing.T) {
		_, err := fakeClient(t, &fakeRT{}, WithAPIKey(hostileKey)).GetRequestInfoWithResponse(bg, hostileKey)
		if !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("err %v", err)
		}
		noKey(t, "error", err)
	})
	t.Run("422 details", func(t *testing.T) {
		esc := uEscape(hostileKey)
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			jsonReply(w, 422, `{"detail":[{"loc":["header","`+esc+`",{"k":"`+esc+`"}],"msg":"bad `+esc+`","type":"`+esc+`"}]}`)
		})
		_, err := Check(serverClient(t, s, WithAPIKey(hostileKey)).GetRequestInfoWithResponse(bg, "r-1"))
		// \u escapes: each escaped run is redacted
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || strings.Count(string(apiErr.Body), redacted) != 4 {
			t.Fatalf("err %v (body %s), want a 422 *APIError with 4 runs redacted", err, apiErr.Body)
		}
		noKey(t, "APIError", apiErr)
		noKey(t, "APIError.Body", string(apiErr.Body))
	})
}

// TestNoKeyInAnyError runs every way this package produces an error, with
// the key planted wherever a caller or a hostile server could put it, for a
// plain and a hostile key, and searches every rendering of each error (and
// of its typed fields) for the key in any form. Log lines are searched by
// leakCheckedLogger. Add a row for any new error path.
func TestNoKeyInAnyError(t *testing.T) {
	answer := func(code int, h http.Header, body string) func(string) *fakeRT {
		return func(key string) *fakeRT {
			return &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
				b := strings.NewReplacer("{key}", key, "{ukey}", uEscape(key), "{mkey}", mixedEscape(key), "{auth}", r.Header.Get("Authorization")).Replace(body)
				hh := http.Header{}
				for k, v := range h {
					hh.Set(k, strings.ReplaceAll(v[0], "{key}", key))
				}
				return reply(r, code, hh, b), nil
			}}
		}
	}
	getKeyAsID := func(t *testing.T, c *gen.ClientWithResponses, key string) error {
		_, err := Check(c.GetRequestInfoWithResponse(bg, key))
		return err
	}
	attach := func(t *testing.T, c *gen.ClientWithResponses, key string) error {
		_, err := Check(c.StorageAttachWithResponse(bg, attachBody))
		return err
	}
	for _, tc := range []struct {
		name string
		rt   func(key string) *fakeRT // nil: no fake transport
		opts func(key string) []Option
		call func(t *testing.T, c *gen.ClientWithResponses, key string) error
	}{
		{name: "404 echoing the key, key as id", rt: answer(404, nil, `{"detail":"no {key} ({ukey}), {auth}"}`), call: getKeyAsID},
		{name: "422 echoing the key in loc, msg, type", rt: answer(422, nil, `{"detail":[{"loc":["header","{ukey}",{"k":"{key}"}],"msg":"{key}","type":"{ukey}"}]}`), call: attach},
		{name: "422 not FastAPI's shape", rt: answer(422, nil, `{"detail":"{auth}"}`), call: attach},
		{name: "502 text echo", rt: answer(502, http.Header{"Content-Type": {"text/plain"}}, "{auth}"), call: attach},
		{name: "502 truncated echo", rt: answer(502, http.Header{"Content-Type": {"text/html"}}, "{auth}"+strings.Repeat("x", 8192)),
			opts: func(string) []Option { return []Option{WithMaxResponseBytes(4096)} }, call: attach},
		// Bodies that are not valid JSON, echoing the key \u-escaped: cut at
		// the cap (Truncated), broken, a 2xx that does not parse (DecodeError).
		{name: "502 truncated, key escaped", rt: answer(502, http.Header{"Content-Type": {"text/html"}}, `<p>{ukey} {mkey}</p>`+strings.Repeat("x", 8192)),
			opts: func(string) []Option { return []Option{WithMaxResponseBytes(4096)} }, call: attach},
		{name: "500 JSON truncated, key escaped", rt: answer(500, nil, `{"detail":"{ukey} {mkey}","x":"`+strings.Repeat("x", 8192)+`"}`),
			opts: func(string) []Option { return []Option{WithMaxResponseBytes(4096)} }, call: attach},
		{name: "500 JSON cut inside the key", rt: answer(500, nil, `{"detail":"{mkey}`), call: attach},
		{name: "400 broken JSON, key escaped", rt: answer(400, nil, `{"detail":"{ukey}", {mkey} "x":`), call: attach},
		{name: "200 malformed, key escaped", rt: answer(200, nil, `{"x":"{ukey}","y":"{mkey}"`), call: getKeyAsID},
		{name: "429 too long to wait", rt: answer(429, http.Header{"Retry-After": {"3600"}}, `{"detail":"{key}"}`), call: getKeyAsID},
		{name: "200 malformed, key in body and Content-Type", rt: answer(200, http.Header{"Content-Type": {"application/json; k={key}"}}, `{"x":"{key}"`), call: getKeyAsID},
		{name: "200 wrong shape", rt: answer(200, nil, `{"request_id":["{key}"]}`), call: getKeyAsID},
		{name: "200 too large, key as id", rt: answer(200, nil, `{"x":"`+strings.Repeat("x", 8192)+`"}`),
			opts: func(string) []Option { return []Option{WithMaxResponseBytes(4096)} }, call: getKeyAsID},
		{name: "transport error echoing the request", rt: func(string) *fakeRT {
			return &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
				return nil, &echoErr{r.Header.Get("Authorization") + " " + r.URL.String()}
			}}
		}, call: getKeyAsID},
		{name: "nil response", rt: func(string) *fakeRT {
			return &fakeRT{respond: func(int, *http.Request) (*http.Response, error) { return nil, nil }}
		}, call: getKeyAsID},
		{name: "invalid request (the key as cluster ids)", rt: answer(202, nil, attachOK), call: func(t *testing.T, c *gen.ClientWithResponses, key string) error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: key, ClusterIDs: []string{key, key}})
			return err
		}},
		// net/http's own header check, before dialing, quotes a header's name
		{name: "invalid header from an editor", call: func(t *testing.T, c *gen.ClientWithResponses, key string) error {
			_, err := c.GetRequestInfoWithResponse(bg, key, func(_ context.Context, r *http.Request) error {
				r.Header[key+" x"] = []string{key + "\r\n"}
				return nil
			})
			return err
		}},
		{name: "cancelled context, key as id", rt: func(string) *fakeRT {
			return &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return nil, r.Context().Err() }}
		}, call: func(t *testing.T, c *gen.ClientWithResponses, key string) error {
			ctx, cancel := context.WithCancel(bg)
			cancel()
			_, err := c.GetRequestInfoWithResponse(ctx, key)
			return err
		}},
		{name: "NewClient: key in the base URL", opts: func(key string) []Option {
			return []Option{WithBaseURL("http://example.com/" + url.PathEscape(key))}
		}},
		{name: "NewClient: key as the base URL's user", opts: func(key string) []Option {
			return []Option{WithBaseURL("https://" + url.PathEscape(key) + "@example.com")}
		}},
		{name: "key in an invalid user agent", opts: func(key string) []Option { return []Option{WithUserAgent(key + "\n")} }, call: getKeyAsID},
		{name: "NewClient: key with a control character", opts: func(key string) []Option { return []Option{WithAPIKey(key + "\x00")} }},
	} {
		for _, key := range []string{testKey, hostileKey} {
			t.Run(tc.name+"/"+key[:6], func(t *testing.T) {
				opts := []Option{WithAPIKey(key), WithBaseURL("https://engine.test"), fastRetries, leakCheckedLogger(t)}
				var f *fakeRT
				if tc.rt != nil {
					f = tc.rt(key)
					opts = append(opts, WithHTTPClient(&http.Client{Transport: f}))
				}
				if tc.opts != nil {
					opts = append(opts, tc.opts(key)...)
				}
				c, err := NewClient(opts...)
				if err == nil && tc.call != nil {
					err = tc.call(t, c, key)
				}
				if err == nil {
					t.Fatal("no error")
				}
				searchErr(t, err, key)
			})
		}
	}
}

// searchErr fails if key, in any form, is in any rendering of err or of
// the typed errors in its chain.
func searchErr(t *testing.T, err error, key string) {
	t.Helper()
	values := []any{err}
	var (
		apiErr    *APIError
		decodeErr *DecodeError
		urlErr    *url.Error
	)
	if errors.As(err, &apiErr) {
		values = append(values, *apiErr, string(apiErr.Body), apiErr.Details)
		for _, d := range apiErr.Details {
			values = append(values, d.Loc...)
		}
	}
	if errors.As(err, &decodeErr) {
		values = append(values, *decodeErr, string(decodeErr.Body))
	}
	if errors.As(err, &urlErr) {
		values = append(values, *urlErr, urlErr.URL)
	}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
			if s := fmt.Sprintf(verb, v); leakedOf(s, key) != "" {
				t.Errorf("%T printed with %s holds the key (as %q): %s", v, verb, leakedOf(s, key), s)
			}
		}
	}
}

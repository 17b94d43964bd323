package tensorpool

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/operations"
)

func TestNewClientKeyFromEnv(t *testing.T) {
	t.Setenv(EnvAPIKey, "  "+testKey+"\n")
	t.Setenv(EnvBaseURL, "")
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 200, nil, infoOK), nil }}
	c, err := NewClient(WithHTTPClient(&http.Client{Transport: f}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(c.GetRequestInfoWithResponse(bg, "r-1")); err != nil {
		t.Fatal(err)
	}
	got := f.get(0)
	if got.auth != "Bearer "+testKey {
		t.Errorf("Authorization %q", got.auth)
	}
	if s := c.ClientInterface.(*operations.Client).Gen().Server; s != DefaultBaseURL+"/" {
		t.Errorf("server %q", s)
	}
}

func TestNewClientOptionBeatsEnv(t *testing.T) {
	t.Setenv(EnvAPIKey, "env-key")
	t.Setenv(EnvBaseURL, "https://env.example")
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 200, nil, infoOK), nil }}
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL("https://opt.example"), WithHTTPClient(&http.Client{Transport: f}))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
	if got := f.get(0); got.auth != "Bearer "+testKey {
		t.Errorf("Authorization %q", got.auth)
	}
	if s := c.ClientInterface.(*operations.Client).Gen().Server; s != "https://opt.example/" {
		t.Errorf("server %q", s)
	}
}

func TestNewClientBaseURLFromEnv(t *testing.T) {
	t.Setenv(EnvBaseURL, "https://staging.example/api")
	c, err := NewClient(WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.ClientInterface.(*operations.Client).Gen().Server; s != "https://staging.example/api/" {
		t.Errorf("server %q", s)
	}
}

func TestNewClientNoKey(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	for _, opts := range [][]Option{nil, {WithAPIKey("")}, {WithAPIKey("   ")}} {
		_, err := NewClient(opts...)
		if !errors.Is(err, ErrNoAPIKey) {
			t.Errorf("NewClient(%d opts) = %v, want ErrNoAPIKey", len(opts), err)
		}
	}
	t.Setenv(EnvAPIKey, "from-env")
	if _, err := NewClient(WithAPIKey("")); !errors.Is(err, ErrNoAPIKey) {
		t.Errorf("an explicit empty key fell back to the environment: %v", err)
	}
}

func TestNewClientInvalidKey(t *testing.T) {
	for _, k := range []string{testKey + "\nX-Evil: 1", "tp key", testKey + "\x00", testKey + "é"} {
		_, err := NewClient(WithAPIKey(k))
		if err == nil || !strings.Contains(err.Error(), "invalid API key") {
			t.Errorf("key %q: err %v", k, err)
		}
		noKey(t, "invalid key error", err)
	}
}

func TestNewClientBaseURLRules(t *testing.T) {
	const errInsecure, errBaseURL = "refusing plain http", "invalid base URL"
	cases := []struct {
		url      string
		insecure bool
		want     string
	}{
		{"https://engine.tensorpool.dev", false, ""},
		{"https://engine.tensorpool.dev/", false, ""},
		{"https://example.com:8443/prefix", false, ""},
		{"http://localhost:8000", false, ""},
		{"http://LOCALHOST", false, errInsecure},     // net/http would send it through $HTTP_PROXY
		{"http://api.localhost", false, errInsecure}, // proxied, and rarely in /etc/hosts: may resolve anywhere
		{"http://localhost.", false, errInsecure},
		{"http://127.0.0.1.evil.com", false, errInsecure},
		{"http://[::1%25lo]:8000", false, errInsecure},
		{"http://0177.0.0.1", false, errInsecure},
		{"http://2130706433", false, errInsecure},
		{"http://127.0.0.1:8000", false, ""},
		{"http://127.1.2.3", false, ""},
		{"http://[::1]:8000", false, ""},
		{"http://engine.tensorpool.dev", false, errInsecure},
		{"http://10.0.0.5:8000", false, errInsecure},
		{"http://localhost.evil.com", false, errInsecure},
		{"http://engine.tensorpool.dev", true, ""},
		{"ftp://engine.tensorpool.dev", false, errBaseURL},
		{"engine.tensorpool.dev", false, errBaseURL},
		{"/relative", false, errBaseURL},
		{"https://user:hunter2@engine.tensorpool.dev", false, errBaseURL},
		{"https://tp-hunter2@engine.tensorpool.dev", false, errBaseURL}, // a user name only
		{"https://:hunter2@engine.tensorpool.dev", false, errBaseURL},
		{"tp-hunter2@engine.tensorpool.dev", false, errBaseURL}, // no scheme: parses as a path
		{"https:tp-hunter2@engine.tensorpool.dev", false, errBaseURL},
		{"https://tp-hunter2@%zz", false, errBaseURL}, // does not parse
		{"https://engine.tensorpool.dev/?q=1", false, errBaseURL},
		{"https://engine.tensorpool.dev/#x", false, errBaseURL},
		{"https://%zz", false, errBaseURL},
	}
	for _, tc := range cases {
		opts := []Option{WithAPIKey(testKey), WithBaseURL(tc.url)}
		if tc.insecure {
			opts = append(opts, WithInsecureHTTP())
		}
		_, err := NewClient(opts...)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %v", tc.url, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: error shows the URL's credentials: %v", tc.url, err)
		}
	}
	t.Setenv(EnvBaseURL, "http://engine.tensorpool.dev")
	if _, err := NewClient(WithAPIKey(testKey)); err == nil || !strings.Contains(err.Error(), errInsecure) {
		t.Errorf("TENSORPOOL_ENGINE bypassed the https rule: %v", err)
	}
	t.Setenv(EnvBaseURL, "https://tp-hunter2@engine.tensorpool.dev")
	if _, err := NewClient(WithAPIKey(testKey)); err == nil || !strings.Contains(err.Error(), errBaseURL) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("TENSORPOOL_ENGINE with a user name: %v", err)
	}
}

func TestOptionErrors(t *testing.T) {
	for name, o := range map[string]Option{
		"WithHTTPClient(nil)":     WithHTTPClient(nil),
		"WithTimeout(-1)":         WithTimeout(-1),
		"WithRetryPolicy(-1)":     WithRetryPolicy(RetryPolicy{MaxRetries: -1}),
		"WithMaxResponseBytes(0)": WithMaxResponseBytes(0),
	} {
		if _, err := NewClient(WithAPIKey(testKey), o); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := NewClient(WithAPIKey(testKey), nil); err != nil {
		t.Errorf("a nil Option: %v", err)
	}
}

func TestUserAgent(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 200, nil, infoOK), nil }}
	c := fakeClient(t, f, WithUserAgent("my-app/1.2"))
	_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
	_, _ = c.GetRequestInfoWithResponse(bg, "r-1", func(_ context.Context, r *http.Request) error {
		r.Header.Set("User-Agent", "per-call/3")
		return nil
	})
	want := "my-app/1.2 tensorpool-go/" + moduleVersion() + " go/" + strings.TrimPrefix(runtime.Version(), "go") + " (" + runtime.GOOS + "; " + runtime.GOARCH + ")"
	if ua := f.get(0).ua; ua != want {
		t.Errorf("User-Agent %q, want %q", ua, want)
	}
	if ua := f.get(1).ua; ua != "per-call/3 "+want {
		t.Errorf("User-Agent with an editor's %q", ua)
	}
}

// TestInvalidHeaders: an editor's header or a User-Agent that HTTP cannot
// carry fails at once (in virtual time, no time passes), through
// net/http's own check, never sent, never retried, and without the value
// in the error.
func TestInvalidHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(int, http.ResponseWriter, *http.Request) {})
		for name, edit := range map[string]func(*http.Request){
			"value": func(r *http.Request) { r.Header.Set("X-Token", "secret\r\nX-Evil: 1") },
			"name":  func(r *http.Request) { r.Header["Bad Name"] = []string{"v"} },
			"UA":    func(r *http.Request) { r.Header.Set("User-Agent", "secret\n") },
		} {
			c := serverClient(t, s, WithRetryPolicy(DefaultRetryPolicy()),
				WithRequestEditorFn(func(_ context.Context, r *http.Request) error { edit(r); return nil }))
			start := time.Now()
			_, err := c.GetRequestInfoWithResponse(bg, "r-1")
			if el := time.Since(start); err == nil || !strings.Contains(err.Error(), "invalid header") || el != 0 {
				t.Errorf("%s: err %v after %v, want net/http's invalid header error at once", name, err, el)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: the header value is in the error: %v", name, err)
			}
		}
		if s.n() != 0 {
			t.Errorf("%d requests with invalid headers reached the server", s.n())
		}
	})
}

// TestWithHTTPClientNotModified: the caller's *http.Client is copied, never
// modified; its Timeout bounds the whole call unless WithTimeout says
// otherwise, and it is not left on the copy, where it would also bound
// every attempt.
func TestWithHTTPClientNotModified(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 200, nil, infoOK), nil }}
	hc := &http.Client{Transport: f, Timeout: 3 * time.Second}
	c, err := NewClient(WithAPIKey(testKey), WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if hc.Transport != f || hc.Timeout != 3*time.Second || hc.CheckRedirect != nil {
		t.Errorf("caller's client modified: %+v", hc)
	}
	if d := doerOf(c); d.hc == hc || d.hc.Timeout != 0 || d.timeout != 3*time.Second {
		t.Errorf("inner client %+v, call timeout %v", d.hc, d.timeout)
	}
	c2, _ := NewClient(WithAPIKey(testKey), WithHTTPClient(hc), WithTimeout(time.Second))
	if got := doerOf(c2).timeout; got != time.Second {
		t.Errorf("WithTimeout ignored: %v", got)
	}
	c3, _ := NewClient(WithAPIKey(testKey))
	if got := doerOf(c3).timeout; got != DefaultTimeout {
		t.Errorf("default timeout %v", got)
	}
}

// TestNilResponseNilError: a transport answering (nil, nil) gives an error,
// not a panic.
func TestNilResponseNilError(t *testing.T) {
	nilRT := &fakeRT{respond: func(int, *http.Request) (*http.Response, error) { return nil, nil }}
	c, err := NewClient(WithAPIKey(testKey), WithHTTPClient(&http.Client{Transport: nilRT}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetRequestInfoWithResponse(bg, "r-1"); err == nil {
		t.Fatal("no error")
	}
}

func TestRequestEditorOption(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 200, nil, infoOK), nil }}
	var sawAuth atomic.Bool
	c := fakeClient(t, f, WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		sawAuth.Store(r.Header.Get("Authorization") != "")
		return nil
	}))
	_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
	if sawAuth.Load() {
		t.Error("request editors see the Authorization header; the transport should add it")
	}
	refuse := errors.New("refused")
	c = fakeClient(t, f, WithRequestEditorFn(func(context.Context, *http.Request) error { return refuse }))
	if _, err := c.GetRequestInfoWithResponse(bg, "r-1"); !errors.Is(err, refuse) {
		t.Errorf("err %v", err)
	}
	if f.n() != 1 {
		t.Errorf("a refused request was sent")
	}
}

// TestAgainstServer is the end-to-end path over real HTTP: key, headers,
// decoding and Check.
func TestAgainstServer(t *testing.T) {
	var gotAuth, gotUA atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth.Store(r.Header.Get("Authorization"))
		gotUA.Store(r.Header.Get("User-Agent"))
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/storage/attach" || string(body) != `{"cluster_ids":["c-1"],"storage_id":"s-1"}` {
			http.Error(w, `{"detail":"unexpected"}`, 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(202)
		_, _ = io.WriteString(w, attachOK)
	}))
	defer srv.Close()
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Check(c.StorageAttachWithResponse(bg, attachBody))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode() != 202 || resp.JSON202.Message != "attaching" {
		t.Errorf("resp %d %s", resp.StatusCode(), resp.Body)
	}
	if gotAuth.Load() != "Bearer "+testKey || !strings.HasPrefix(gotUA.Load().(string), "tensorpool-go/") {
		t.Errorf("auth %q ua %q", gotAuth.Load(), gotUA.Load())
	}
	if resp.HTTPResponse.Request.Header.Get("Authorization") != "" {
		t.Error("resp.HTTPResponse.Request carries the Authorization header")
	}
}

// TestNewClientRefusesWhatItCannotSend: a User-Agent product with control
// characters fails NewClient (not every call later), without the value.
func TestNewClientRefusesWhatItCannotSend(t *testing.T) {
	for _, product := range []string{"app\r\nX-Evil: 1", "app\x00", "app\tv1", "app\x7f"} {
		_, err := NewClient(WithAPIKey(testKey), WithUserAgent(product))
		if err == nil || !strings.Contains(err.Error(), "WithUserAgent") || strings.Contains(err.Error(), "app") {
			t.Errorf("WithUserAgent(%q): %v", product, err)
		}
	}
	if _, err := NewClient(WithAPIKey(testKey), WithUserAgent("my-app/1.2 (+https://example.com; ü)")); err != nil {
		t.Error(err)
	}
}

// TestShortKeyGarblesNothing: a key of 1 to 3 characters, which no rule
// could tell from a word or an id ("a", "r" in "r-2"), is refused; with a
// short key that is taken, the client's own words and a server's keep every
// letter, and the key itself, where it stands alone, is still redacted.
func TestShortKeyGarblesNothing(t *testing.T) {
	for _, key := range []string{"a", "r", "1", "tp", "abc"} {
		if _, err := NewClient(WithAPIKey(key)); err == nil || err.Error() != errShortKey {
			t.Errorf("key %q: NewClient: %v, want %q", key, err, errShortKey)
		}
	}
	// each key sits inside words of the texts below, which must come through whole
	for _, key := range []string{"loop", "Stor", "tora", "ooku"} {
		_, err := NewClient(WithAPIKey(key), WithBaseURL("http://example.com"))
		if err == nil || !strings.Contains(err.Error(), "not a loopback host: the API key would travel in clear text") {
			t.Errorf("key %q: NewClient: %v", key, err)
		}
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 404, nil, `{"detail":"Storage s-1 not found by lookup (key `+key+`, token=`+key+`)"}`), nil
		}}
		_, err = fakeClient(t, f, WithAPIKey(key)).StorageDestroyWithResponse(bg, "s-1")
		want := "tensorpool: DELETE /storage/s-1: 404 Not Found: Storage s-1 not found by lookup (key [REDACTED], token=[REDACTED])"
		if err == nil || err.Error() != want {
			t.Errorf("key %q: %v\nwant %s", key, err, want)
		}
		const message = "kept: Storage, loopback, lookup"
		f.respond = func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 202, http.Header{"X-Note": {"Storage " + key}}, `{"storage_id":"s-1","request_id":"`+key+`","message":"`+message+`"}`), nil
		}
		r, err := fakeClient(t, f, WithAPIKey(key)).StorageDestroyWithResponse(bg, "s-1")
		if err != nil || r.JSON202.Message != message || *r.JSON202.RequestID != redacted || r.HTTPResponse.Header.Get("X-Note") != "Storage "+redacted {
			t.Errorf("key %q: %v, %+v, %v", key, err, r, r.HTTPResponse.Header)
		}
	}
}

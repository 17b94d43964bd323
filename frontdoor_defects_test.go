package tensorpool

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// TestMutatingRequestNeverFollowsARedirect: a 301, 302, 303, 307 or 308
// answered to POST /storage/attach or DELETE /storage/{id} is never
// followed (net/http would replay 301-303 as a GET, whose 200 would look
// like success): the redirect is the response, an *APIError for Check
// naming the status and the Location, and the target is never hit.
func TestMutatingRequestNeverFollowsARedirect(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		target := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) { jsonReply(w, 200, okBody(r.Method)) })
		s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/moved", code)
		})
		c := serverClient(t, s)
		for name, call := range map[string]func() error{
			"POST":   func() error { _, err := Check(c.StorageAttachWithResponse(bg, attachBody)); return err },
			"DELETE": func() error { _, err := Check(c.StorageDestroyWithResponse(bg, "s-1")); return err },
		} {
			err := call()
			var e *APIError
			if !errors.As(err, &e) || !IsStatus(err, code) || e.Method != name || !strings.Contains(err.Error(), target.URL+"/moved") {
				t.Errorf("%d %s: err %v, want an *APIError naming the status and Location", code, name, err)
			}
		}
		if target.n() != 0 || s.n() != 2 {
			t.Errorf("%d: the redirect target got %d requests, the origin %d; want 0 and 2 (no retry)", code, target.n(), s.n())
		}
	}
}

// TestResponseHeadLostIsRetried: a GET whose connection drops in the middle
// of the status line or the headers ("malformed HTTP response", a
// textproto.ProtocolError) is retried like any lost connection; a POST is
// not (it may have been processed).
func TestResponseHeadLostIsRetried(t *testing.T) {
	for _, partial := range []string{"HTTP/1.", "HTTP/1.1 2", "HTTP/1.1 200 OK\r\nContent-Ty"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hits := make(chan int, 10)
		go func() {
			for n := 1; ; n++ {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				hits <- n
				conn.Read(make([]byte, 4096))
				if n == 3 {
					body := infoOK
					conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body))
				} else {
					conn.Write([]byte(partial))
				}
				conn.Close()
			}
		}()
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL("http://"+ln.Addr().String()), fastRetries, leakCheckedLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Check(c.GetRequestInfoWithResponse(bg, "r-1")); err != nil || len(hits) != 3 {
			t.Errorf("GET, response cut after %q: err %v after %d attempts; want success on the 3rd", partial, err, len(hits))
		}
		for len(hits) > 0 {
			<-hits
		}
		if _, err := c.StorageAttachWithResponse(bg, attachBody); err == nil || len(hits) != 1 {
			t.Errorf("POST, response cut after %q: err %v after %d attempts; want one attempt", partial, err, len(hits))
		}
		ln.Close()
	}
}

// TestCutKeyNeverShown: an error body cut in the middle of an echoed key,
// at the size cap or by a dropped connection, keeps no prefix of the key.
func TestCutKeyNeverShown(t *testing.T) {
	const limit = 4096
	filler := strings.Repeat("x", limit-20)
	cases := map[string]func(w http.ResponseWriter){
		"at the cap": func(w http.ResponseWriter) {
			jsonReply(w, 500, filler+testKey+strings.Repeat("y", 100))
		},
		"connection dropped": func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "9999")
			w.WriteHeader(500)
			w.Write([]byte(`{"detail":"echo ` + testKey[:20]))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		},
	}
	for name, h := range cases {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { h(w) })
		_, err := Check(serverClient(t, s, WithMaxResponseBytes(limit)).StorageAttachWithResponse(bg, attachBody))
		var e *APIError
		if !errors.As(err, &e) || e.StatusCode != 500 || !e.Truncated {
			t.Fatalf("%s: err %v, want a truncated 500", name, err)
		}
		for _, out := range []string{string(e.Body), e.Message, e.Error()} {
			if strings.Contains(out, testKey[:minCut]) || !strings.Contains(string(e.Body), redacted) {
				t.Errorf("%s: a cut key is shown: %q", name, out[max(0, len(out)-60):])
			}
		}
	}
}

// TestBodyReadTimeoutNamed: the whole-call timeout passing while the body
// is read is reported as such, with the request and the status, not as a
// wait for headers.
func TestBodyReadTimeoutNamed(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		w.Write([]byte(`{"request_id":`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	// 1 s: on a loaded machine the headers still arrive first, so the deadline falls in the body.
	_, err := serverClient(t, s, WithTimeout(time.Second)).GetRequestInfoWithResponse(bg, "r-1")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "GET /request/info/r-1: 200 response") || !strings.Contains(err.Error(), "reading the body") ||
		strings.Contains(err.Error(), "awaiting headers") {
		t.Errorf("err %v", err)
	}
}

// TestCallersRequestNeverHoldsTheKey: the key and the User-Agent go in
// each attempt's own copy of the request. The request the generated method
// built, which a request editor and the response can reach, never holds
// the key, retried or not.
func TestCallersRequestNeverHoldsTheKey(t *testing.T) {
	var sent []*http.Request
	f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
		sent = append(sent, r)
		if n == 1 {
			return reply(r, 503, nil, ""), nil
		}
		return reply(r, 200, nil, infoOK), nil
	}}
	var built *http.Request
	c := fakeClient(t, f, WithRetryPolicy(RetryPolicy{MaxRetries: 1}), WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		built = r
		r.Header.Set("X-Trace", "t")
		return nil
	}))
	r, err := c.GetRequestInfoWithResponse(bg, "r-1")
	if err != nil || len(sent) != 2 {
		t.Fatalf("%v after %d attempts", err, len(sent))
	}
	for i, s := range sent {
		if s == built || s.Header.Get("Authorization") != "Bearer "+testKey || s.Header.Get("X-Trace") != "t" || !strings.HasPrefix(s.Header.Get("User-Agent"), "tensorpool-go/") {
			t.Errorf("attempt %d sent %v", i+1, s.Header)
		}
	}
	if built.Header.Get("Authorization") != "" || r.HTTPResponse.Request != built {
		t.Errorf("the built request now has %v; the response points to %p, not %p", built.Header, r.HTTPResponse.Request, built)
	}
}

// TestReadmeSnippetNeverSeesANilBody: where Check returns nil, the typed
// body the spec declares is there, so resp.JSON202.RequestIDs (the
// README's snippet) cannot panic.
func TestReadmeSnippetNeverSeesANilBody(t *testing.T) {
	for _, status := range []int{200, 201, 202, 204} {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, status, nil, attachOK), nil }}
		resp, err := Check(fakeClient(t, f).StorageAttachWithResponse(bg, attachBody))
		if err == nil && (resp.JSON202 == nil || resp.JSON202.RequestIDs == nil) {
			t.Errorf("%d: Check returned nil with JSON202 %v", status, resp.JSON202)
		}
		if (err == nil) != (status == 202) {
			t.Errorf("%d: err %v", status, err)
		}
	}
	var _ gen.StorageAttachResponse
}

// TestSuccessBodyIsData: a successful answer reaches the caller as the
// server sent it, but for the whole key, in any escaped form: no heuristic
// rewrites data (a path that ends like the key's start stays). Its headers
// likewise. Error texts built from it are diagnostics, redacted in full
// (TestWaitFailedErrorThroughNewClientHidesTheKey).
func TestSuccessBodyIsData(t *testing.T) {
	for _, tc := range []struct{ echo, want string }{
		{"mounted at /mnt/" + testKey[:7], "mounted at /mnt/" + testKey[:7]},
		{"mounted at /mnt/" + testKey[:4], "mounted at /mnt/" + testKey[:4]},
		{`bad key \"` + testKey[:12] + `\"`, `bad key "` + testKey[:12] + `"`},
		{"bad key " + testKey, "bad key " + redacted},
		{"bad key " + testKey + testKey, "bad key " + redacted + redacted},
	} {
		body := `{"request_id":"r-1","created_at":"2026-01-01T00:00:00Z","request_type":"STORAGE_ATTACH","status":"COMPLETED","external_message":"` + tc.echo + `"}`
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 200, http.Header{"X-Echo": {tc.echo}}, body), nil
		}}
		resp, err := Check(fakeClient(t, f).GetRequestInfoWithResponse(bg, "r-1"))
		if err != nil || *resp.JSON200.ExternalMessage != tc.want {
			t.Fatalf("echo %q: err %v, resp %+v, want external_message %q", tc.echo, err, resp, tc.want)
		}
		if want := strings.ReplaceAll(body, testKey, redacted); string(resp.Body) != want {
			t.Errorf("echo %q: Body %q, want the bytes sent, but an exact echo of the key: %q", tc.echo, resp.Body, want)
		}
		if h, want := resp.HTTPResponse.Header.Get("X-Echo"), strings.ReplaceAll(tc.echo, testKey, redacted); h != want {
			t.Errorf("echo %q: header %q, want %q", tc.echo, h, want)
		}
	}
}

// TestCallersCheckRedirectDecidesForGET: WithHTTPClient's CheckRedirect
// decides the redirects of a GET; a mutating request never reaches it.
func TestCallersCheckRedirectDecidesForGET(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			jsonReply(w, 200, infoOK)
			return
		}
		http.Redirect(w, r, "/moved", http.StatusFound)
	})
	var asked []string
	stop := errors.New("no redirects here")
	hc := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		asked = append(asked, via[0].Method)
		return stop
	}}
	c := serverClient(t, s, WithHTTPClient(hc))
	if _, err := c.GetRequestInfoWithResponse(bg, "r-1"); !errors.Is(err, stop) {
		t.Errorf("GET: err %v, want the caller's CheckRedirect error", err)
	}
	if _, err := Check(c.StorageDestroyWithResponse(bg, "s-1")); !IsStatus(err, http.StatusFound) {
		t.Errorf("DELETE: err %v, want the 302 as an *APIError", err)
	}
	if len(asked) != 1 || asked[0] != "GET" {
		t.Errorf("CheckRedirect asked for %v, want [GET]", asked)
	}
}

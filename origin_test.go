package tensorpool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// fastRetries keeps tests against real servers quick.
var fastRetries = WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second})

// server is an httptest server that records what it receives.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []*http.Request
	bodies []string
	// dial connects to a pipe server (newPipeServer); nil for a socket.
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func newServer(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(s.record(h))
	t.Cleanup(s.Close)
	return s
}

// newPipeServer is newServer over net.Pipe instead of a socket: the same
// net/http server and client code, whose reads and writes on a pipe
// block durably, so that inside a synctest bubble its timeouts run in
// virtual time. (A socket's do not: a bubble's clock stops while a
// goroutine waits on one.) serverClient dials it; a test's own
// http.Transport sets DialContext to s.dial.
func newPipeServer(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	s := &server{dial: l.dial}
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: s.record(h)}}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// record counts and keeps each request, then calls h.
func (s *server) record(h func(n int, w http.ResponseWriter, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.hits = append(s.hits, r)
		s.bodies = append(s.bodies, string(b))
		n := len(s.hits)
		s.mu.Unlock()
		h(n, w, r)
	})
}

// pipeListener accepts the server ends of the pipes its dial makes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error { l.once.Do(func() { close(l.done) }); return nil }

// Addr is a loopback address, which the client's https rule lets through.
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- srv:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *server) n() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hits)
}

func (s *server) hit(i int) (*http.Request, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[i], s.bodies[i]
}

func jsonReply(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func serverClient(t *testing.T, s *server, opts ...Option) *gen.ClientWithResponses {
	t.Helper()
	if s.dial != nil {
		opts = append([]Option{WithHTTPClient(&http.Client{Transport: &http.Transport{DialContext: s.dial}})}, opts...)
	}
	c, err := NewClient(append([]Option{WithAPIKey(testKey), WithBaseURL(s.URL), fastRetries, leakCheckedLogger(t)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestServerRetries checks the retry table against a real server: 503 then
// 200 for GET; 503 for POST once; 429 then 202 for POST, same body twice.
func TestServerRetries(t *testing.T) {
	t.Run("GET 503 then 200", func(t *testing.T) {
		s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n < 3 {
				jsonReply(w, 503, `{"detail":"busy"}`)
				return
			}
			jsonReply(w, 200, infoOK)
		})
		if _, err := Check(serverClient(t, s).GetRequestInfoWithResponse(bg, "r-1")); err != nil || s.n() != 3 {
			t.Errorf("err %v after %d requests", err, s.n())
		}
	})
	t.Run("POST 503 not retried", func(t *testing.T) {
		s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) { jsonReply(w, 503, `{"detail":"busy"}`) })
		_, err := Check(serverClient(t, s).StorageAttachWithResponse(bg, attachBody))
		if !IsStatus(err, 503) || s.n() != 1 {
			t.Errorf("err %v after %d requests", err, s.n())
		}
	})
	t.Run("DELETE 502 not retried", func(t *testing.T) {
		s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) { jsonReply(w, 502, ``) })
		_, err := Check(serverClient(t, s).StorageDestroyWithResponse(bg, "s-1"))
		if !IsStatus(err, 502) || s.n() != 1 {
			t.Errorf("err %v after %d requests", err, s.n())
		}
	})
	t.Run("POST 429 then 202", func(t *testing.T) {
		s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				jsonReply(w, 429, `{"detail":"slow down"}`)
				return
			}
			jsonReply(w, 202, attachOK)
		})
		if _, err := Check(serverClient(t, s).StorageAttachWithResponse(bg, attachBody)); err != nil || s.n() != 2 {
			t.Fatalf("err %v after %d requests", err, s.n())
		}
		_, b1 := s.hit(0)
		_, b2 := s.hit(1)
		if b1 != b2 || !strings.Contains(b1, `"s-1"`) {
			t.Errorf("bodies %q, %q", b1, b2)
		}
	})
}

// dropAfterRequest is a handler that reads the whole request, then closes
// the connection without answering: the request may have been processed.
func dropAfterRequest(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// TestConnectionDroppedAfterSend: a GET is retried; a POST or DELETE, which
// reached the server, is not.
func TestConnectionDroppedAfterSend(t *testing.T) {
	for method, want := range map[string]int{"GET": 4, "POST": 1, "DELETE": 1} {
		t.Run(method, func(t *testing.T) {
			s := newServer(t, func(int, http.ResponseWriter, *http.Request) {})
			s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				s.mu.Lock()
				s.hits = append(s.hits, r)
				s.bodies = append(s.bodies, "")
				s.mu.Unlock()
				dropAfterRequest(w)
			})
			_, err := send(bg, t, serverClient(t, s), method)
			if err == nil || s.n() != want {
				t.Errorf("err %v after %d requests, want %d", err, s.n(), want)
			}
			noKey(t, "dropped connection error", err)
		})
	}
}

// failingDialer fails the first n dials the way net.Dialer does, then
// connects.
func failingDialer(n int) (*http.Transport, *atomic.Int32) {
	var dials atomic.Int32
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= int32(n) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.AddrError{Err: syscall.ECONNREFUSED.Error(), Addr: addr}}
		}
		return d.DialContext(ctx, network, addr)
	}}
	return tr, &dials
}

// TestDialErrorsRetried: a request that could not connect never reached
// the server, so every method is retried.
func TestDialErrorsRetried(t *testing.T) {
	for _, method := range []string{"GET", "POST", "DELETE"} {
		t.Run(method, func(t *testing.T) {
			s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				jsonReply(w, okStatus(r.Method), okBody(r.Method))
			})
			tr, dials := failingDialer(2)
			defer tr.CloseIdleConnections()
			got, err := send(bg, t, serverClient(t, s, WithHTTPClient(&http.Client{Transport: tr})), method)
			if err != nil || got != okStatus(method) || dials.Load() != 3 || s.n() != 1 {
				t.Errorf("status %d err %v: %d dials, %d requests", got, err, dials.Load(), s.n())
			}
		})
	}
	t.Run("refused for real", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL("http://"+addr), fastRetries)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.StorageAttachWithResponse(bg, attachBody)
		if err == nil || !strings.Contains(err.Error(), "giving up after 4 attempts") || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("err %v", err)
		}
		noKey(t, "dial error", err)
	})
}

// TestRedirectToAnotherHost: the key follows a redirect within the base
// URL's origin, never to another host, port or scheme.
func TestRedirectToAnotherHost(t *testing.T) {
	other := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) { jsonReply(w, 200, infoOK) })
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/request/info/same":
			http.Redirect(w, r, "/request/info/r-1", http.StatusTemporaryRedirect)
		case "/request/info/elsewhere":
			http.Redirect(w, r, other.URL+"/request/info/r-1", http.StatusTemporaryRedirect)
		case "/request/info/by-name":
			// same IP, another name: net/http's own rule would strip here too
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/request/info/r-1", http.StatusFound)
		default:
			jsonReply(w, 200, infoOK)
		}
	})
	c := serverClient(t, s)
	if _, err := Check(c.GetRequestInfoWithResponse(bg, "same")); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.hit(1); r.Header.Get("Authorization") != "Bearer "+testKey {
		t.Error("same-origin redirect lost the key")
	}
	for i, id := range []string{"elsewhere", "by-name"} {
		if _, err := Check(c.GetRequestInfoWithResponse(bg, id)); err != nil {
			t.Fatal(err)
		}
		r, _ := other.hit(i)
		if got := r.Header.Get("Authorization"); got != "" {
			t.Errorf("%s: the other host received Authorization %q", id, got)
		}
	}
}

// TestNetHTTPRedirectRule records what net/http does on its own, which is
// why the transport checks the origin itself: net/http strips
// Authorization for another host name but keeps it for another port on the
// same host.
func TestNetHTTPRedirectRule(t *testing.T) {
	other := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {})
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	})
	req, _ := http.NewRequest("GET", s.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r, _ := other.hit(0); r.Header.Get("Authorization") == "" {
		t.Error("net/http (Go ≥ 1.8 through 1.26) keeps Authorization on a redirect to another port of the same host; " +
			"if that changed, update this test, not the transport: its own origin check still covers subdomains and https→http")
	}
	// Through our client, a user-set Authorization header is stripped too.
	c := serverClient(t, s, WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+testKey)
		return nil
	}))
	_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
	if r, _ := other.hit(1); r.Header.Get("Authorization") != "" {
		t.Error("a user-set Authorization header followed a redirect to another port")
	}
}

// TestHugeBody: a body past the cap fails with a typed error, announced
// (Content-Length) or streamed (chunked); a body exactly at the cap is fine.
func TestHugeBody(t *testing.T) {
	const limit = 64 << 10
	for _, tc := range []struct {
		name    string
		size    int
		chunked bool
		ok      bool
	}{
		{"announced", 10 << 20, false, false},
		{"chunked", 10 << 20, true, false},
		{"one byte over", limit + 1, true, false},
		{"exactly at the cap", limit, true, true},
		{"exactly at the cap, announced", limit, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if !tc.chunked {
					w.Header().Set("Content-Length", itoa(tc.size))
				}
				w.WriteHeader(200)
				pad := tc.size - len(`{"status":"PENDING","x":""}`)
				_, _ = io.WriteString(w, `{"status":"PENDING","x":"`)
				for pad > 0 {
					k := min(pad, 1<<16)
					_, _ = w.Write([]byte(strings.Repeat("a", k)))
					pad -= k
				}
				_, _ = io.WriteString(w, `"}`)
			})
			_, err := serverClient(t, s, WithMaxResponseBytes(limit)).GetRequestInfoWithResponse(bg, "r-1")
			noKey(t, "huge body", err)
			var tooLarge *DecodeError
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrResponseTooLarge) || !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), itoa(limit)) || tooLarge.Path != "/request/info/r-1" {
				t.Fatalf("err %v", err)
			}
			if s.n() != 1 {
				t.Errorf("a too-large body was retried: %d requests", s.n())
			}
		})
	}
}

// TestAnnouncedTooLargeFailsAtOnce: a 2xx whose Content-Length passes the
// cap fails before any of it is read, even if the server then stalls: in
// virtual time, no time passes.
func TestAnnouncedTooLargeFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", itoa(10<<20))
			w.WriteHeader(200)
			_, _ = io.WriteString(w, `{"status":"`)
			_ = http.NewResponseController(w).Flush()
			select { // stall: only the announcement tells the client
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		start := time.Now()
		_, err := serverClient(t, s, WithMaxResponseBytes(64<<10), WithTimeout(3*time.Second)).GetRequestInfoWithResponse(bg, "r-1")
		if el := time.Since(start); !errors.Is(err, ErrResponseTooLarge) || el != 0 {
			t.Errorf("err %v after %v, want ErrResponseTooLarge at once", err, el)
		}
		noKey(t, "too large", err)
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestTimeoutCoversRetries: WithTimeout bounds the whole call over a slow
// server: in virtual time, the call ends when the timeout passes.
func TestTimeoutCoversRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		const timeout = 200 * time.Millisecond
		start := time.Now()
		_, err := serverClient(t, s, WithTimeout(timeout)).GetRequestInfoWithResponse(bg, "r-1")
		if el := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || el != timeout {
			t.Errorf("err %v after %v; want the deadline, after %v", err, el, timeout)
		}
		noKey(t, "timeout error", err)
	})
}

// TestKeyOnlyToOrigin: whatever a redirect points at, the key goes only to
// the base URL's scheme, host and port.
func TestKeyOnlyToOrigin(t *testing.T) {
	for _, target := range []string{
		"http://engine.test/request/info/r-1",       // https → http, same host
		"https://engine.test:8443/request/info/r-1", // another port
		"https://sub.engine.test/request/info/r-1",  // a subdomain (net/http keeps headers here)
		"https://engine.test.evil/request/info/r-1", // a look-alike
		"https://elsewhere.example/request/info/r-1",
	} {
		f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
			if n == 1 {
				return reply(r, http.StatusFound, http.Header{"Location": {target}}, ""), nil
			}
			return reply(r, 200, nil, infoOK), nil
		}}
		c := fakeClient(t, f, WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+testKey) // even if set by hand
			return nil
		}))
		if _, err := Check(c.GetRequestInfoWithResponse(bg, "r-0")); err != nil {
			t.Fatal(err)
		}
		if f.n() != 2 || f.get(0).auth != "Bearer "+testKey || f.get(1).auth != "" {
			t.Errorf("redirect to %s: %d requests, Authorization %q then %q", target, f.n(), f.get(0).auth, f.get(1).auth)
		}
	}
}

// TestRetryctxAgainstServer is the wait composition over real HTTP: marked,
// one request on 503; unmarked, four.
func TestRetryctxAgainstServer(t *testing.T) {
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) { jsonReply(w, 503, `{"detail":"busy"}`) })
	c := serverClient(t, s)
	_, err := Check(c.GetRequestInfoWithResponse(retryctx.Poll(bg), "r-1"))
	if !IsStatus(err, 503) || s.n() != 1 {
		t.Fatalf("marked: err %v after %d requests", err, s.n())
	}
	_, err = Check(c.GetRequestInfoWithResponse(bg, "r-1"))
	if !IsStatus(err, 503) || s.n() != 1+4 {
		t.Fatalf("unmarked: err %v after %d requests", err, s.n()-1)
	}
}

// TestPerAttemptTimeout: a transport's ResponseHeaderTimeout bounds each
// attempt; the GET is retried, the POST (it reached the server) is not. In
// virtual time: the call ends when the timeout passes (the POST), or after
// it and one backoff of fastRetries (the GET).
func TestPerAttemptTimeout(t *testing.T) {
	for method, want := range map[string]int{"GET": 2, "POST": 1} {
		t.Run(method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newPipeServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
					if n == 1 {
						select { // until the attempt times out
						case <-r.Context().Done():
						case <-time.After(10 * time.Second):
						}
						return
					}
					jsonReply(w, okStatus(r.Method), okBody(r.Method))
				})
				const timeout = time.Second
				tr := &http.Transport{ResponseHeaderTimeout: timeout, DialContext: s.dial}
				defer tr.CloseIdleConnections()
				start := time.Now()
				got, err := send(bg, t, serverClient(t, s, WithHTTPClient(&http.Client{Transport: tr})), method)
				if s.n() != want || (want == 2 && (err != nil || got != okStatus(method))) || (want == 1 && err == nil) {
					t.Errorf("status %d, err %v, %d requests; want %d", got, err, s.n(), want)
				}
				if el, most := time.Since(start), timeout+time.Duration(want-1)*2*time.Millisecond; el < timeout || el > most {
					t.Errorf("the call took %v; want %v to %v", el, timeout, most)
				}
			})
		})
	}
}

// dropMidBody answers status with Content-Length: 1000, sends part of the
// body, and closes the connection.
func dropMidBody(w http.ResponseWriter, status int) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"request_id\":\"r-1\",", status, http.StatusText(status))
	_ = buf.Flush()
	_ = conn.Close()
}

// TestConnectionDroppedMidBody: a GET whose connection drops while its body
// is read is retried like any connection loss; a POST is not; either way
// the error names the request and wraps io.ErrUnexpectedEOF. A request
// marked by package wait is still sent once.
func TestConnectionDroppedMidBody(t *testing.T) {
	t.Run("GET retried, then fails", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropMidBody(w, 200) })
		_, err := serverClient(t, s).GetRequestInfoWithResponse(bg, "r-1")
		if s.n() != 4 || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "GET /request/info/r-1") {
			t.Errorf("err %v after %d requests; want 4, wrapping io.ErrUnexpectedEOF and naming the request", err, s.n())
		}
		noKey(t, "mid-body drop", err)
	})
	t.Run("GET retried, then succeeds", func(t *testing.T) {
		s := newServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				dropMidBody(w, 200)
				return
			}
			jsonReply(w, 200, infoOK)
		})
		resp, err := Check(serverClient(t, s).GetRequestInfoWithResponse(bg, "r-1"))
		if err != nil || s.n() != 2 || resp.JSON200 == nil {
			t.Errorf("err %v after %d requests", err, s.n())
		}
	})
	t.Run("POST not retried", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropMidBody(w, 202) })
		_, err := serverClient(t, s).StorageAttachWithResponse(bg, attachBody)
		if s.n() != 1 || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "POST /storage/attach") {
			t.Errorf("err %v after %d requests; want 1", err, s.n())
		}
		noKey(t, "mid-body drop", err)
	})
	t.Run("POST 502 keeps its status", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropMidBody(w, 502) })
		_, err := Check(serverClient(t, s).StorageAttachWithResponse(bg, attachBody))
		var apiErr *APIError
		if s.n() != 1 || !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || !apiErr.Truncated || string(apiErr.Body) != `{"request_id":"r-1",` {
			t.Errorf("err %v after %d requests; want the 502, truncated", err, s.n())
		}
	})
	t.Run("GET marked by retryctx sent once", func(t *testing.T) {
		s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { dropMidBody(w, 200) })
		_, err := serverClient(t, s).GetRequestInfoWithResponse(retryctx.Poll(bg), "r-1")
		if s.n() != 1 || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("err %v after %d requests; want 1", err, s.n())
		}
	})
}

// TestMalformedJSONOn2xx: through Check, a 2xx whose body does not decode
// gives a *DecodeError, never a bare encoding/json error, and is not
// retried. Without Check, NewClient's own error is a *DecodeError for a body
// that is not JSON; a value of the wrong type is the generated parser's
// bare error (the README says so), which Check wraps: it holds only Err.
func TestMalformedJSONOn2xx(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
		cause             any // the error type Unwrap leads to
	}{
		{"cut short", "application/json", `{"status":`, new(*json.SyntaxError)},
		{"html", "application/json; charset=utf-8", "<html>502</html>", new(*json.SyntaxError)},
		{"empty", "application/json", "", new(*json.SyntaxError)},
		{"odd case", "Application/JSON", `{"status":`, new(*json.SyntaxError)},
		{"+json", "application/problem+json", `{`, new(*json.SyntaxError)},
		{"wrong type", "application/json", `{"request_id":5}`, new(*json.UnmarshalTypeError)},
		{"wrong shape", "application/json", `[1,2]`, new(*json.UnmarshalTypeError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
				return reply(r, 200, http.Header{"Content-Type": {tc.ctype}}, tc.body), nil
			}}
			_, err := Check(fakeClient(t, f).GetRequestInfoWithResponse(bg, "r-1"))
			var de *DecodeError
			if !errors.As(err, &de) || !errors.As(err, tc.cause) {
				t.Fatalf("err %v (%T), want a *DecodeError wrapping %T", err, err, tc.cause)
			}
			if f.n() != 1 {
				t.Errorf("%d attempts, want 1", f.n())
			}
			// Not JSON at all: the doer names the response (the parser could not).
			if _, syntax := tc.cause.(**json.SyntaxError); syntax && (de.StatusCode != 200 || de.Method != "GET" || de.Path != "/request/info/r-1" || string(de.Body) != tc.body) {
				t.Errorf("DecodeError %+v, want status 200, GET /request/info/r-1 and the body", de)
			}
			noKey(t, "DecodeError", err)
			_, err = fakeClient(t, f).GetRequestInfoWithResponse(bg, "r-1")
			if _, syntax := tc.cause.(**json.SyntaxError); !errors.As(err, tc.cause) || errors.As(err, &de) != syntax {
				t.Errorf("without Check: err %v (%T), want %T, in a *DecodeError only if not JSON", err, err, tc.cause)
			}
		})
	}
	// A 202 whose body is not JSON: a *DecodeError naming the call, never a
	// success with a nil JSON202.
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 202, http.Header{"Content-Type": {"application/json"}}, "accepted"), nil
	}}
	r, err := Check(fakeClient(t, f).StorageAttachWithResponse(bg, attachBody))
	var de *DecodeError
	if !errors.As(err, &de) || de.StatusCode != 202 || de.Method != "POST" || de.Path != "/storage/attach" || string(de.Body) != "accepted" {
		t.Errorf("attach 202 not JSON: %v, err %v (%+v); want a *DecodeError with status, method, path and body", r, err, de)
	}
	// The parsers look for "json" case-sensitively: a valid body under a
	// media type in another case is decoded all the same, because the
	// doer lower-cases the media type (not its parameters) first.
	for _, ctype := range []string{"Application/JSON", "APPLICATION/JSON; charset=UTF-8"} {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 200, http.Header{"Content-Type": {ctype}}, `{"request_id":"r-1","status":"COMPLETED"}`), nil
		}}
		r, err := Check(fakeClient(t, f).GetRequestInfoWithResponse(bg, "r-1"))
		if err != nil || r.JSON200 == nil || r.JSON200.Status != "COMPLETED" {
			t.Errorf("%q: JSON200 = %v, err = %v; want it decoded", ctype, r.JSON200, err)
		} else if got, want := r.HTTPResponse.Header.Get("Content-Type"), strings.ToLower(ctype[:16])+ctype[16:]; got != want {
			t.Errorf("%q: Content-Type %q, want %q", ctype, got, want)
		}
	}
	// The parser's errors Check wraps, spec types to come (time.Time) included.
	for _, cause := range []error{&json.SyntaxError{}, &json.UnmarshalTypeError{}, &time.ParseError{}} {
		if _, err := Check[*gen.GetRequestInfoResponse](nil, cause); !errors.As(err, new(*DecodeError)) || !errors.Is(err, cause) {
			t.Errorf("Check(nil, %T) = %v", cause, err)
		}
	}
}

// TestCheckIsStrict: Check succeeds only for a success status the spec
// declares for the operation whose typed body decoded. Any other 2xx is a
// *DecodeError with status, method, path and body; the status the spec
// declares is read from the generated response type (its JSONnnn fields).
func TestCheckIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		ctype, body string
		call        func(c *gen.ClientWithResponses) error
	}{
		{"attach 200", 200, "application/json", attachOK, func(c *gen.ClientWithResponses) error {
			_, err := Check(c.StorageAttachWithResponse(bg, attachBody))
			return err
		}},
		{"attach 202 not JSON", 202, "text/html", "<p>accepted</p>", func(c *gen.ClientWithResponses) error {
			_, err := Check(c.StorageAttachWithResponse(bg, attachBody))
			return err
		}},
		{"destroy 204", 204, "", "", func(c *gen.ClientWithResponses) error {
			_, err := Check(c.StorageDestroyWithResponse(bg, "s-1"))
			return err
		}},
		{"destroy 200", 200, "application/json", destroyOK, func(c *gen.ClientWithResponses) error {
			_, err := Check(c.StorageDestroyWithResponse(bg, "s-1"))
			return err
		}},
		{"info 202", 202, "application/json", infoOK, func(c *gen.ClientWithResponses) error {
			_, err := Check(c.GetRequestInfoWithResponse(bg, "r-1"))
			return err
		}},
		{"info 200 text/html", 200, "text/html", "<html>", func(c *gen.ClientWithResponses) error {
			_, err := Check(c.GetRequestInfoWithResponse(bg, "r-1"))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
				return reply(r, tc.status, http.Header{"Content-Type": {tc.ctype}}, tc.body), nil
			}}
			err := tc.call(fakeClient(t, f))
			var de *DecodeError
			if !errors.As(err, &de) || de.StatusCode != tc.status ||
				de.Method != f.get(0).method || de.Path != f.get(0).path || string(de.Body) != tc.body {
				t.Fatalf("err %v (%+v), want a *DecodeError with status, method, path and body", err, de)
			}
		})
	}
}

// htmlPageResponse is what oapi-codegen generates for an operation whose
// only success is a text/html page (FastAPI serves such pages): no typed
// body field.
type htmlPageResponse struct {
	Body         []byte
	HTTPResponse *http.Response
}

func (r htmlPageResponse) StatusCode() int { return r.HTTPResponse.StatusCode }
func (r htmlPageResponse) GetBody() []byte { return r.Body }

// TestCheckAcceptsANonJSONOperation: an operation that declares no JSON
// success has no typed body to check, so its 2xx is a success with the body
// as is, while its non-2xx is still an *APIError; the JSON operations stay
// strict (TestCheckIsStrict).
func TestCheckAcceptsANonJSONOperation(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "/reset-password-page", nil)
	page := htmlPageResponse{Body: []byte("<p>sent</p>"), HTTPResponse: &http.Response{StatusCode: 200, Header: http.Header{}, Request: req}}
	if got, err := Check(page, nil); err != nil || string(got.Body) != "<p>sent</p>" {
		t.Fatalf("Check(200 text/html) = %q, %v; want the page and no error", got.Body, err)
	}
	page.HTTPResponse = &http.Response{StatusCode: 404, Header: http.Header{}, Request: req}
	var apiErr *APIError
	if _, err := Check(page, nil); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Fatalf("Check(404 text/html) = %v, want an *APIError with status 404", err)
	}
}

// TestHugeErrorBodyKeepsStatus: a non-2xx body past the cap is cut there
// and reported as an *APIError marked Truncated, its status intact; a 2xx
// past the cap is a *DecodeError with its status, wrapping ErrResponseTooLarge.
func TestHugeErrorBodyKeepsStatus(t *testing.T) {
	const limit = 64 << 10
	html := "<html>" + strings.Repeat("x", 100<<10) + "</html>"
	for _, tc := range []struct {
		name      string
		status    int
		announced bool
		method    string
		attempts  int
	}{
		{"POST 502 chunked", 502, false, "POST", 1},
		{"POST 502 announced", 502, true, "POST", 1},
		{"GET 503 retried", 503, false, "GET", 4},
		{"DELETE 422", 422, true, "DELETE", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				if tc.status == 422 {
					w.Header().Set("Content-Type", "application/json")
				}
				if tc.announced {
					w.Header().Set("Content-Length", itoa(len(html)))
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, html)
			})
			got, err := send(bg, t, serverClient(t, s, WithMaxResponseBytes(limit)), tc.method)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || got != tc.status || !apiErr.Truncated || len(apiErr.Body) != maxErrorBody {
				t.Fatalf("err %v (%T), want an *APIError %d marked truncated", err, err, tc.status)
			}
			if s.n() != tc.attempts {
				t.Errorf("%d attempts, want %d", s.n(), tc.attempts)
			}
		})
	}
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { jsonReply(w, 202, `{"x":"`+html+`"}`) })
	_, err := serverClient(t, s, WithMaxResponseBytes(limit)).StorageAttachWithResponse(bg, attachBody)
	var tooLarge *DecodeError
	if !errors.As(err, &tooLarge) || !errors.Is(err, ErrResponseTooLarge) || tooLarge.StatusCode != 202 || tooLarge.Method != "POST" {
		t.Errorf("err %v, want a *DecodeError wrapping ErrResponseTooLarge for the 202", err)
	}
	if e := newAPIError(&http.Response{StatusCode: 500, Header: http.Header{}}, nil, nil, false); e.Truncated {
		t.Error("a response of unknown origin marked truncated")
	}
}

package tensorpool

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/operations"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// send makes one call of the given method through c: GET request info,
// POST storage attach, DELETE storage; other methods through a raw request.
func send(ctx context.Context, t *testing.T, c *gen.ClientWithResponses, method string) (status int, err error) {
	t.Helper()
	defer func() { noKey(t, method+" error", err) }()
	switch method {
	case http.MethodGet:
		r, err := Check(c.GetRequestInfoWithResponse(ctx, "r-1"))
		return code(r, err)
	case http.MethodPost:
		r, err := Check(c.StorageAttachWithResponse(ctx, attachBody))
		return code(r, err)
	case http.MethodDelete:
		r, err := Check(c.StorageDestroyWithResponse(ctx, "s-1"))
		return code(r, err)
	}
	thing := &operations.Operation{Method: method, Path: "/thing", OtherSuccess: operations.SuccessNoJSON} // a method the spec lacks
	req, err := http.NewRequestWithContext(ctx, method, "https://engine.test/thing", strings.NewReader(`{"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := doerOf(c).do(thing, req)
	if err != nil {
		return code[*gen.GetRequestInfoResponse](nil, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func code[R Response](r R, err error) (int, error) {
	var e *APIError
	if errors.As(err, &e) {
		return e.StatusCode, err
	}
	if err != nil {
		return 0, err
	}
	return r.StatusCode(), nil
}

func okBody(method string) string {
	switch method {
	case http.MethodGet:
		return infoOK
	case http.MethodPost:
		return attachOK
	case http.MethodDelete:
		return destroyOK
	}
	return `{}`
}

func okStatus(method string) int {
	if method == http.MethodPost || method == http.MethodDelete {
		return http.StatusAccepted
	}
	return http.StatusOK
}

// TestRetryByMethodAndStatus is the retry table of the package
// documentation, status by status and method by method: each case answers
// the status on every attempt and counts the attempts.
func TestRetryByMethodAndStatus(t *testing.T) {
	all := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete, http.MethodPut, http.MethodPatch}
	safe := []string{http.MethodGet, http.MethodHead}
	retried := map[int][]string{429: all, 408: safe, 425: safe, 500: safe, 502: safe, 503: safe, 504: safe}
	for _, status := range []int{400, 401, 403, 404, 408, 409, 422, 425, 429, 500, 501, 502, 503, 504} {
		for _, method := range all {
			want := 1
			for _, m := range retried[status] {
				if m == method {
					want = 4 // DefaultRetryPolicy: 3 retries
				}
			}
			t.Run(http.StatusText(status)+"/"+method, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
						return reply(r, status, nil, `{"detail":"no"}`), nil
					}}
					c := fakeClient(t, f)
					got, err := send(bg, t, c, method)
					if got != status {
						t.Fatalf("status %d, err %v; want %d", got, err, status)
					}
					if f.n() != want {
						t.Errorf("%d attempts, want %d", f.n(), want)
					}
				})
			})
		}
	}
}

// TestRetrySucceedsAndReplaysBody: a POST refused with 429 is sent again
// with the same body, and the second answer is returned.
func TestRetrySucceedsAndReplaysBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
			if n == 1 {
				return reply(r, 429, http.Header{"Retry-After": {"7"}}, `{"detail":"slow down"}`), nil
			}
			return reply(r, 202, nil, attachOK), nil
		}}
		c := fakeClient(t, f)
		resp, err := Check(c.StorageAttachWithResponse(bg, attachBody))
		if err != nil {
			t.Fatal(err)
		}
		if resp.JSON202 == nil || resp.JSON202.RequestIDs[0] != "r-1" {
			t.Fatalf("bad body %s", resp.Body)
		}
		if f.n() != 2 {
			t.Fatalf("%d attempts", f.n())
		}
		a, b := f.get(0), f.get(1)
		if a.body == "" || a.body != b.body {
			t.Errorf("body not replayed: %q then %q", a.body, b.body)
		}
		if d := b.at.Sub(a.at); d != 7*time.Second {
			t.Errorf("waited %v, want Retry-After's 7s", d)
		}
		if b.auth != "Bearer "+testKey {
			t.Errorf("retry lost the Authorization header")
		}
	})
}

func TestRetryAfterHTTPDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
			if n == 1 {
				h := http.Header{"Retry-After": {time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)}}
				return reply(r, 503, h, ""), nil
			}
			return reply(r, 200, nil, infoOK), nil
		}}
		c := fakeClient(t, f)
		start := time.Now()
		if _, err := Check(c.GetRequestInfoWithResponse(bg, "r-1")); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("took %v, want 10s", d)
		}
	})
}

// TestBackoffWithoutRetryAfter checks the waits stay within the documented
// bounds: [d/2, d] for d = 0.5 s, 1 s, 2 s.
func TestBackoffWithoutRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 502, nil, ""), nil
		}}
		c := fakeClient(t, f)
		_, err := Check(c.GetRequestInfoWithResponse(bg, "r-1"))
		if !IsStatus(err, 500, 502, 503, 504) {
			t.Fatalf("err %v", err)
		}
		if f.n() != 4 {
			t.Fatalf("%d attempts", f.n())
		}
		d := 500 * time.Millisecond
		for i := 1; i < 4; i++ {
			wait := f.get(i).at.Sub(f.get(i - 1).at)
			if wait < d/2 || wait > d {
				t.Errorf("wait %d = %v, want in [%v, %v]", i, wait, d/2, d)
			}
			d *= 2
		}
	})
}

// TestRetryAfterTooLong: a Retry-After beyond MaxRetryAfter is not waited
// for; the caller gets the 429 with its RetryAfter at once.
func TestRetryAfterTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 429, http.Header{"Retry-After": {"3600"}}, `{"detail":"quota"}`), nil
		}}
		c := fakeClient(t, f)
		start := time.Now()
		_, err := Check(c.StorageAttachWithResponse(bg, attachBody))
		var e *APIError
		if !errors.As(err, &e) || !IsStatus(err, http.StatusTooManyRequests) || e.RetryAfter != time.Hour {
			t.Fatalf("err %#v", err)
		}
		if f.n() != 1 || time.Since(start) != 0 {
			t.Errorf("%d attempts over %v", f.n(), time.Since(start))
		}
	})
}

// TestRetryStopsAtDeadline: no wait starts that would end after the call's
// deadline (WithTimeout here); the last response is returned instead.
func TestRetryStopsAtDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 429, http.Header{"Retry-After": {"4"}}, ""), nil
		}}
		c := fakeClient(t, f, WithTimeout(10*time.Second))
		start := time.Now()
		_, err := Check(c.GetRequestInfoWithResponse(bg, "r-1"))
		if !IsStatus(err, http.StatusTooManyRequests) {
			t.Fatalf("err %v", err)
		}
		// attempts at 0 s and 4 s; 8 s + 4 s would pass the 10 s deadline
		if f.n() != 3 || time.Since(start) != 8*time.Second {
			t.Errorf("%d attempts over %v, want 3 over 8s", f.n(), time.Since(start))
		}
	})
}

func TestRetryHonoursContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			return reply(r, 503, http.Header{"Retry-After": {"20"}}, ""), nil
		}}
		c := fakeClient(t, f, WithTimeout(0))
		ctx, cancel := context.WithCancel(bg)
		go func() {
			time.Sleep(5 * time.Second)
			cancel()
		}()
		start := time.Now()
		_, err := Check(c.GetRequestInfoWithResponse(ctx, "r-1"))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
		if time.Since(start) != 5*time.Second || f.n() != 1 {
			t.Errorf("%d attempts, returned after %v", f.n(), time.Since(start))
		}
		noKey(t, "cancel error", err)
	})
}

// timeoutErr is a net.Error timeout, like http.Transport's
// ResponseHeaderTimeout error.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "timeout awaiting response headers" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestNoRetryOnceContextDone: a response that arrives as the caller's
// context ends is returned as it is: not retried, and not replaced by the
// context's error.
func TestNoRetryOnceContextDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(bg)
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			cancel()
			return reply(r, 503, http.Header{"Retry-After": {"0"}}, `{"detail":"busy"}`), nil
		}}
		_, err := Check(fakeClient(t, f, WithTimeout(0)).GetRequestInfoWithResponse(ctx, "r-1"))
		if !IsStatus(err, 503) || f.n() != 1 {
			t.Errorf("err %v after %d attempts, want the 503 after 1", err, f.n())
		}
	})
}

func dialErr() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "connection refused", Addr: "engine.test:443"}}
}

// TestRetryTransportErrors: which connection failures are retried, by
// method and by whether a connection was obtained (httptrace GotConn).
func TestRetryTransportErrors(t *testing.T) {
	cases := []struct {
		name      string
		method    string
		err       error
		connected bool
		want      int
	}{
		{"GET reset after connect", "GET", syscall.ECONNRESET, true, 4},
		{"GET unexpected EOF", "GET", io.ErrUnexpectedEOF, true, 4},
		{"GET dial", "GET", dialErr(), false, 4},
		{"POST dial before connecting", "POST", dialErr(), false, 4},
		{"DELETE dial before connecting", "DELETE", dialErr(), false, 4},
		{"POST DNS failure", "POST", &net.DNSError{Err: "no such host", Name: "engine.test", IsTemporary: true}, false, 4},
		{"POST reset after connect", "POST", syscall.ECONNRESET, true, 1},
		{"POST EOF after connect", "POST", io.EOF, true, 1},
		{"POST non-dial error without GotConn", "POST", errors.New("custom transport failed"), false, 1},
		{"DELETE reset after connect", "DELETE", syscall.ECONNRESET, true, 1},
		{"GET bad certificate", "GET", x509.UnknownAuthorityError{}, true, 1},
		{"GET TLS alert", "GET", &net.OpError{Op: "remote error", Err: tls.AlertError(40)}, true, 1},
		{"GET context canceled", "GET", context.Canceled, true, 1},
		{"GET EOF", "GET", io.EOF, true, 4},
		{"GET read error", "GET", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("some socket error")}, true, 4},
		{"GET transport timeout", "GET", timeoutErr{}, true, 4},
		{"GET no such host", "GET", &net.DNSError{Err: "no such host", Name: "engine.test", IsNotFound: true}, false, 1},
		// deterministic local errors fail the same way on every attempt
		{"GET invalid header", "GET", errors.New(`net/http: invalid header field value for "X-Evil"`), false, 1},
		{"GET unsupported scheme", "GET", errors.New(`unsupported protocol scheme "ftp"`), false, 1},
		{"GET custom transport error", "GET", errors.New("custom transport failed"), true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
					return nil, tc.err
				}}
				c := fakeClient(t, f)
				_, err := send(bg, t, c, tc.method)
				if err == nil {
					t.Fatal("no error")
				}
				if !errors.Is(err, tc.err) && tc.err != context.Canceled {
					t.Errorf("error %v does not wrap %v", err, tc.err)
				}
				if f.n() != tc.want {
					t.Errorf("%d attempts, want %d", f.n(), tc.want)
				}
				noKey(t, "transport error", err)
			})
		})
	}
}

// TestRetryctxSendsOnce is how the transport composes with package wait:
// a request whose context is marked by retryctx.Poll is
// sent exactly once whatever happens; an unmarked one is retried.
func TestRetryctxSendsOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp func(r *http.Request) (*http.Response, error)
	}{
		{"503", func(r *http.Request) (*http.Response, error) { return reply(r, 503, nil, ""), nil }},
		{"429", func(r *http.Request) (*http.Response, error) {
			return reply(r, 429, http.Header{"Retry-After": {"1"}}, ""), nil
		}},
		{"dial error", func(r *http.Request) (*http.Response, error) { return nil, dialErr() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return tc.resp(r) }}
				c := fakeClient(t, f)
				_, _ = c.GetRequestInfoWithResponse(retryctx.Poll(bg), "r-1")
				if f.n() != 1 {
					t.Errorf("marked request: %d attempts, want 1", f.n())
				}
				_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
				if f.n() != 1+4 {
					t.Errorf("unmarked request: %d attempts, want 4", f.n()-1)
				}
			})
		})
	}
}

func TestMaxRetries(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		synctest.Test(t, func(t *testing.T) {
			f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 503, nil, ""), nil }}
			p := DefaultRetryPolicy()
			p.MaxRetries = n
			c := fakeClient(t, f, WithRetryPolicy(p), WithTimeout(0))
			_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
			if f.n() != n+1 {
				t.Errorf("MaxRetries %d: %d attempts", n, f.n())
			}
		})
	}
}

// TestUnreplayableBodyNotRetried: a streamed body without GetBody cannot be
// sent twice, so even a 429 is returned as is.
func TestUnreplayableBodyNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 429, nil, ""), nil }}
		c := fakeClient(t, f, WithoutClientValidation())
		body := io.MultiReader(strings.NewReader(`{"storage_id":"s-1","cluster_ids":["c-1"]}`))
		_, err := Check(c.StorageAttachWithBodyWithResponse(bg, "application/json", body))
		if !IsStatus(err, http.StatusTooManyRequests) || f.n() != 1 {
			t.Errorf("err %v after %d attempts", err, f.n())
		}
	})
}

// The transport reads Retry-After with the parser package wait uses: an
// HTTP-date is measured against the response's Date header, and fractions of
// a second are honoured.
func TestAPIErrorRetryAfterUsesSharedParser(t *testing.T) {
	server := time.Now().Add(-3 * time.Hour) // the server's clock is 3 h behind
	for _, tc := range []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {server.Add(40 * time.Second).UTC().Format(http.TimeFormat)},
			"Date": {server.UTC().Format(http.TimeFormat)}}, 40 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
	} {
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Header: tc.header}
		if got := newAPIError(resp, nil, nil, false).RetryAfter; got != tc.want {
			t.Errorf("Retry-After %v: APIError.RetryAfter = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestRetryPolicyValidate(t *testing.T) {
	bad := []RetryPolicy{
		{MaxRetries: -1},
		{MinBackoff: -1},
		{MinBackoff: time.Second, MaxBackoff: time.Millisecond},
		{MaxRetryAfter: -time.Second},
	}
	for _, p := range bad {
		if _, err := NewClient(WithAPIKey(testKey), WithRetryPolicy(p)); err == nil {
			t.Errorf("WithRetryPolicy(%+v) accepted", p)
		}
	}
	if err := DefaultRetryPolicy().validate(); err != nil {
		t.Error(err)
	}
}

func TestBackoffBounds(t *testing.T) {
	p := DefaultRetryPolicy()
	for n := 1; n <= 10; n++ {
		want := min(p.MinBackoff<<(n-1), p.MaxBackoff)
		for range 100 {
			if d := p.backoff(n); d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, want/2, want)
			}
		}
	}
	if d := (RetryPolicy{}).backoff(3); d != 0 {
		t.Errorf("zero policy backoff = %v", d)
	}
	// Doubling never overflows into a negative wait.
	huge := RetryPolicy{MinBackoff: time.Second, MaxBackoff: 1<<63 - 1}
	for n := 1; n <= 100; n++ {
		if d := huge.backoff(n); d < 0 {
			t.Fatalf("backoff(%d) = %v with MaxBackoff %v", n, d, huge.MaxBackoff)
		}
	}
}

// errAfterReader yields its prefix, then fails with err: a body lost after
// the response arrived.
type errAfterReader struct {
	prefix string
	err    error
}

func (r *errAfterReader) Read(p []byte) (int, error) {
	if r.prefix == "" {
		return 0, r.err
	}
	n := copy(p, r.prefix)
	r.prefix = r.prefix[n:]
	return n, nil
}

func (r *errAfterReader) Close() error { return nil }

// TestMutatingRequestNotReplayedAfterItsResponse: a response, even one whose
// body is then lost, proves the request reached the server, so a POST is not
// sent again whatever the read error looks like (here a dial error, from a
// transport that reports no connection through httptrace).
func TestMutatingRequestNotReplayedAfterItsResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
			resp := reply(r, 202, http.Header{"Content-Type": {"application/json"}}, "")
			resp.Body = &errAfterReader{prefix: `{"storage_id":"s-1",`, err: dialErr()}
			return resp, nil
		}}
		c := fakeClient(t, f)
		_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}})
		if err == nil || f.n() != 1 {
			t.Fatalf("POST sent %d times (err %v); want once, with an error", f.n(), err)
		}
	})
}

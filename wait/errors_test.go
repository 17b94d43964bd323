package wait

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
)

// doerFunc is a gen.HttpRequestDoer that is not an *http.Client: its
// answers reach the generated client as they are, errors unwrapped.
type doerFunc func(*http.Request) (*http.Response, error)

func (d doerFunc) Do(req *http.Request) (*http.Response, error) { return d(req) }

// directPoller is a Poller whose generated client calls f.RoundTrip as its
// doer, with no *http.Client in between.
func (f *fake) directPoller(t *testing.T, opts ...Option) *Poller {
	t.Helper()
	c, err := gen.NewClient(testServer, gen.WithHTTPClient(doerFunc(f.RoundTrip)))
	if err != nil {
		t.Fatal(err)
	}
	p := New(c, opts...)
	p.rand = func() float64 { return 0 }
	return p
}

func TestBrokenClientFailsAtOnce(t *testing.T) {
	for name, r := range map[string]reply{
		"nil response":       {noResp: true},
		"200 with nil Body":  {status: gen.RequestStatusPROCESSING, noBody: true},
		"503 with nil Body":  {code: 503, noBody: true},
		"404 with nil Body":  {code: 404, noBody: true},
		"nil Body, hint set": {code: 429, retryAfter: "1", noBody: true},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake().on("r", r, completed)
				start := time.Now()
				_, err := f.directPoller(t).Wait(t.Context(), "r")
				if !errors.Is(err, ErrBrokenClient) || !strings.Contains(err.Error(), `"r"`) {
					t.Fatalf("err = %v; want ErrBrokenClient naming the id", err)
				}
				if n, el := len(f.allCalls()), time.Since(start); n != 1 || el != 0 {
					t.Errorf("%d requests over %v; want 1, at once", n, el)
				}
			})
		})
	}
}

func TestPermanentClientErrorsFailAtOnce(t *testing.T) {
	editorErr := errors.New("request editor: no credentials")
	for _, tc := range []struct {
		name   string
		client func(f *fake) (Client, error)
		want   func(error) bool
	}{
		{"unknown authority", viaHTTP(x509.UnknownAuthorityError{}), as[x509.UnknownAuthorityError]},
		{"certificate invalid", viaHTTP(x509.CertificateInvalidError{Reason: x509.Expired}), as[x509.CertificateInvalidError]},
		{"hostname", viaHTTP(x509.HostnameError{Certificate: &x509.Certificate{}, Host: "engine.test"}), as[x509.HostnameError]},
		{"TLS record header", viaHTTP(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), as[tls.RecordHeaderError]},
		{"certificate verification", viaHTTP(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), as[*tls.CertificateVerificationError]},
		{"invalid request", viaHTTP(fmt.Errorf("x: %w", tensorpool.ErrInvalidRequest)), is(tensorpool.ErrInvalidRequest)},
		{"request editor", func(f *fake) (Client, error) {
			return gen.NewClient(testServer, gen.WithHTTPClient(&http.Client{Transport: f}),
				gen.WithRequestEditorFn(func(context.Context, *http.Request) error { return editorErr }))
		}, is(editorErr)},
		{"unsupported scheme", func(*fake) (Client, error) {
			return gen.NewClient("ftp://engine.test/", gen.WithHTTPClient(&http.Client{Transport: &http.Transport{}}))
		}, func(err error) bool { return strings.Contains(err.Error(), "unsupported protocol scheme") }},
		{"TLS alert", viaHTTP(&net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")}), as[*net.OpError]},
		{"TLS alert (QUIC)", viaHTTP(tls.AlertError(116)), as[tls.AlertError]},
		{"custom transport error", viaHTTP(errCustom), is(errCustom)},
		{"200 past the tensorpool cap", viaHTTP(&tensorpool.DecodeError{Err: tensorpool.ErrResponseTooLarge}), is(tensorpool.ErrResponseTooLarge)},
		{"NewClient: TLS alert", viaNewClient(&net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")}), as[*net.OpError]},
		{"NewClient: custom transport error", viaNewClient(errCustom), is(errCustom)},
		{"NewClient: redirect loop", viaNewClient(errors.New("stopped after 10 redirects")), func(err error) bool { return strings.Contains(err.Error(), "stopped after 10 redirects") }},
		{"unparseable server URL", func(*fake) (Client, error) {
			return gen.NewClient("http://[::1", gen.WithHTTPClient(&http.Client{Transport: &http.Transport{}}))
		}, func(err error) bool { return strings.Contains(err.Error(), "parse") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake()
				c, err := tc.client(f)
				if err != nil {
					t.Fatal(err)
				}
				var ups []Update
				p := New(c, WithProgress(func(u Update) { ups = append(ups, u) }))
				start := time.Now()
				_, err = p.Wait(t.Context(), "r")
				var we *Error
				if err == nil || !tc.want(err) || errors.Is(err, ErrTooManyFailures) || !errors.As(err, &we) || we.RequestID != "r" {
					t.Fatalf("err = %v; want the cause, wrapped with the id, not transient", err)
				}
				if el := time.Since(start); el != 0 || len(ups) != 1 || len(f.allCalls()) > 1 {
					t.Errorf("gave up after %v, %d polls, %d requests; want at once, after one poll", el, len(ups), len(f.allCalls()))
				}
			})
		})
	}
}

func TestNetworkErrorsStayTransient(t *testing.T) {
	// Each error is returned bare (a custom doer), as net/http wraps it
	// (*url.Error), and through NewClient: the wrapping must change nothing.
	pollers := func(t *testing.T, err error) []*Poller {
		return []*Poller{newFake().on("r", reply{err: err}).directPoller(t, WithMaxFailures(3)),
			newFake().on("r", reply{err: err}).poller(t, 0, WithMaxFailures(3)),
			newFake().on("r", reply{err: err}).newClientPoller(t, WithMaxFailures(3))}
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"unexpected EOF", io.ErrUnexpectedEOF},
		{"EOF", io.EOF},
		{"reset", syscall.ECONNRESET},
		{"op error", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}},
		{"DNS", &net.DNSError{Err: "no such host", Name: "engine.test", IsTemporary: true}},
		{"timeout", fmt.Errorf("read: %w", &net.OpError{Op: "read", Err: syscall.ETIMEDOUT})},
		{"malformed 200", &tensorpool.DecodeError{StatusCode: 200, Err: io.ErrUnexpectedEOF}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				for i, p := range pollers(t, tc.err) {
					_, err := p.Wait(t.Context(), "r")
					if !errors.Is(err, ErrTooManyFailures) || !strings.Contains(err.Error(), "(3 in a row)") || !errors.Is(err, tc.err) {
						t.Errorf("poller %d: err = %v; want ErrTooManyFailures after 3 failures wrapping %v", i, err, tc.err)
					}
				}
			})
		})
	}
	// Errors that would recur end the wait at once, however they arrive.
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"custom error", errCustom},
		{"no such host", &net.DNSError{Err: "no such host", Name: "engine.test", IsNotFound: true}},
		{"TLS alert", &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}},
		{"cancelled below", fmt.Errorf("upstream: %w", context.Canceled)},
		{"body too large", &tensorpool.DecodeError{Err: tensorpool.ErrResponseTooLarge}},
	} {
		t.Run("not "+tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				for i, p := range pollers(t, tc.err) {
					_, err := p.Wait(t.Context(), "r")
					if err == nil || errors.Is(err, ErrTooManyFailures) || !errors.Is(err, tc.err) {
						t.Errorf("poller %d: err = %v; want %v at once, not ErrTooManyFailures", i, err, tc.err)
					}
				}
			})
		})
	}
}

var errCustom = errors.New("custom transport: no route to the vault")

// viaNewClient polls through tensorpool.NewClient over f, which fails once
// with err.
func viaNewClient(err error) func(f *fake) (Client, error) {
	return func(f *fake) (Client, error) {
		f.on("r", reply{err: err}, completed)
		return tensorpool.NewClient(tensorpool.WithAPIKey("tp-test"), tensorpool.WithBaseURL(testServer),
			tensorpool.WithHTTPClient(&http.Client{Transport: f}))
	}
}

func viaHTTP(err error) func(f *fake) (Client, error) {
	return func(f *fake) (Client, error) {
		f.on("r", reply{err: err}, completed)
		return gen.NewClient(testServer, gen.WithHTTPClient(&http.Client{Transport: f}))
	}
}

func as[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

func TestErrorNilSafe(t *testing.T) {
	for _, err := range []*Error{{}, nil, {Err: ErrFailed}, {Err: ErrUnknownStatus}, {Info: &gen.RequestInfoResponse{}, Err: ErrFailed}} {
		if msg := err.Error(); !strings.HasPrefix(msg, "wait: ") {
			t.Errorf("%#v.Error() = %q", err, msg)
		}
	}
	if errs := (*Error)(nil).Unwrap(); errs != nil {
		t.Errorf("Unwrap of a nil *Error = %v", errs)
	}
	if !errors.Is(&Error{Err: ErrFailed}, ErrFailed) || !errors.Is(&Error{Err: ErrUnknownStatus}, ErrUnknownStatus) {
		t.Error("errors no longer match their causes")
	}
}

// TestServerTextCleanedAndCapped: whatever text the server sends (ESC,
// newlines, 900 KB strings), in the request info, a header or an error
// body, every error and Update of this package holds it on one line,
// escaped, each field capped at about 1 KiB; a raw gen client included.
func TestServerTextCleanedAndCapped(t *testing.T) {
	huge := strings.Repeat("x", 900<<10)
	nasty := "\x1b[31mred\nfake log line " + huge
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	info := func(id, typ, status, msg string) string {
		return `{"request_id":` + js(id) + `,"request_type":` + js(typ) + `,"status":` + js(status) +
			`,"created_at":"","external_message":` + js(msg) + `}`
	}
	for _, tc := range []struct {
		name string
		r    reply
		opts []Option
	}{
		{"failed", reply{body: info("r", "ST\x1bA\n"+huge, "FAILED", nasty)}, nil},
		{"unknown status", reply{body: info("r", "X", "NE\nW"+huge, nasty)}, nil},
		{"running, then ctx ends", reply{body: info("r", "X", "PEND\x1bING"+huge, nasty)}, []Option{WithUnknownStatusAsRunning()}},
		{"wrong request", reply{body: info("r\x1b"+huge, "X", "PENDING", nasty)}, []Option{WithMaxFailures(2)}},
		{"content type", reply{ctype: "text/html\x1b" + huge, body: "<html>"}, []Option{WithMaxFailures(2)}},
		{"error body", reply{code: 400, body: `{"detail":` + js(nasty) + `}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var texts []string
				opts := append(tc.opts, WithProgress(func(u Update) {
					texts = append(texts, u.Message, fmt.Sprint(u.Err))
				}))
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				_, err := newFake().on("r", tc.r).poller(t, 0, opts...).Wait(ctx, "r")
				if err == nil {
					t.Fatal("no error")
				}
				for _, s := range append(texts, err.Error()) {
					if bad := strings.ContainsAny(s, "\x1b\n\r"); bad || len(s) > 4<<10 {
						t.Errorf("%d bytes, raw control characters %t: %.300q", len(s), bad, s)
					}
				}
				if !strings.Contains(err.Error(), `\x1b`) && !strings.Contains(err.Error(), `\n`) && tc.name != "error body" {
					t.Errorf("server text not in the error, escaped: %.300q", err.Error())
				}
			})
		})
	}
}

// TestEchoedKeyNotInErrorsThroughNewClient: through tensorpool.NewClient, a
// server echoing the API key in an error body does not put it in wait's
// error or Updates: the answer goes through tensorpool.Check, whose
// APIError scrubs it. (A 200's body is data: TestUpdateIsData.)
func TestEchoedKeyNotInErrorsThroughNewClient(t *testing.T) {
	for _, code := range []int{400, 502, 503} {
		synctest.Test(t, func(t *testing.T) {
			r := reply{code: code, body: `{"detail":"bad key tp-test\n\u001b[2J"}`}
			var seen strings.Builder
			p := newFake().on("r", r).newClientPoller(t, WithMaxFailures(2),
				WithProgress(func(u Update) { fmt.Fprintf(&seen, "%s %v\n", u.Message, u.Err) }))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a 503 never counts as a failure
			defer cancel()
			_, err := p.Wait(ctx, "r")
			fmt.Fprintf(&seen, "%v", err)
			if err == nil || strings.Contains(seen.String(), "tp-test") || strings.ContainsAny(seen.String(), "\x1b") {
				t.Errorf("%d: the key or a raw ESC leaked (or no error): %q", code, seen.String())
			}
		})
	}
}

// TestUpdateIsData: through tensorpool.NewClient, a successful answer's
// external_message reaches Update.Message and the returned info as the
// server sent it, even where it ends with the start of the key (the key
// here is "tp-test"); only the error texts are diagnostics.
func TestUpdateIsData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const msg = "mounted at /mnt/tp-te"
		var got []string
		p := newFake().on("r", reply{status: gen.RequestStatusPROCESSING, msg: msg, retryAfter: "1"},
			reply{status: gen.RequestStatusCOMPLETED, msg: msg}).newClientPoller(t,
			WithProgress(func(u Update) { got = append(got, u.Message) }))
		info, err := p.Wait(t.Context(), "r")
		if err != nil || info.ExternalMessage == nil || *info.ExternalMessage != msg {
			t.Fatalf("info %+v, err %v; want COMPLETED with the message as sent", info, err)
		}
		if len(got) != 2 || got[0] != msg || got[1] != msg {
			t.Errorf("Update.Message = %q; want %q twice", got, msg)
		}
	})
}

// TestWrongBaseURLFailsInBoundedTime: a connection refused from the first
// poll (a wrong base URL, a server that is not there) is a transient
// failure, not pressure: the wait ends after WithMaxFailures of them, in
// seconds, with the cause.
func TestWrongBaseURLFailsInBoundedTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", reply{err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}})
		start := time.Now()
		_, err := f.poller(t, 0).Wait(t.Context(), "r")
		if !errors.Is(err, ErrTooManyFailures) || !errors.Is(err, syscall.ECONNREFUSED) || time.Since(start) > 20*time.Second {
			t.Errorf("err = %v after %v; want ErrTooManyFailures wrapping ECONNREFUSED within 20 s", err, time.Since(start))
		}
	})
}

// TestPressureNeverCountsAsFailure: 429s and 503s, with Retry-After or
// without, never end a wait, however many: only ctx does, and its error
// names the last answer; the first other answer goes on as usual.
func TestPressureNeverCountsAsFailure(t *testing.T) {
	for _, r := range []reply{httpErr(429, "1"), httpErr(503, "2"), httpErr(503, ""), httpErr(429, "")} {
		synctest.Test(t, func(t *testing.T) {
			f := newFake().on("r", seq(repeat(40, r), completed)...)
			info, err := f.poller(t, 0).Wait(t.Context(), "r")
			if err != nil || info.Status != gen.RequestStatusCOMPLETED {
				t.Errorf("%d %q: %v, %v after %d polls; want COMPLETED after 41", r.code, r.retryAfter, info, err, len(f.allCalls()))
			}
			f = newFake().on("r", r)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			_, err = f.poller(t, 0).Wait(ctx, "r")
			if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTooManyFailures) || !tensorpool.IsStatus(err, r.code) {
				t.Errorf("%d %q for 3 minutes: err = %v; want DeadlineExceeded naming the last %d", r.code, r.retryAfter, err, r.code)
			}
		})
	}
}

// TestStatusIsAuthoritative: a 4xx other than 404 in its grace, 408, 425
// and 429 ends the wait at once, whether or not its body decodes, with a
// raw gen client too (whose parser fails on a 422 that is not FastAPI's
// shape).
func TestStatusIsAuthoritative(t *testing.T) {
	for _, r := range []reply{
		{code: 422, body: `{"detail":"request id malformed"}`},
		{code: 422, body: `not json at all`},
		{code: 400, body: `{"detail":`},
		{code: 409, ctype: "text/html", body: "<html>"},
	} {
		synctest.Test(t, func(t *testing.T) {
			for i, p := range []*Poller{newFake().on("r", r).directPoller(t), newFake().on("r", r).poller(t, 0), newFake().on("r", r).newClientPoller(t)} {
				start := time.Now()
				_, err := p.Wait(t.Context(), "r")
				if !tensorpool.IsStatus(err, r.code) || errors.Is(err, ErrTooManyFailures) || time.Since(start) != 0 {
					t.Errorf("poller %d, %d %q: err = %v after %v; want the %d at once", i, r.code, r.body, err, time.Since(start), r.code)
				}
			}
		})
	}
}

// TestEveryEndIsAnErrorWithItsID: every way the wait for one id can end
// without COMPLETED gives an *Error carrying that id, through Wait and
// through WaitAll's joined error, which walks to one *Error per id.
func TestEveryEndIsAnErrorWithItsID(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script []reply
		opts   []Option
		ctx    func(context.Context) (context.Context, context.CancelFunc)
		cause  error
	}{
		{name: "FAILED", script: []reply{{status: gen.RequestStatusFAILED, msg: "boom"}}, cause: ErrFailed},
		{name: "unknown status", script: []reply{status("EXPLODED")}, cause: ErrUnknownStatus},
		{name: "transient give-up", script: []reply{httpErr(502, "")}, opts: []Option{WithMaxFailures(2)}, cause: ErrTooManyFailures},
		{name: "timeout", script: []reply{running("5")}, cause: context.DeadlineExceeded,
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, time.Minute)
			}},
		{name: "cancel", script: []reply{running("5")}, cause: context.Canceled,
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(ctx)
				time.AfterFunc(time.Minute, cancel)
				return ctx, cancel
			}},
		{name: "API error", script: []reply{httpErr(403, "")}, cause: new(tensorpool.APIError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := func() context.Context {
					if tc.ctx == nil {
						return t.Context()
					}
					ctx, cancel := tc.ctx(t.Context())
					t.Cleanup(cancel)
					return ctx
				}
				f := newFake().on("r-1", tc.script...).on("r-2", completed)
				_, err := f.poller(t, 0, tc.opts...).Wait(ctx(), "r-1")
				checkIDError(t, "Wait", err, "r-1", tc.cause)
				_, err = f.poller(t, 0, tc.opts...).WaitAll(ctx(), "r-2", "r-1")
				errs, _ := err.(interface{ Unwrap() []error })
				if errs == nil || len(errs.Unwrap()) != 1 {
					t.Fatalf("WaitAll: %v; want one joined error, for r-1", err)
				}
				checkIDError(t, "WaitAll", errs.Unwrap()[0], "r-1", tc.cause)
			})
		})
	}
	t.Run("invalid id", func(t *testing.T) {
		_, err := newFake().poller(t, 0).Wait(t.Context(), "a/b")
		checkIDError(t, "Wait", err, "a/b", ErrInvalidRequestID)
		_, err = newFake().poller(t, 0).WaitAll(t.Context(), "ok", "a/b")
		checkIDError(t, "WaitAll", err, "a/b", ErrInvalidRequestID)
	})
	t.Run("stopped by WithFailFast", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFake().on("slow", running("600")).on("bad", running("1"), status(gen.RequestStatusFAILED))
			_, err := f.poller(t, 0, WithFailFast()).WaitAll(t.Context(), "slow", "bad")
			errs := err.(interface{ Unwrap() []error }).Unwrap()
			if len(errs) != 2 {
				t.Fatalf("%v; want two joined errors", err)
			}
			checkIDError(t, "WaitAll", errs[0], "slow", ErrStopped)
			checkIDError(t, "WaitAll", errs[1], "bad", ErrFailed)
		})
	})
}

// checkIDError fails t unless err is an *Error for id whose cause is cause
// (a sentinel for errors.Is, or a pointer to an error type for errors.As).
func checkIDError(t *testing.T, call string, err error, id string, cause error) {
	t.Helper()
	var we *Error
	if !errors.As(err, &we) || we.RequestID != id {
		t.Errorf("%s: err = %v; want an *Error for %q", call, err, id)
		return
	}
	var apiErr *tensorpool.APIError
	if _, isType := cause.(*tensorpool.APIError); isType && !errors.As(err, &apiErr) || !isType && !errors.Is(err, cause) {
		t.Errorf("%s: err = %v; want it to wrap %v", call, err, cause)
	}
}

package tensorpooltest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
)

// TB is the part of testing.TB the test constructors use. *testing.T,
// *testing.B and *testing.F satisfy it; package tensorpooltest itself does
// not import testing.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// InProcessURL is the base URL of an in-process Server. Nothing listens
// there: the engine answers through its RoundTrip method, whatever the host.
const InProcessURL = "http://engine.tensorpool.test"

// Server is an engine wired to ready clients, for one test.
type Server struct {
	// Engine is the engine the clients talk to: seed it, script faults and
	// lifecycles, and inspect its state through it.
	Engine *Engine
	// URL is the base URL of the engine: an httptest loopback URL, or
	// InProcessURL.
	URL string
	// Client is the production client, tensorpool.NewClient with the
	// engine's API key and URL: the retries, client-side validation,
	// errors and redaction your program gets. Pass it to your code. It
	// absorbs up to 3 retryable answers in a row (a 429, say): see
	// Engine.InjectFault.
	Client *gen.ClientWithResponses
	// RawClient is a bare generated client for URL that adds the engine's
	// API key and nothing else (no retries, no validation), to see the
	// engine's raw answers: a 429 as sent, a request the spec forbids.
	RawClient *gen.ClientWithResponses
	// HTTPClient is the HTTP client under both clients: the engine itself
	// in-process, or the httptest server's client.
	HTTPClient *http.Client
}

// NewServer starts an engine on a loopback httptest server and returns it
// with its clients. Responses that violate the OpenAPI document fail the test
// (t.Errorf) until it ends; the server is closed when it ends.
//
// Inside a testing/synctest bubble, use NewInProcessServer: sockets are not
// durably blocking, so fake time cannot advance while a request is in flight.
func NewServer(t TB, opts ...Option) *Server {
	t.Helper()
	e := New(append([]Option{violationsFail(t)}, opts...)...)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return newServer(t, e, srv.URL, srv.Client())
}

// NewInProcessServer is NewServer without a socket: the clients' transport
// is the engine itself, so it works inside a testing/synctest bubble, where
// Retry-After waits, retries and request lifecycles run in fake time.
func NewInProcessServer(t TB, opts ...Option) *Server {
	t.Helper()
	e := New(append([]Option{violationsFail(t)}, opts...)...)
	// Plain http to a name that is not loopback: nothing leaves the process.
	return newServer(t, e, InProcessURL, e.HTTPClient(), tensorpool.WithInsecureHTTP())
}

// violationsFail reports violations with t.Errorf until the test's cleanups
// are done (NewServer's cleanup waits for requests in flight, whose
// violations are still reported). Later ones, from a request that outlives
// the test, are only kept (Engine.Violations): testing panics on a report
// after the test completed.
func violationsFail(t TB) Option {
	var mu sync.Mutex
	done := false
	t.Cleanup(func() { // registered first, so it runs last
		mu.Lock()
		defer mu.Unlock()
		done = true
	})
	return WithViolationHandler(func(v Violation) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			t.Errorf("%v", v)
		}
	})
}

func newServer(t TB, e *Engine, url string, hc *http.Client, opts ...tensorpool.Option) *Server {
	t.Helper()
	key := e.APIKey()
	c, err := tensorpool.NewClient(append(opts, tensorpool.WithAPIKey(key), tensorpool.WithBaseURL(url), tensorpool.WithHTTPClient(hc))...)
	if err != nil { // a key WithAPIKey allows but NewClient refuses; the error never shows it
		t.Fatalf("tensorpooltest: %v", err)
	}
	raw, _ := gen.NewClientWithResponses(url, gen.WithHTTPClient(hc), // NewClient parsed url
		gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	return &Server{Engine: e, URL: url, Client: c, RawClient: raw, HTTPClient: hc}
}

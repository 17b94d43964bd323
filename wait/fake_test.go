package wait

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// reply is one scripted answer of the fake engine.
type reply struct {
	code       int               // HTTP status; 0 means 200
	status     gen.RequestStatus // for a 200 without body
	msg        string            // external_message
	retryAfter string            // Retry-After header; "" for none
	date       string            // Date header; "" for the (virtual) current time, "-" for none
	body       string            // raw body, replacing the JSON built from status
	ctype      string            // Content-Type; "" for application/json
	err        error             // a transport error instead of a response
	hold       time.Duration     // time the request takes (virtual); ctx ends it early
	deaf       bool              // the hold ignores ctx: the answer arrives even if ctx ends
	noResp     bool              // return a nil *http.Response and a nil error
	noBody     bool              // return a response with a nil Body
	header     map[string]string // more header fields
}

// call is one request the fake engine received.
type call struct {
	id      string // decoded path segment after /request/info/
	at      time.Time
	path    string // escaped path
	method  string
	marked  bool // the context carries retryctx.Poll
	routeOK bool // the path is /request/info/{one segment}
}

// fake is a scripted TensorPool engine behind an http.RoundTripper: the
// generated client runs against it unchanged, with no sockets, so tests run
// in a synctest bubble. Each id plays its script; the last reply repeats.
type fake struct {
	mu       sync.Mutex
	script   map[string][]reply
	calls    []call
	inFlight int
	maxIn    int
}

func newFake() *fake { return &fake{script: map[string][]reply{}} }

func (f *fake) on(id string, rs ...reply) *fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script[id] = append(f.script[id], rs...)
	return f
}

func (f *fake) RoundTrip(req *http.Request) (*http.Response, error) {
	path := req.URL.EscapedPath()
	seg, routeOK := strings.CutPrefix(path, "/request/info/")
	routeOK = routeOK && seg != "" && !strings.Contains(seg, "/")
	id, err := url.PathUnescape(seg)
	if err != nil {
		routeOK = false
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{id: id, at: time.Now(), path: path, method: req.Method,
		marked: retryctx.IsPoll(req.Context()), routeOK: routeOK})
	var r reply
	if s := f.script[id]; routeOK && len(s) > 0 {
		r = s[0]
		if len(s) > 1 {
			f.script[id] = s[1:]
		}
	} else {
		r = reply{code: http.StatusNotFound, date: "-"}
	}
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.inFlight--; f.mu.Unlock() }()
	if r.hold > 0 {
		t := time.NewTimer(r.hold)
		defer t.Stop()
		done := req.Context().Done()
		if r.deaf {
			done = nil
		}
		select {
		case <-t.C:
		case <-done:
			return nil, req.Context().Err()
		}
	}
	switch {
	case r.err != nil:
		return nil, r.err
	case r.noResp:
		return nil, nil
	}
	resp := &http.Response{StatusCode: r.code, Header: http.Header{}, Request: req, ProtoMajor: 1, ProtoMinor: 1}
	if resp.StatusCode == 0 {
		resp.StatusCode = http.StatusOK
	}
	resp.Status = http.StatusText(resp.StatusCode)
	body := r.body
	if body == "" && resp.StatusCode == http.StatusOK {
		info := gen.RequestInfoResponse{RequestID: id, RequestType: gen.RequestTypeSTORAGEATTACH,
			Status: r.status, CreatedAt: "2000-01-01T00:00:00Z"}
		if r.msg != "" {
			info.ExternalMessage = &r.msg
		}
		b, _ := json.Marshal(info)
		body = string(b)
	}
	if !r.noBody {
		resp.Body = io.NopCloser(strings.NewReader(body))
	}
	resp.ContentLength = int64(len(body))
	if r.ctype == "" {
		r.ctype = "application/json"
	}
	resp.Header.Set("Content-Type", r.ctype)
	switch r.date {
	case "":
		resp.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	case "-":
	default:
		resp.Header.Set("Date", r.date)
	}
	if r.retryAfter != "" {
		resp.Header.Set("Retry-After", r.retryAfter)
	}
	for k, v := range r.header {
		resp.Header.Set(k, v)
	}
	return resp, nil
}

// callsFor returns the calls made for id.
func (f *fake) callsFor(id string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.id == id {
			out = append(out, c)
		}
	}
	return out
}

func (f *fake) allCalls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// gaps returns the time between consecutive calls for id.
func (f *fake) gaps(id string) []time.Duration {
	cs := f.callsFor(id)
	var out []time.Duration
	for i := 1; i < len(cs); i++ {
		out = append(out, cs[i].at.Sub(cs[i-1].at))
	}
	return out
}

const testServer = "https://engine.test/"

// client returns the real generated client wired to f.
func (f *fake) client(t testing.TB, opts ...gen.ClientOption) *gen.Client {
	t.Helper()
	c, err := gen.NewClient(testServer, append([]gen.ClientOption{gen.WithHTTPClient(&http.Client{Transport: f})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// poller returns a Poller over f; jitter is fixed at j (0 <= j < 1) unless j < 0.
func (f *fake) poller(t testing.TB, j float64, opts ...Option) *Poller {
	p := New(f.client(t), opts...)
	if j >= 0 {
		p.rand = func() float64 { return j }
	}
	return p
}

// newClientPoller is a Poller over tensorpool.NewClient, whose transport
// sends through f.
func (f *fake) newClientPoller(t testing.TB, opts ...Option) *Poller {
	t.Helper()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-test"), tensorpool.WithBaseURL(testServer),
		tensorpool.WithHTTPClient(&http.Client{Transport: f}))
	if err != nil {
		t.Fatal(err)
	}
	p := New(c, opts...)
	p.rand = func() float64 { return 0 }
	return p
}

// Shorthands for scripts.
func running(ra string) reply          { return reply{status: gen.RequestStatusPROCESSING, retryAfter: ra} }
func status(s gen.RequestStatus) reply { return reply{status: s} }
func httpErr(code int, ra string) reply {
	return reply{code: code, body: `{"detail":"x"}`, retryAfter: ra}
}

// refuse turns resp into a 429 with Retry-After ra, the answer of httpErr.
func refuse(resp *http.Response, ra string) {
	resp.StatusCode = http.StatusTooManyRequests
	resp.Header.Set("Retry-After", ra)
	resp.Body = io.NopCloser(strings.NewReader(`{"detail":"x"}`))
}

// errNet is a connection reset as net/http's transport reports it.
var errNet error = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}

var completed = status(gen.RequestStatusCOMPLETED)

func repeat(n int, r reply) []reply {
	out := make([]reply, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func seq(parts ...any) []reply {
	var out []reply
	for _, p := range parts {
		switch v := p.(type) {
		case reply:
			out = append(out, v)
		case []reply:
			out = append(out, v...)
		}
	}
	return out
}

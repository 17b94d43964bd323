package benchmarks

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// recorded is one answer of the engine to GET /request/info, replayed byte
// for byte by the benchmark servers so that every client reads the same
// response.
type recorded struct {
	id     string
	header http.Header
	body   []byte
}

// recordRequestInfo asks the in-memory engine for a PROCESSING request's
// info and keeps the answer (status line aside: it is 200).
func recordRequestInfo(tb testing.TB) recorded {
	tb.Helper()
	srv := tensorpooltest.NewInProcessServer(tb, tensorpooltest.WithLifecycle(
		tensorpooltest.Succeed(0, 1<<40))) // PROCESSING for as long as the benchmark runs
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-bench"})
	ctx := context.Background()
	d, err := srv.Client.StorageDestroyWithResponse(ctx, "s-bench")
	if err != nil || d.JSON202 == nil || d.JSON202.RequestID == nil {
		tb.Fatalf("storage destroy: %v (status %d)", err, d.StatusCode())
	}
	id := *d.JSON202.RequestID
	resp, err := srv.Client.GetRequestInfo(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("request info: %v (status %d)", err, resp.StatusCode)
	}
	h := resp.Header.Clone()
	h.Del("Date") // each server sets its own
	return recorded{id: id, header: h, body: body}
}

// replay answers every request with rec, after checking the key, as a
// server would.
func (rec recorded) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+tensorpooltest.DefaultAPIKey {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	w.Write(rec.body)
}

// RoundTrip answers in-process with rec: the client's own cost, no socket.
func (rec recorded) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") != "Bearer "+tensorpooltest.DefaultAPIKey {
		return nil, fmt.Errorf("no key")
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rec.header, Body: &bodyReader{b: rec.body}, ContentLength: int64(len(rec.body)), Request: r,
	}, nil
}

// bodyReader is a response body; one allocation, like bytes.Reader plus
// io.NopCloser but in one.
type bodyReader struct {
	b []byte
	i int
}

func (r *bodyReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

func (r *bodyReader) Close() error { return nil }

// requestInfo is the hand-written client's decoding target: the fields of
// RequestInfoResponse, declared by hand.
type requestInfo struct {
	RequestID       string  `json:"request_id"`
	RequestType     string  `json:"request_type"`
	Status          string  `json:"status"`
	CreatedAt       string  `json:"created_at"`
	ObjectID        *string `json:"object_id"`
	ExternalMessage *string `json:"external_message"`
}

// handWritten is what a user without the generated client would write: build
// the URL, send the key, check the status, decode the JSON, read
// Retry-After.
type handWritten struct {
	hc   *http.Client
	base string
	auth string
}

func (c *handWritten) getRequestInfo(ctx context.Context, id string) (*requestInfo, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/request/info/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Authorization", c.auth)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return nil, "", fmt.Errorf("GET /request/info: %s", resp.Status)
	}
	// io.ReadAll + json.Unmarshal measured faster here than
	// json.NewDecoder(resp.Body).Decode plus draining the body: the stricter
	// baseline.
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	var info requestInfo
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, "", err
	}
	return &info, resp.Header.Get("Retry-After"), nil
}

func authEditor(_ context.Context, r *http.Request) error {
	r.Header.Set("Authorization", "Bearer "+tensorpooltest.DefaultAPIKey)
	return nil
}

// overheadRounds is how many rounds TestClientOverhead runs; make bench
// sets it from BENCH_COUNT.
var (
	overheadRounds = flag.Int("overhead.rounds", 10, "rounds of TestClientOverhead")
	overheadOnly   = flag.String("overhead.only", "", "run only the TestClientOverhead client named transport/client (for a profile)")
)

// overheadClient is one client under measurement: call makes one
// GET /request/info and checks the answer.
type overheadClient struct {
	name string
	call func(b *testing.B)
}

// overheadClients are the clients TestClientOverhead compares, over one
// transport (tr makes a fresh *http.Client for each, over the same
// connection pool or in-process responder).
func overheadClients(tb testing.TB, rec recorded, base string, tr func() *http.Client) []overheadClient {
	hw := &handWritten{hc: tr(), base: base, auth: "Bearer " + tensorpooltest.DefaultAPIKey}
	genc, err := gen.NewClient(base, gen.WithHTTPClient(tr()), gen.WithRequestEditorFn(authEditor))
	if err != nil {
		tb.Fatal(err)
	}
	withResp, err := gen.NewClientWithResponses(base, gen.WithHTTPClient(tr()), gen.WithRequestEditorFn(authEditor))
	if err != nil {
		tb.Fatal(err)
	}
	front, err := tensorpool.NewClient(tensorpool.WithBaseURL(base), tensorpool.WithInsecureHTTP(),
		tensorpool.WithAPIKey(tensorpooltest.DefaultAPIKey), tensorpool.WithHTTPClient(tr()))
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	check := func(b *testing.B, status string, retryAfter string) {
		if status != "PROCESSING" || retryAfter == "" {
			b.Fatalf("got status %q, Retry-After %q", status, retryAfter)
		}
	}
	return []overheadClient{
		{"handwritten", func(b *testing.B) {
			info, ra, err := hw.getRequestInfo(ctx, rec.id)
			if err != nil {
				b.Fatal(err)
			}
			check(b, info.Status, ra)
		}},
		// The same hand-written call bounded as the front door bounds every
		// call (DefaultTimeout): a cancellable context costs net/http
		// something of its own, which the front door cannot avoid.
		{"handwritten-timeout", func(b *testing.B) {
			ctx, cancel := context.WithTimeout(ctx, tensorpool.DefaultTimeout)
			defer cancel()
			info, ra, err := hw.getRequestInfo(ctx, rec.id)
			if err != nil {
				b.Fatal(err)
			}
			check(b, info.Status, ra)
		}},
		{"generated", func(b *testing.B) {
			resp, err := genc.GetRequestInfo(ctx, rec.id)
			if err != nil {
				b.Fatal(err)
			}
			r, err := gen.ParseGetRequestInfoResponse(resp)
			if err != nil {
				b.Fatal(err)
			}
			check(b, string(r.JSON200.Status), *r.Headers200.RetryAfter)
		}},
		{"generated-withresponse", func(b *testing.B) {
			r, err := withResp.GetRequestInfoWithResponse(ctx, rec.id)
			if err != nil {
				b.Fatal(err)
			}
			check(b, string(r.JSON200.Status), *r.Headers200.RetryAfter)
		}},
		{"tensorpool.NewClient", func(b *testing.B) {
			r, err := tensorpool.Check(front.GetRequestInfoWithResponse(ctx, rec.id))
			if err != nil {
				b.Fatal(err)
			}
			check(b, string(r.JSON200.Status), *r.Headers200.RetryAfter)
		}},
	}
}

// TestClientOverhead is GET /request/info through each client, over the
// same loopback server (and, to see the clients' own cost without the
// network, over the same in-process transport), reading the same bytes.
//
// The clients run in interleaved rounds in this one process (A B C D, A B
// C D, ...), each round printing one `go test -bench` line per client, so
// that benchmd can divide each client's figure by the hand-written one of
// the same round and report the median of those ratios: load from other
// work on a shared machine falls on every client of a round alike. It is a
// measurement: it runs with -figures (make bench).
func TestClientOverhead(t *testing.T) {
	needFigures(t)
	rec := recordRequestInfo(t)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	type group struct {
		transport string
		clients   []overheadClient
	}
	groups := []group{
		{"loopback", overheadClients(t, rec, srv.URL, func() *http.Client { return &http.Client{Transport: srv.Client().Transport} })},
		{"inprocess", overheadClients(t, rec, "http://engine.invalid", func() *http.Client { return &http.Client{Transport: rec} })},
	}
	for range *overheadRounds {
		for _, g := range groups {
			for _, c := range g.clients {
				if *overheadOnly != "" && *overheadOnly != g.transport+"/"+c.name {
					continue
				}
				r := testing.Benchmark(func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						c.call(b)
					}
				})
				if r.N == 0 {
					t.Fatalf("%s/%s failed", g.transport, c.name)
				}
				printBench("ClientOverhead/"+g.transport+"/client="+c.name, r)
			}
		}
	}
}

// BenchmarkResponder is one answer to GET /request/info from each in-process
// responder, without a client: what the scale runs' CPU per poll includes
// besides the client.
func BenchmarkResponder(b *testing.B) {
	for _, kind := range []backendKind{lightBackend, engineBackendKind} {
		name := map[backendKind]string{lightBackend: "light", engineBackendKind: "engine"}[kind]
		b.Run(name, func(b *testing.B) {
			var be backend
			var id string
			l := tensorpooltest.Succeed(0, 1<<40)
			if kind == lightBackend {
				ls := newLightServer(hint{d: scaleHint})
				id = ls.add(l)
				be = ls
			} else {
				e, ids := newEngineRequests(b, hint{d: scaleHint}, []tensorpooltest.Lifecycle{l})
				be, id = e, ids[0]
			}
			req, err := gen.NewGetRequestInfoRequest(tensorpooltest.InProcessURL, id)
			if err != nil {
				b.Fatal(err)
			}
			authEditor(context.Background(), req)
			b.ReportAllocs()
			for b.Loop() {
				resp, err := be.RoundTrip(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("%v %v", err, resp)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

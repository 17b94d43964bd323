package benchmarks

import (
	"context"
	"encoding/json"
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
// info through RawClient and keeps the answer as the engine sent it
// (status line aside: it is 200).
func recordRequestInfo(tb testing.TB) recorded {
	tb.Helper()
	srv := tensorpooltest.NewInProcessServer(tb, tensorpooltest.WithLifecycle(
		tensorpooltest.Succeed(0, 1<<40))) // PROCESSING for as long as the benchmark runs
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-bench"})
	ctx := context.Background()
	d, err := srv.RawClient.StorageDestroyWithResponse(ctx, "s-bench")
	if err != nil || d.JSON202 == nil || d.JSON202.RequestID == nil {
		tb.Fatalf("storage destroy: %v (status %d)", err, d.StatusCode())
	}
	id := *d.JSON202.RequestID
	resp, err := srv.RawClient.GetRequestInfo(ctx, id)
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

// overheadClient is one client under measurement: call makes one
// GET /request/info and checks the answer.
type overheadClient struct {
	name string
	call func(b *testing.B)
}

// overheadClients are the clients BenchmarkClientOverhead compares, over one
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
			r, err := front.GetRequestInfoWithResponse(ctx, rec.id) // its own response check
			if err != nil {
				b.Fatal(err)
			}
			check(b, string(r.JSON200.Status), *r.Headers200.RetryAfter)
		}},
	}
}

// BenchmarkClientOverhead is GET /request/info through each client, over
// the same loopback server and, to see the clients' own cost without the
// network, over the same in-process transport, reading the same bytes.
// `make bench` runs it in rounds (-count=1, several times, so that load from
// other work on a shared machine falls on every client alike) and compares
// each client with the hand-written one using benchstat -col /client.
func BenchmarkClientOverhead(b *testing.B) {
	rec := recordRequestInfo(b)
	srv := httptest.NewServer(rec)
	b.Cleanup(srv.Close)
	transports := []struct {
		name, base string
		client     func() *http.Client
	}{
		{"loopback", srv.URL, func() *http.Client { return &http.Client{Transport: srv.Client().Transport} }},
		{"inprocess", "http://engine.invalid", func() *http.Client { return &http.Client{Transport: rec} }},
	}
	for _, tr := range transports {
		for _, c := range overheadClients(b, rec, tr.base, tr.client) {
			b.Run("transport="+tr.name+"/client="+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c.call(b)
				}
			})
		}
	}
}

package tensorpooltest_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// lifeTB is a TB with a lifetime like a *testing.T's: end runs its cleanups,
// and a report after that panics, as testing's "Log in goroutine after Test
// has completed" does.
type lifeTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	ended    bool
	errors   []string
}

func (l *lifeTB) Cleanup(f func()) { l.cleanups = append(l.cleanups, f) }

func (l *lifeTB) Errorf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		panic("Log in goroutine after Test has completed: " + fmt.Sprintf(format, args...))
	}
	l.errors = append(l.errors, fmt.Sprintf(format, args...))
}

func (l *lifeTB) end() {
	for i := len(l.cleanups) - 1; i >= 0; i-- {
		l.cleanups[i]()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = true
}

func (l *lifeTB) reported() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errors...)
}

// nonConforming makes every 202 of DELETE /storage/{id} and of POST
// /storage/attach a violation.
func nonConforming(t *testing.T) tensorpooltest.Option {
	return tensorpooltest.WithSpec(specWith(t, func(doc map[string]any) {
		for _, name := range []string{"StorageDestroyRestResponse", "StorageAttachRestResponse"} {
			schema := obj(obj(obj(doc["components"])["schemas"])[name])
			schema["required"] = append(schema["required"].([]any), "not_sent")
		}
	}))
}

// A request that outlives the test (here: a client used after the test
// ended) must not report through the finished test; its violation is kept.
func TestViolationsAfterTheTestAreKeptNotReported(t *testing.T) {
	tb := &lifeTB{TB: t}
	s := tensorpooltest.NewInProcessServer(tb, nonConforming(t))
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
	wantStatus(t, destroy(t, s, "s-1"), 202)
	if got := tb.reported(); len(got) != 1 || !strings.Contains(got[0], "not_sent") {
		t.Fatalf("reported during the test: %q, want the violation", got)
	}
	tb.end()
	wantStatus(t, destroy(t, s, "s-2"), 202) // would panic in Errorf
	if n := len(s.Engine.Violations()); n != 2 {
		t.Fatalf("%d violations kept, want 2", n)
	}
	if n := len(tb.reported()); n != 1 {
		t.Fatalf("%d reported, want 1", n)
	}
}

// NewServer's cleanup waits for a request in flight; its violation still
// fails the test. Not in synctest: NewServer listens on a socket, which is
// not durably blocking. No wait is timed instead: the request's body (its
// JSON's last byte) comes only once the server is closing, its listener
// refusing connections, so the answer, and its violation, come while the
// test's cleanups run. A few milliseconds.
func TestViolationsOfRequestsInFlightAtTheEndAreReported(t *testing.T) {
	tb := &lifeTB{TB: t}
	s := tensorpooltest.NewServer(tb, nonConforming(t))
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	closing := make(chan struct{})
	go func() { // until NewServer's cleanup has closed the listener
		defer close(closing)
		host := strings.TrimPrefix(s.URL, "http://")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			c, err := net.Dial("tcp", host)
			if err != nil {
				return
			}
			c.Close()
		}
		t.Error("the server's listener was never closed")
	}()
	body := io.MultiReader(strings.NewReader(`{"storage_id":"s-1","cluster_ids":["c-1"]`),
		readerFunc(func(p []byte) (int, error) { <-closing; return copy(p, "}"), io.EOF }))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/storage/attach", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.Engine.APIKey())
	req.Header.Set("Content-Type", "application/json")
	var wg sync.WaitGroup
	var resp *http.Response
	wg.Go(func() {
		if resp, err = s.HTTPClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	for s.Engine.Calls("POST /storage/attach") == 0 { // the engine has the request, waiting for its body
		time.Sleep(time.Millisecond)
	}
	tb.end() // closes the server, which waits for the request
	wg.Wait()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST: %v, %v; want the engine's 202", resp, err)
	}
	if got := tb.reported(); len(got) != 1 || !strings.Contains(got[0], "not_sent") {
		t.Fatalf("reported: %q, want the violation of the request in flight", got)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// Server.Client is tensorpool.NewClient's, with the engine's key and URL
// whatever the environment says: it retries a 429, refuses a request the
// spec forbids before sending, and Check makes an *APIError of a 404.
// RawClient does none of that.
func TestServerClientIsTheProductionClient(t *testing.T) {
	t.Setenv("TENSORPOOL_KEY", "tp-someone-elses-key")
	t.Setenv("TENSORPOOL_ENGINE", "https://engine.tensorpool.invalid")
	for name, newServer := range map[string]func(tensorpooltest.TB, ...tensorpooltest.Option) *tensorpooltest.Server{
		"NewServer": tensorpooltest.NewServer, "NewInProcessServer": tensorpooltest.NewInProcessServer,
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t)
			const info = "GET /request/info/{request_id}"
			rateLimit := tensorpooltest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "0"}
			s.Engine.InjectFault(info, 1, rateLimit)
			_, err := tensorpool.Check(s.Client.GetRequestInfoWithResponse(ctx, "req_000001"))
			if !tensorpool.IsStatus(err, http.StatusNotFound) || s.Engine.Calls(info) != 2 {
				t.Fatalf("Client: err %v after %d calls, want the engine's 404 after a retried 429", err, s.Engine.Calls(info))
			}
			_, err = s.Client.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1", "c-2"}})
			if !errors.Is(err, tensorpool.ErrInvalidRequest) || s.Engine.Calls("storage_attach") != 0 {
				t.Fatalf("Client: err %v, %d calls; want ErrInvalidRequest before sending", err, s.Engine.Calls("storage_attach"))
			}

			s.Engine.InjectFault(info, 1, rateLimit)
			resp, err := s.RawClient.GetRequestInfoWithResponse(ctx, "req_000001")
			if err != nil || resp.StatusCode() != http.StatusTooManyRequests || s.Engine.Calls(info) != 3 {
				t.Fatalf("RawClient: %v %v after %d calls, want the 429 as sent", resp.StatusCode(), err, s.Engine.Calls(info))
			}
		})
	}
}

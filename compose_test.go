package tensorpool_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/wait"
)

// TestWaitThroughNewClient is package wait polling through a client made by
// NewClient, over loopback HTTP: the server answers 503 to the first polls,
// then COMPLETED. Each poll must be exactly one request: the transport's own
// retries (which would answer a 503 GET with up to 4 attempts) stay out of
// wait's way.
func TestWaitThroughNewClient(t *testing.T) {
	const unavailable = 3
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if n <= unavailable {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"detail":"busy"}`)
			return
		}
		fmt.Fprint(w, `{"request_id":"req-1","created_at":"2026-01-01T00:00:00Z","request_type":"STORAGE_ATTACH","status":"COMPLETED"}`)
	}))
	defer srv.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-test"), tensorpool.WithBaseURL(srv.URL),
		tensorpool.WithRetryPolicy(tensorpool.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	var polls atomic.Int32
	p := wait.New(c, wait.WithMinInterval(time.Millisecond), wait.WithMaxBackoff(5*time.Millisecond), wait.WithMaxInterval(10*time.Millisecond),
		wait.WithProgress(func(wait.Update) { polls.Add(1) }))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := p.Wait(ctx, "req-1")
	if err != nil || info == nil || info.Status != "COMPLETED" {
		t.Fatalf("Wait = %v, %v", info, err)
	}
	if polls.Load() != unavailable+1 || hits.Load() != polls.Load() {
		t.Errorf("%d polls made %d requests; want %d polls, one request each", polls.Load(), hits.Load(), unavailable+1)
	}
}

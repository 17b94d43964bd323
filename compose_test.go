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
// NewClient, over loopback HTTP: the server spoils the first polls' answers,
// then answers COMPLETED. Every spoiled answer is one wait treats as
// transient, so it polls again; and each poll must be exactly one request:
// the transport's own retries (which would answer a 503 GET, or one cut off
// mid-body, with up to 4 attempts) stay out of wait's way.
func TestWaitThroughNewClient(t *testing.T) {
	const spoiled = 3
	for _, tc := range []struct {
		name  string
		spoil func(w http.ResponseWriter)
	}{
		{"503", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"detail":"busy"}`)
		}},
		{"200 with malformed JSON", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"request_id":"req-1","status":`)
		}},
		{"200 cut off mid-body", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "1000")
			fmt.Fprint(w, `{"request_id":"req-1",`)
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := hits.Add(1)
				w.Header().Set("Content-Type", "application/json")
				if n <= spoiled {
					tc.spoil(w)
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
			var transient []error
			p := wait.New(c, wait.WithMinInterval(time.Millisecond), wait.WithMaxBackoff(5*time.Millisecond), wait.WithMaxInterval(10*time.Millisecond),
				wait.WithProgress(func(u wait.Update) {
					polls.Add(1)
					if u.Err != nil {
						transient = append(transient, u.Err)
					}
				}))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			info, err := p.Wait(ctx, "req-1")
			if err != nil || info == nil || info.Status != "COMPLETED" {
				t.Fatalf("Wait = %v, %v", info, err)
			}
			if polls.Load() != spoiled+1 || hits.Load() != polls.Load() {
				t.Errorf("%d polls made %d requests; want %d polls, one request each", polls.Load(), hits.Load(), spoiled+1)
			}
			if len(transient) != spoiled {
				t.Errorf("progress reported %d transient errors, want %d: %v", len(transient), spoiled, transient)
			}
		})
	}
}

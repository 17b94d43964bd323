package tensorpool_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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
			c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-test-key"), tensorpool.WithBaseURL(srv.URL),
				tensorpool.WithRetryPolicy(tensorpool.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			var polls atomic.Int32
			var transient []error
			p := wait.New(c, wait.WithInterval(time.Millisecond, 10*time.Millisecond),
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

// completedJSON is a request info that ends a wait.
const completedJSON = `{"request_id":"req-1","created_at":"2026-01-01T00:00:00Z","request_type":"STORAGE_ATTACH","status":"COMPLETED"}`

// waitPoller polls through c quickly, counting polls.
func waitPoller(c wait.Client, polls *atomic.Int32) *wait.Poller {
	return wait.New(c, wait.WithInterval(time.Millisecond, 10*time.Millisecond),
		wait.WithProgress(func(wait.Update) { polls.Add(1) }))
}

// TestWaitFailedErrorThroughNewClientHidesTheKey: a FAILED answer whose
// external_message echoes the key, whole or cut short by the server, is
// data: the info reaches the caller as sent but for the whole key, and
// wait's error text, a diagnostic, shows neither (NewClient's redaction),
// nor raw control characters (wait's cleaning).
func TestWaitFailedErrorThroughNewClientHidesTheKey(t *testing.T) {
	const key = "tp-live-0123456789abcdefSECRET"
	for _, echo := range []string{key, key[:12]} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"request_id":"req-1","request_type":"STORAGE_ATTACH","status":"FAILED","created_at":"2026-01-01T00:00:00Z","external_message":"\u001b[31mrefused key %s"}`, echo)
		}))
		c, err := tensorpool.NewClient(tensorpool.WithAPIKey(key), tensorpool.WithBaseURL(srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		info, err := wait.New(c).Wait(t.Context(), "req-1")
		srv.Close()
		var failed *wait.Error
		if !errors.As(err, &failed) || !errors.Is(err, wait.ErrFailed) || failed.RequestID != "req-1" {
			t.Fatalf("echo %q: err %v, want a *wait.Error wrapping ErrFailed", echo, err)
		}
		if want := "\x1b[31mrefused key " + strings.Replace(echo, key, "[REDACTED]", 1); *info.ExternalMessage != want {
			t.Errorf("echo %q: external_message %q, want %q (as sent, the whole key replaced)", echo, *info.ExternalMessage, want)
		}
		// key[:4]: the shortest start of the key that is redacted.
		if msg := err.Error(); strings.Contains(msg, key[:4]) || strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, "[REDACTED]") {
			t.Errorf("echo %q: error %q shows the key or a raw ESC, or no [REDACTED]", echo, msg)
		}
	}
}

// TestWaitThroughNewClientConnectionLostMidBody: a 200 whose body is lost
// once it has started, however net/http reports it (an HTTP/2 stream reset,
// which is no net.Error; an HTTP/1 trailer cut off), is transient for wait
// through NewClient, whose transport reads the body: polled again, one
// request per poll.
func TestWaitThroughNewClientConnectionLostMidBody(t *testing.T) {
	const spoiled = 2
	for _, tc := range []struct {
		name  string
		http2 bool
		spoil func(w http.ResponseWriter)
	}{
		{"HTTP/2 stream reset", true, func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"request_id":"req-1",`)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // RST_STREAM
		}},
		{"HTTP/1 trailer cut off", false, func(w http.ResponseWriter) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n0\r\n")
			buf.Flush()
			conn.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if hits.Add(1) <= spoiled {
					tc.spoil(w)
					return
				}
				fmt.Fprint(w, completedJSON)
			}))
			srv.EnableHTTP2 = tc.http2
			if tc.http2 {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-test-key"), tensorpool.WithBaseURL(srv.URL), tensorpool.WithHTTPClient(srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			var polls atomic.Int32
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if info, err := waitPoller(c, &polls).Wait(ctx, "req-1"); err != nil || info == nil || info.Status != "COMPLETED" {
				t.Fatalf("Wait = %v, %v; want COMPLETED after %d transient failures", info, err, spoiled)
			}
			if polls.Load() != spoiled+1 || hits.Load() != polls.Load() {
				t.Errorf("%d polls made %d requests; want %d polls, one request each", polls.Load(), hits.Load(), spoiled+1)
			}
		})
	}
}

// rtFunc is an http.RoundTripper.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestWaitThroughNewClientFailsAtOnce: errors that would come back on every
// poll end a wait through NewClient after one poll, as the front door does
// not retry them either (a transport answering neither a response nor an
// error among them).
func TestWaitThroughNewClientFailsAtOnce(t *testing.T) {
	customErr := errors.New("custom transport: no route to the vault")
	for _, tc := range []struct {
		name   string
		client func(t *testing.T, hits *atomic.Int32) *http.Client // nil Transport: a real server is used
		server func(w http.ResponseWriter, r *http.Request)
		tls    bool
		want   func(error) bool
	}{
		{name: "nil response", client: func(_ *testing.T, hits *atomic.Int32) *http.Client {
			return &http.Client{Transport: rtFunc(func(*http.Request) (*http.Response, error) { hits.Add(1); return nil, nil })}
		}, want: func(err error) bool {
			return strings.Contains(err.Error(), "returned a nil *Response with a nil error") // net/http's own check
		}},
		{name: "custom transport error", client: func(_ *testing.T, hits *atomic.Int32) *http.Client {
			return &http.Client{Transport: rtFunc(func(*http.Request) (*http.Response, error) { hits.Add(1); return nil, customErr })}
		}, want: func(err error) bool { return errors.Is(err, customErr) }},
		{name: "redirect loop", server: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, want: func(err error) bool { return strings.Contains(err.Error(), "stopped after 10 redirects") }},
		{name: "TLS alert: certificate required", tls: true, server: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, completedJSON)
		}, want: func(err error) bool {
			var op *net.OpError
			return errors.As(err, &op) && op.Op == "remote error" && strings.Contains(err.Error(), "certificate required")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			base, hc := "https://engine.test", (*http.Client)(nil)
			if tc.client != nil {
				hc = tc.client(t, &hits)
			} else {
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					tc.server(w, r)
				}))
				srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
				if tc.tls {
					srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
					srv.StartTLS()
				} else {
					srv.Start()
				}
				defer srv.Close()
				base, hc = srv.URL, srv.Client()
			}
			c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-test-key"), tensorpool.WithBaseURL(base), tensorpool.WithHTTPClient(hc))
			if err != nil {
				t.Fatal(err)
			}
			var polls atomic.Int32
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = waitPoller(c, &polls).Wait(ctx, "req-1")
			if err == nil || !tc.want(err) || errors.Is(err, wait.ErrTooManyFailures) {
				t.Fatalf("err = %v; want the cause at once, not ErrTooManyFailures", err)
			}
			if polls.Load() != 1 {
				t.Errorf("%d polls (%d requests); want 1", polls.Load(), hits.Load())
			}
		})
	}
}

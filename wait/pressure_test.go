package wait

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
)

// overloaded answers every request until until with a 503 (Retry-After ra,
// none if empty); then passes them to next. It records when each request came and when it was answered.
type overloaded struct {
	next  http.RoundTripper
	until time.Time
	ra    string

	mu    sync.Mutex
	spans [][2]time.Time // [sent, answered] of the requests answered as overloaded
}

func (o *overloaded) RoundTrip(r *http.Request) (*http.Response, error) {
	sent := time.Now()
	if !sent.Before(o.until) {
		return o.next.RoundTrip(r)
	}
	time.Sleep(20 * time.Millisecond)
	o.mu.Lock()
	o.spans = append(o.spans, [2]time.Time{sent, time.Now()})
	o.mu.Unlock()
	resp, err := o.next.RoundTrip(r)
	if err == nil {
		resp.StatusCode, resp.Status = http.StatusServiceUnavailable, "503 Service Unavailable"
		resp.Header.Del("Retry-After")
		if o.ra != "" {
			resp.Header.Set("Retry-After", o.ra)
		}
	}
	return resp, err
}

// TestPressureHoldsEveryPoll: a 429/503 holds every
// poll of the Poller until its Retry-After (or the shared backoff) has
// passed; then one probe at a time, until one is answered: a WaitAll of 50
// ids against a server overloaded for 30 s sends a handful of requests
// during those 30 s, not 50 per backoff step, and every id completes soon
// after.
func TestPressureHoldsEveryPoll(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ra      string
		minGap  time.Duration // between probes
		maxSent int           // during the overload, the first 8 (sent before any answer) included
	}{
		{"503 Retry-After 5", "5", 5 * time.Second, 8 + 30/5 + 1},
		{"503 Retry-After 0", "0", time.Second, 8 + 30 + 1},
		{"503 no header", "", time.Second, 8 + 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake()
				var ids []string
				for i := range 50 {
					id := fmt.Sprint("r-", i)
					ids = append(ids, id)
					f.on(id, completed)
				}
				start := time.Now()
				o := &overloaded{next: f, until: start.Add(30 * time.Second), ra: tc.ra}
				c, err := gen.NewClient(testServer, gen.WithHTTPClient(&http.Client{Transport: o}))
				if err != nil {
					t.Fatal(err)
				}
				p := New(c)
				if _, err := p.WaitAll(t.Context(), ids...); err != nil {
					t.Fatal(err)
				}
				if len(o.spans) > tc.maxSent || len(o.spans) < 9 {
					t.Errorf("%d requests during the 30 s overload; want 9 to %d", len(o.spans), tc.maxSent)
				}
				// After the first wave: one probe at a time, each after the
				// last answer's hold.
				probes := o.spans[8:]
				for i := 1; i < len(probes); i++ {
					if gap := probes[i][0].Sub(probes[i-1][1]); gap < tc.minGap {
						t.Errorf("probe %d sent %v after the previous answer; want at least %v", i, gap, tc.minGap)
					}
				}
				if el := time.Since(start); el > 30*time.Second+17*time.Second {
					t.Errorf("all done after %v; want soon after the overload", el)
				}
			})
		})
	}
}

// TestPressureHoldsQueuedPolls: polls of concurrent Wait calls that queue
// for one of the Poller's 8 slots while the first wave is answered 503 do
// not slip past the hold that answer starts: 100 Waits against a server
// overloaded for 30 s send the first 8, then one probe per Retry-After.
func TestPressureHoldsQueuedPolls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		start := time.Now()
		o := &overloaded{next: f, until: start.Add(30 * time.Second), ra: "5"}
		c, err := gen.NewClient(testServer, gen.WithHTTPClient(&http.Client{Transport: o}))
		if err != nil {
			t.Fatal(err)
		}
		p := New(c)
		var wg sync.WaitGroup
		for i := range 100 {
			id := fmt.Sprint("r-", i)
			f.on(id, completed)
			wg.Go(func() {
				if _, err := p.Wait(t.Context(), id); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			})
		}
		wg.Wait()
		if max := 8 + 30/5 + 1; len(o.spans) > max {
			t.Errorf("%d requests during the 30 s overload; want at most %d (the first 8, then one probe per 5 s)", len(o.spans), max)
		}
	})
}

// TestPressureReleasedBySuccess: a 503's hold delays every poll of its
// Poller (not another Poller's), and an answer that is not pressure
// releases it for every id.
func TestPressureReleasedBySuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("a", httpErr(503, "60"), completed).on("b", running("1"), completed)
		p := f.poller(t, 0)
		start := time.Now()
		if _, err := p.Wait(t.Context(), "a"); err != nil || time.Since(start) != 60*time.Second {
			t.Fatalf("a: %v after %v; want done after the 60 s hold", err, time.Since(start))
		}
		// Held for 60 s by a's 503: b's first poll waits for it too.
		f = newFake().on("a", httpErr(503, "60"), completed).on("b", completed).on("c", completed)
		p = f.poller(t, 0)
		start = time.Now()
		if _, err := p.Step(t.Context(), "a", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := f.poller(t, 0).Wait(t.Context(), "c"); err != nil || time.Since(start) != 0 {
			t.Fatalf("another Poller: %v after %v; want done at once", err, time.Since(start))
		}
		if _, err := p.Wait(t.Context(), "b"); err != nil || time.Since(start) != 60*time.Second {
			t.Fatalf("b: %v after %v; want held for 60 s", err, time.Since(start))
		}
		// b's success released the hold: a polls at once.
		start = time.Now()
		if _, err := p.Step(t.Context(), "a", nil); err != nil || time.Since(start) != 0 {
			t.Fatalf("a after the release: %v after %v", err, time.Since(start))
		}
	})
}

// TestAnswerForAnotherRequest: an answer whose request_id is not the id
// asked is ErrWrongRequest, transient: polled again, and after
// WithMaxFailures of them in a row ErrTooManyFailures.
func TestAnswerForAnotherRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		other := reply{body: `{"request_id":"r-OTHER","request_type":"STORAGE_ATTACH","status":"COMPLETED","created_at":""}`}
		f := newFake().on("r", other, other, completed)
		info, err := f.poller(t, 0).Wait(t.Context(), "r")
		if err != nil || info.RequestID != "r" {
			t.Fatalf("%+v, %v; want r COMPLETED after two wrong answers", info, err)
		}
		f = newFake().on("r", other)
		_, err = f.poller(t, 0).Wait(t.Context(), "r")
		if !errors.Is(err, ErrTooManyFailures) || !errors.Is(err, ErrWrongRequest) || len(f.allCalls()) != DefaultMaxFailures {
			t.Fatalf("err = %v after %d polls; want ErrTooManyFailures wrapping ErrWrongRequest after %d", err, len(f.allCalls()), DefaultMaxFailures)
		}
	})
}

// TestSuccessWithoutJSON200IsMalformed: a 2xx other than the 200 with JSON
// the spec declares (202, 204, a 200 in HTML) is a malformed answer:
// transient, polled again.
func TestSuccessWithoutJSON200IsMalformed(t *testing.T) {
	for _, r := range []reply{{code: 202, body: `{}`}, {code: 204}, {ctype: "text/html", body: "<html>"}} {
		synctest.Test(t, func(t *testing.T) {
			f := newFake().on("r", r, completed)
			if _, err := f.poller(t, 0).Wait(t.Context(), "r"); err != nil || len(f.allCalls()) != 2 {
				t.Errorf("%+v: %v after %d polls; want done after 2", r, err, len(f.allCalls()))
			}
			f = newFake().on("r", r)
			_, err := f.poller(t, 0, WithMaxFailures(1)).Wait(t.Context(), "r")
			if !errors.As(err, new(*tensorpool.DecodeError)) {
				t.Errorf("%+v: err = %v; want a *tensorpool.DecodeError", r, err)
			}
		})
	}
}

// TestHoldPastTheDeadline: when the Poller holds its polls until after
// ctx's deadline, Wait returns at once, wrapping context.DeadlineExceeded,
// instead of sleeping only to time out.
func TestHoldPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("a", httpErr(503, "60")).on("b", completed)
		p := f.poller(t, 0)
		if _, err := p.Step(t.Context(), "a", nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		start := time.Now()
		_, err := p.Wait(ctx, "b")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 0 || len(f.callsFor("b")) != 0 {
			t.Fatalf("err = %v after %v and %d polls; want DeadlineExceeded at once, no poll", err, time.Since(start), len(f.callsFor("b")))
		}
	})
}

package wait

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/ratelimit"
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

// TestPressureCutsThePace: a 429/503 cuts the pace every poll of the
// Poller shares, and each id still waits its own Retry-After: a WaitAll of
// 50 ids against a server overloaded for 30 s sends a handful of requests
// during those 30 s, never one earlier than its id's Retry-After, and every
// id completes soon after.
func TestPressureCutsThePace(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ra    string
		minRA time.Duration // between two polls of one id during the overload
	}{
		{"503 Retry-After 5", "5", 5 * time.Second},
		{"503 Retry-After 0", "0", time.Second},
		{"503 no header", "", time.Second},
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
				if _, err := New(c).WaitAll(t.Context(), ids...); err != nil {
					t.Fatal(err)
				}
				// The first answer cuts the pace to its floor: then one poll per 2 s at most.
				if max := 2 + int(math.Ceil(30*minFillRate)); len(o.spans) > max || len(o.spans) < 2 {
					t.Errorf("%d requests during the 30 s overload; want 2 to %v", len(o.spans), max)
				}
				for _, id := range ids {
					calls := f.callsFor(id)
					for i := 1; i < len(calls) && calls[i].at.Before(o.until); i++ {
						if gap := calls[i].at.Sub(calls[i-1].at); gap < tc.minRA {
							t.Errorf("%s: poll %d came %v after the last; want at least %v", id, i, gap, tc.minRA)
						}
					}
				}
				if el := time.Since(start); el > 30*time.Second+17*time.Second {
					t.Errorf("all done after %v; want soon after the overload", el)
				}
			})
		})
	}
}

// TestRetryAfterHoldsThePoller (issue 37): a 429's Retry-After holds
// every poll of the Poller, for any id, not only the refused id's. 50 ids,
// each answer 20 ms after its poll: the first poll is answered 429 with
// Retry-After: 5, every other 200 PENDING with Retry-After: 1, then
// COMPLETED. No poll is sent in the 5 s after the 429 arrives beyond those
// already in flight (sent before it), and every id is polled after it.
func TestRetryAfterHoldsThePoller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		ids := make([]string, 50)
		for i := range ids {
			ids[i] = fmt.Sprint("r-", i)
			f.on(ids[i], reply{status: gen.RequestStatusPENDING, retryAfter: "1", hold: 20 * time.Millisecond},
				reply{status: gen.RequestStatusCOMPLETED, hold: 20 * time.Millisecond})
		}
		var refused time.Time // when the 429 arrives
		var once sync.Once
		c, err := gen.NewClient(testServer, gen.WithHTTPClient(doerFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := f.RoundTrip(r)
			once.Do(func() {
				refused = time.Now()
				refuse(resp, "5")
			})
			return resp, err
		})))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(c).WaitAll(t.Context(), ids...); err != nil {
			t.Fatal(err)
		}
		held, after := 0, map[string]bool{}
		for _, c := range f.allCalls() {
			switch {
			case !c.at.Before(refused) && c.at.Before(refused.Add(5*time.Second)):
				held++
			case !c.at.Before(refused.Add(5 * time.Second)):
				after[c.id] = true
			}
		}
		if held > 0 || len(after) != len(ids) {
			t.Errorf("%d polls sent within the 5 s after the 429, %d ids polled after; want none within, every id after", held, len(after))
		}
	})
}

// TestNothingShortensTheHold: a 429's Retry-After holds the Poller for
// its whole span, whatever answers come after it. 50 ids, each poll
// answered after 20 ms and some more (each id its own), 200 PENDING with
// Retry-After: 1, then COMPLETED; the 20th poll is answered 429 with
// Retry-After: 5 while other polls are in flight. Their answers come
// during the hold as 429s with Retry-After: 1, a shorter wait; they do not
// shorten it: no poll is sent in the 5 s after the first 429 arrives.
func TestNothingShortensTheHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		ids := make([]string, 50)
		for i := range ids {
			ids[i] = fmt.Sprint("r-", i)
			hold := time.Duration(20+i) * time.Millisecond
			f.on(ids[i], reply{status: gen.RequestStatusPENDING, retryAfter: "1", hold: hold},
				reply{status: gen.RequestStatusCOMPLETED, hold: hold})
		}
		var (
			mu      sync.Mutex
			n       int
			refused time.Time // when the 429 arrives
			later   int       // answers to polls sent before it that arrive after it
		)
		c, err := gen.NewClient(testServer, gen.WithHTTPClient(doerFunc(func(r *http.Request) (*http.Response, error) {
			sent := time.Now()
			mu.Lock()
			n++
			first := n == 20
			mu.Unlock()
			resp, err := f.RoundTrip(r)
			mu.Lock()
			defer mu.Unlock()
			if first {
				refused = time.Now()
				refuse(resp, "5")
			} else if !refused.IsZero() && sent.Before(refused) && time.Now().After(refused) {
				later++
				refuse(resp, "1")
			}
			return resp, err
		})))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(c).WaitAll(t.Context(), ids...); err != nil {
			t.Fatal(err)
		}
		if later == 0 {
			t.Fatal("no answer came after the 429: the test needs polls in flight when it arrives")
		}
		var held []time.Duration
		for _, c := range f.allCalls() {
			if c.at.After(refused) && c.at.Before(refused.Add(5*time.Second)) {
				held = append(held, c.at.Sub(refused))
			}
		}
		if len(held) > 0 {
			t.Errorf("%d polls sent within the 5 s after the 429 (%d later 429s with Retry-After: 1 came meanwhile), the first %v after it; want none", len(held), later, held[0])
		}
	})
}

// TestPressureCutsQueuedPolls: polls of concurrent Wait calls that queue
// for one of the Poller's 8 slots while the first poll is answered 503 do
// not slip past the hold and the cut that answer makes: 100 Waits against a
// server overloaded for 30 s send at most one poll per 2 s.
func TestPressureCutsQueuedPolls(t *testing.T) {
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
		if max := 2 + int(math.Ceil(30*minFillRate)); len(o.spans) > max {
			t.Errorf("%d requests during the 30 s overload; want at most %v", len(o.spans), max)
		}
		// After the first 503, the 7 polls queued behind it wait for its
		// Retry-After, then go at the cut rate, not at once.
		early, window := 0, time.Duration(0.95*float64(time.Second)/minFillRate)
		for _, sp := range o.spans {
			if sp[0].Before(start.Add(window)) {
				early++
			}
		}
		if early > 2 {
			t.Errorf("%d requests in the first %v; want at most 2: the first, and one at the cut pace", early, window)
		}
	})
}

// TestPaceIsPerPoller: a 503's Retry-After holds every id of its Poller
// (not another Poller's), and the cut it makes still applies after the
// hold.
func TestPaceIsPerPoller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("a", httpErr(503, "60"), completed).on("b", completed).on("c", completed)
		p := f.poller(t, 0)
		start := time.Now()
		if s, err := p.Step(t.Context(), "a", nil); err != nil || s.Next != 60*time.Second {
			t.Fatalf("a: %+v, %v; want its Retry-After", s, err)
		}
		if _, err := f.poller(t, 0).Wait(t.Context(), "c"); err != nil || time.Since(start) != 0 {
			t.Fatalf("another Poller: %v after %v; want done at once", err, time.Since(start))
		}
		if _, err := p.Wait(t.Context(), "b"); err != nil || time.Since(start) != time.Minute {
			t.Fatalf("b: %v after %v; want held until a's Retry-After, 1m0s", err, time.Since(start))
		}
		if _, err := p.Wait(t.Context(), "a"); err != nil || time.Since(start) != time.Minute+slotOf(minFillRate) {
			t.Fatalf("a: %v after %v; want a token of the cut pace after b, %v", err, time.Since(start), slotOf(minFillRate))
		}
	})
}

// TestPaceFreeUntilPressure: before any 429 or 503 a Poller is bounded only
// by its concurrency, which starts at one poll in flight and grows by one
// per answer (slow start): 100 ids, each answered in 20 ms, all get their
// first poll within a few round trips.
func TestPaceFreeUntilPressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		ids := make([]string, 100)
		for i := range ids {
			ids[i] = fmt.Sprint("r", i)
			f.on(ids[i], reply{status: gen.RequestStatusCOMPLETED, hold: 20 * time.Millisecond})
		}
		start := time.Now()
		if _, err := f.poller(t, 0, WithConcurrency(100)).WaitAll(t.Context(), ids...); err != nil {
			t.Fatal(err)
		}
		// The probe alone, then 2, 4, 8, ...: 1+2+4+...+64 > 100 after 7 round trips.
		if el := time.Since(start); el != 7*20*time.Millisecond {
			t.Errorf("all done after %v; want 7 round trips: a probe, then twice as many each round trip", el)
		}
		first := f.allCalls()[0].at
		for i, c := range f.allCalls()[:3] {
			if want := start.Add(time.Duration(min(i, 1)) * 20 * time.Millisecond); !c.at.Equal(want) {
				t.Errorf("poll %d at %v; want the probe alone at 0, then two at 20ms", i, c.at.Sub(first))
			}
		}
	})
}

// TestPaceHonoursStatedLimits: a server's rate-limit fields bound the pace
// with no 429 at all: below the stated rate, at most a bucket's capacity at
// once, and no poll before the reset when nothing remains.
func TestPaceHonoursStatedLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		sent, _ := p.take(t.Context())
		p.answered(sent, false, ratelimit.Limit{Rate: 2})
		p.done()
		if got := p.limit(); got != paceMargin*2 {
			t.Fatalf("after a stated rate of 2 a second: %v; want %v", got, paceMargin*2)
		}
		start := time.Now()
		sent, _ = p.take(t.Context())
		if el, slot := time.Since(start), slotOf(paceMargin*2); el < slot || el > slot+time.Millisecond {
			t.Errorf("next poll after %v; want one slot of the stated rate", el)
		}
		p.answered(sent, false, ratelimit.Limit{Rate: 2, Wait: 5 * time.Second}) // nothing remains for 5 s
		p.done()
		start = time.Now()
		if _, err := p.take(t.Context()); err != nil || time.Since(start) != 5*time.Second {
			t.Errorf("next poll after %v (%v); want at the reset, 5 s", time.Since(start), err)
		}
		p.done()
		p.answered(time.Now(), false, ratelimit.Limit{Rate: 5})
		time.Sleep(time.Minute) // idle: the bucket fills to its size, one token: no burst
		start = time.Now()
		for range 5 {
			if _, err := p.take(t.Context()); err != nil {
				t.Fatal(err)
			}
			p.done()
		}
		if el, want := time.Since(start), 4*slotOf(paceMargin*5); (el - want).Abs() > time.Microsecond {
			t.Errorf("5 polls after a minute idle at 4.9 a second: the last after %v; want after %v, a slot apart", el, want)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		p.answered(time.Now(), false, ratelimit.Limit{Wait: time.Hour}) // held at most paceHold
		if _, err := p.take(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a poll whose deadline comes before the reset: %v; want DeadlineExceeded at once", err)
		}
		if until := p.until.Sub(time.Now()); until != paceHold {
			t.Errorf("held for %v; want at most %v", until, paceHold)
		}
	})
}

// TestPollerHonoursStatedLimits: a Poller reads the rate-limit fields of
// every answer (internal/ratelimit), 200s included, with no 429 at all:
// nothing remains until the reset in 5 s, so no poll in those 5 s, and one
// at the reset (a hold leaves a token for the first poll after it, as the
// server asked: issue 44); the next answer states nothing, and the pace
// TestPaceKeepsUnderTheStatedQuota: an X-RateLimit-Limit bounds the rate by
// its quota over the longest window seen: slowapi's 10 a minute states a
// window that shrinks as it runs out, and a later, shorter one must not
// raise the rate.
func TestPaceKeepsUnderTheStatedQuota(t *testing.T) {
	p := newPace(DefaultConcurrency)
	p.answered(time.Now(), false, ratelimit.Limit{Quota: 10, Window: time.Minute})
	if got, want := p.limit(), paceMargin*10/60; math.Abs(got-want) > 1e-12 {
		t.Fatalf("after 10 a minute: %v a second; want %v", got, want)
	}
	p.answered(time.Now(), false, ratelimit.Limit{Quota: 10, Window: 5 * time.Second}) // the same window, 5 s left
	if got, want := p.limit(), paceMargin*10/60; math.Abs(got-want) > 1e-12 {
		t.Errorf("after the window's last 5 s: %v a second; want still %v", got, want)
	}
}

// lets go.
func TestPollerHonoursStatedLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		empty := reply{status: gen.RequestStatusPROCESSING, retryAfter: "60", header: map[string]string{
			"RateLimit-Policy": `"default";q=60;w=60`, "RateLimit": `"default";r=0;t=5`}}
		f := newFake().on("a", empty).on("b", completed).on("c", completed)
		p := f.poller(t, 0)
		start := time.Now()
		if _, err := p.Step(t.Context(), "a", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(t.Context(), "b"); err != nil || time.Since(start) != 5*time.Second {
			t.Fatalf("b: %v after %v; want at the reset, 5 s", err, time.Since(start))
		}
		start = time.Now()
		if _, err := p.Wait(t.Context(), "c"); err != nil || time.Since(start) != 0 {
			t.Errorf("c: %v after %v; want at once: b's answer stated no limit", err, time.Since(start))
		}
	})
}

// TestPaceHoldsAQueuedPollUntilTheReset: polls that wait for a token when
// an answer says nothing remains until a reset wait for the reset.
func TestPaceHoldsAQueuedPollUntilTheReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		for range DefaultConcurrency - 1 { // no slow start: both polls in flight at once
			<-p.slots
		}
		p.start.Store(0)
		p.answered(time.Now(), true, ratelimit.Limit{}) // a first 503: the floor, a token every 2 s
		var sent [2]time.Time
		var wg sync.WaitGroup
		for i := range sent {
			wg.Go(func() {
				at, err := p.take(t.Context())
				if err != nil {
					t.Error(err)
				}
				sent[i] = at
				p.done()
			})
			synctest.Wait() // both wait for the token due in 2 s
		}
		reset := time.Now().Add(time.Minute)
		p.answered(time.Now(), false, ratelimit.Limit{Wait: time.Minute})
		wg.Wait()
		for i, at := range sent {
			if at.Before(reset) {
				t.Errorf("poll %d went %v before the reset", i, reset.Sub(at))
			}
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

// TestPacePastTheDeadline: when the Poller's pace sends the next poll
// only after ctx's deadline, Wait returns at once, wrapping
// context.DeadlineExceeded, instead of sleeping only to time out.
func TestPacePastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("a", httpErr(503, "60")).on("b", completed)
		p := f.poller(t, 0)
		if _, err := p.Step(t.Context(), "a", nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := p.Wait(ctx, "b")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 0 || len(f.callsFor("b")) != 0 {
			t.Fatalf("err = %v after %v and %d polls; want DeadlineExceeded at once, no poll", err, time.Since(start), len(f.callsFor("b")))
		}
	})
}

// TestPressureWithoutHintBacksOff: a 429 or a 503 without Retry-After puts
// its id on the backoff (1 s, 2 s, 4 s, ...), never counted as a failure; an
// answer resets it.
func TestPressureWithoutHintBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", httpErr(429, ""), httpErr(503, ""), httpErr(429, ""), running(""))
		p := f.poller(t, 0)
		var s *Step
		for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 2 * time.Second} {
			var err error
			if s, err = p.Step(t.Context(), "r", s); err != nil || s.Next != want || s.Reason != ReasonBackoff || s.Failures != 0 {
				t.Fatalf("poll %d: Next %v (%s), %d failures, %v; want %v, no failure", i+1, s.Next, s.Reason, s.Failures, err, want)
			}
		}
	})
}

// slotOf is the time between two polls at r a second.
func slotOf(r float64) time.Duration { return time.Duration(float64(time.Second) / r) }

// limit is the pace's rate.
func (p *pace) limit() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rate
}

// TestPaceFollowsAWS: where issue 44's changes do not bind, the pace's law
// is the AWS SDK's. Fed the answers of aws-sdk-go-v2's own test of it
// (aws/retry/adaptive_ratelimit_test.go, TestAdaptiveRateLimit_Update, case
// "base": an answer every 200 ms from creation, throttles at 2 s and 3.2 s),
// it measures the same rate sent and, from the first throttle on, sets the
// same rate, to the SDK's figures. The case's 3 to 6 polls a second are
// below where the curve's concave part is stretched (regainPolls), so the
// test turns the stretch off; the second throttle cuts from the rate of the
// bucket, as the SDK's does (it is below the rate measured), and more polls
// were accepted than refused, so no delivered rate. Before the first
// throttle the pace is off, as the SDK's bucket is.
func TestPaceFollowsAWS(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // starts on a whole second, as the SDK's test does
		p := newPace(1)
		p.regain = 0
		for i, want := range []struct {
			throttle   bool
			sent, fill float64
		}{
			{false, 0, 0.5}, {false, 0, 0.5}, {false, 4.8, 0.5}, {false, 4.8, 0.5}, {false, 4.16, 0.5},
			{false, 4.16, 0.6912}, {false, 4.16, 1.0976}, {false, 5.632, 1.6384}, {false, 5.632, 2.3328},
			{true, 4.3264, 3.02848}, {false, 4.3264, 3.4866391734702598}, {false, 4.3264, 3.8218744160402554},
			{false, 5.665280, 4.053385727709987}, {false, 5.665280, 4.200373108479455}, {false, 4.333056, 4.282036558348658},
			{true, 4.333056, 2.99742559084406}, {false, 4.333056, 3.4522263943863463},
		} {
			time.Sleep(200 * time.Millisecond)
			p.answered(time.Now(), want.throttle, ratelimit.Limit{})
			if i < 9 {
				want.fill = math.Inf(1) // before the first throttle
			}
			if got := p.limit(); math.Abs(p.sent-want.sent) > 1e-9 || math.Abs(got-want.fill) > 1e-9 && got != want.fill {
				t.Errorf("answer %d, at %v: rate sent %v, rate %v; want the SDK's %v and %v", i+1, 200*time.Duration(i+1)*time.Millisecond,
					p.sent, got, want.sent, want.fill)
			}
		}
	})
}

// TestPaceCutsOncePerEpisode: a throttle cuts the rate (to cubicBeta
// times the rate) once per episode: not for a poll sent before the cut (it
// went at the rate cut), nor for one sent after it while no answer to such a
// poll has come (RFC 9002 section 7.3.2's recovery period: a fixed window
// refuses every poll until it reopens, and one cut each would take the rate
// to its floor). The first cut is from the rate the SDK measures; once a
// rate is known, from the pace's own (RFC 9438's W_max).
func TestPaceCutsOncePerEpisode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(1)
		for range 20 { // 100 answers a second for 2 s
			time.Sleep(100 * time.Millisecond)
			for range 10 {
				p.answered(time.Now(), false, ratelimit.Limit{})
			}
		}
		inFlight := time.Now()
		time.Sleep(time.Millisecond)
		p.answered(time.Now(), true, ratelimit.Limit{})
		cut := p.limit()
		if math.Abs(cut-cubicBeta*p.top) > 1e-9 || p.top < 90 {
			t.Fatalf("after a throttle at about 100 a second: %v a second, cut from %v; want %v times about 100", cut, p.top, cubicBeta)
		}
		for range 5 {
			p.answered(inFlight, true, ratelimit.Limit{})
		}
		time.Sleep(time.Millisecond)
		p.answered(time.Now(), true, ratelimit.Limit{}) // sent after the cut, but no answer to such a poll yet
		if got := p.limit(); got != cut {
			t.Errorf("after throttles within the episode: %v a second; want still %v", got, cut)
		}
		time.Sleep(time.Millisecond)
		p.answered(time.Now(), false, ratelimit.Limit{}) // the episode ends
		rate := p.limit()
		time.Sleep(time.Millisecond)
		p.answered(time.Now().Add(-time.Nanosecond), true, ratelimit.Limit{})
		if got := p.limit(); math.Abs(got-cubicBeta*rate) > 1e-9 || p.top != rate {
			t.Errorf("after a throttle in a new episode: %v a second, cut from %v; want %v, cut from the pace's %v", got, p.top, cubicBeta*rate, rate)
		}
	})
}

// TestPaceRegainsOverPolls (issue 44): after a throttle without
// Retry-After, below about 34 polls a second, the curve regains a cut over
// regainPolls polls at the rate cut from, not over the SDK's second or so:
// cut from 1 poll a second, with an answer every second, the rate is back at
// 1 after 100 s, the concave part's end, and not before. After a throttle
// with Retry-After, whose hold spaces the polls, the SDK's curve is back at
// 1 within 2 s (four Pollers on one key stay fair), and so it is after the
// first cut, from a rate measured while polls went unpaced.
func TestPaceRegainsOverPolls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(1)
		p.answered(time.Now(), false, ratelimit.Limit{})
		p.fill, p.top, p.sent = 1, 1, 1 // a rate known: the next cut is from it
		p.answered(time.Now(), true, ratelimit.Limit{})
		want := map[int][2]float64{1: {0.7, 0.71}, 50: {0.96, 0.97}, 99: {0.99, 1}, 100: {1, 1}, 150: {1.03, 1.04}}
		for s := 1; s <= 150; s++ {
			time.Sleep(time.Second)
			p.answered(time.Now(), false, ratelimit.Limit{})
			if w, ok := want[s]; ok {
				if got := p.limit(); got < w[0]-1e-9 || got > w[1]+1e-9 {
					t.Errorf("%d s after a cut from 1 a second: %v a second; want %v to %v", s, got, w[0], w[1])
				}
			}
		}
		p.fill = 1
		p.answered(time.Now(), true, ratelimit.Limit{Wait: time.Second}) // a 429 with Retry-After: 1
		for range 2 {
			time.Sleep(time.Second)
			p.answered(time.Now(), false, ratelimit.Limit{})
		}
		if got := p.limit(); got < 1 {
			t.Errorf("2 s after a cut from 1 a second by a 429 with Retry-After: %v a second; want back at 1", got)
		}
		p = newPace(1) // the first cut from a rate measured, not one a cut set: the SDK's curve
		for range 8 {
			time.Sleep(250 * time.Millisecond)
			p.answered(time.Now(), false, ratelimit.Limit{})
		}
		p.answered(time.Now(), true, ratelimit.Limit{})
		for range 8 {
			time.Sleep(250 * time.Millisecond)
			p.answered(time.Now(), false, ratelimit.Limit{})
		}
		if got := p.limit(); got < p.top {
			t.Errorf("2 s after the first cut, from %v a second measured: %v a second; want back at %v", p.top, got, p.top)
		}
	})
}

// TestPaceCutsToTheDeliveredRate (issue 44): when a cycle no shorter than
// the last had more polls refused than accepted, the server let through
// only the accepted ones: the cut is to their rate (TCP Westwood's
// estimate), here about 10 a minute, a fixed window's, not to 0.7 times the
// rate polls went at. A cycle shorter than the last may miss the end of a
// window: its rate is not used.
func TestPaceCutsToTheDeliveredRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(1)
		p.answered(time.Now(), false, ratelimit.Limit{})
		p.fill, p.top, p.sent = 2, 2, 2
		p.answered(time.Now(), true, ratelimit.Limit{}) // a cut at 0
		for i := range 60 {                             // the window is closed for 50 s, then accepts 10
			time.Sleep(time.Second)
			p.answered(time.Now(), i < 50, ratelimit.Limit{})
		}
		time.Sleep(time.Second)
		p.answered(time.Now(), true, ratelimit.Limit{}) // a new episode, 61 s after the last
		if got, want := p.limit(), 10.0/61; math.Abs(got-want) > 1e-9 {
			t.Errorf("after 51 refused and 10 accepted in 61 s: %v a second; want the rate accepted, %v", got, want)
		}
		p = newPace(1)
		p.answered(time.Now(), false, ratelimit.Limit{})
		p.fill, p.top, p.sent = 2, 2, 2
		p.answered(time.Now(), true, ratelimit.Limit{}) // a cut at 0, then a cycle of 61 s with no refusal
		for range 60 {
			time.Sleep(time.Second)
			p.answered(time.Now(), false, ratelimit.Limit{})
		}
		time.Sleep(time.Second)
		p.answered(time.Now(), true, ratelimit.Limit{})
		for i := range 30 { // a shorter cycle: 20 refused, then 10 accepted
			time.Sleep(time.Second)
			p.answered(time.Now(), i < 20, ratelimit.Limit{})
		}
		time.Sleep(time.Second)
		rate := p.fill
		p.answered(time.Now(), true, ratelimit.Limit{})
		if got := p.limit(); math.Abs(got-cubicBeta*rate) > 1e-9 {
			t.Errorf("after a cycle of 31 s, shorter than the last: %v a second; want %v times the pace's %v", got, cubicBeta, rate)
		}
	})
}

// TestPaceTokenPastTheDeadline: a poll whose token comes after its deadline
// fails at once; one that another poll beats to the token fails as soon as
// the next comes too late. Both wrap context.DeadlineExceeded, as one
// cancelled while it waits returns ctx's error; none keeps its slot in
// flight. A rate too
// small for a time.Duration holds the poll paceHold, never 0 s, as an
// overflow would.
func TestPaceTokenPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(2)
		p.start.Store(0)
		<-p.slots
		p.answered(time.Now(), false, ratelimit.Limit{Rate: 1 / paceMargin}) // one token a second
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		if _, err := p.take(ctx); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 0 {
			t.Errorf("token at 1 s, deadline at 0.5 s: %v after %v; want DeadlineExceeded at once", err, time.Since(start))
		}
		ctx, cancel = context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		errs := make(chan error, 2)
		for range 2 {
			go func() { _, err := p.take(ctx); errs <- err }()
		}
		if err := <-errs; err != nil || time.Since(start) != time.Second {
			t.Errorf("the first: %v after %v; want the token at 1 s", err, time.Since(start))
		}
		if err := <-errs; !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("the second, next token at 2 s: %v after %v; want DeadlineExceeded at 1 s", err, time.Since(start))
		}
		ctx, cancel = context.WithCancel(t.Context())
		go func() { synctest.Wait(); cancel() }()
		if _, err := p.take(ctx); !errors.Is(err, context.Canceled) || len(p.slots) != 1 {
			t.Errorf("cancelled while it waits: %v, %d slots held; want context.Canceled, only the first poll's", err, len(p.slots))
		}
		for _, r := range []float64{1e-9, 1e-12, 1e-300} {
			p.rate = r
			if wait := p.token(); wait != paceHold {
				t.Errorf("at %v polls a second: the next token in %v; want %v", r, wait, paceHold)
			}
		}
	})
}

// TestSlowapiRetryAfterIsTheWindows (issue 44): slowapi with its headers
// sends, on every answer, Retry-After: int(reset - now), the time to its
// X-RateLimit-Reset, or the handler's own if later. On a 200 that only
// restates the reset, the request polls on the schedule without a hint
// (2 s), not 41 s later: the pace keeps to the window. A Retry-After with
// no reset beside it is the request's own.
func TestSlowapiRetryAfterIsTheWindows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reset := strconv.FormatInt(time.Now().Add(41*time.Second).Unix(), 10) // the window ends in 40 s: slowapi adds 1
		slowapi := reply{status: gen.RequestStatusPROCESSING, retryAfter: "41", header: map[string]string{
			"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": reset}}
		f := newFake().on("a", slowapi).on("b", running("41"))
		p := f.poller(t, 0)
		if s, err := p.Step(t.Context(), "a", nil); err != nil || s.Reason != ReasonBackoff || s.Next < noHint || s.Next > noHint*5/4 {
			t.Errorf("slowapi's Retry-After: 41 restating its reset: next poll in %v (%s), %v; want in 2 s to 2.5 s, without a hint", s.Next, s.Reason, err)
		}
		if s, err := p.Step(t.Context(), "b", nil); err != nil || s.Reason != ReasonRetryAfter || s.Next < 41*time.Second {
			t.Errorf("Retry-After: 41 alone: next poll in %v (%s), %v; want after 41 s", s.Next, s.Reason, err)
		}
	})
}

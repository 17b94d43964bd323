package wait

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
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
				// The first answer cuts the pace to its floor: then one poll per 2 s.
				if max := 2 + int(math.Ceil(30*paceFloor)); len(o.spans) > max || len(o.spans) < 2 {
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

// TestPressureCutsQueuedPolls: polls of concurrent Wait calls that queue
// for one of the Poller's 8 slots while the first poll is answered 503 do
// not slip past the cut that answer makes: 100 Waits against a server
// overloaded for 30 s send about one poll per 2 s.
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
		if max := 2 + int(math.Ceil(30*paceFloor)); len(o.spans) > max {
			t.Errorf("%d requests during the 30 s overload; want at most %v", len(o.spans), max)
		}
		// One poll waits for the pace at a time: after the first 503, the
		// next poll goes at the cut rate, not the 7 others queued at the old.
		early, window := 0, time.Duration(0.95*float64(time.Second)/paceFloor)
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

// TestPaceIsPerPoller: a 503's Retry-After delays its own id only; the cut
// it makes slows the other ids of its Poller (not another Poller's), and
// answers let the pace grow back.
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
		slot := time.Duration(float64(time.Second) / paceFloor)
		if _, err := p.Wait(t.Context(), "b"); err != nil || time.Since(start) != slot {
			t.Fatalf("b: %v after %v; want the cut pace's next slot, %v", err, time.Since(start), slot)
		}
		// After an outage (nothing accepted), the pace grows back from its floor, not from its start.
		if got := p.pace.limit(); got <= paceFloor || got > 3 {
			t.Errorf("the pace after b's answer: %v a second; want grown past the floor %v, to at most 3 (twice the rate sent)", got, paceFloor)
		}
	})
}

// TestPaceRules: no pace until the first 429 or 503; the first 429 sets
// the pace to paceStart, on the curve from the Poller's creation, and
// answers to polls sent within paceSettle of it are old news; a later cut
// (after the Poller's first second) is to paceBeta times the rate sent,
// after which the pace grows by paceGrowth·√top·(1 + top/paceHigh) a
// second, top the rate cut from; only
// an answer to a poll sent at the new pace, from its first slot on, moves
// it. 429s are never an outage: only a 503 after 2 s with nothing accepted
// sends the pace to its floor.
func TestPaceRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		every := func(d time.Duration, n int, pressure bool) {
			for range n {
				time.Sleep(d)
				p.answered(time.Now(), pressure, false, ratelimit.Limit{})
			}
		}
		every(10*time.Millisecond, 100, false) // 1 s accepted at 100 a second
		if p.paced.Load() || p.limit() != unlimited {
			t.Fatalf("paced at %v a second before any 429 or 503; want no pace", p.limit())
		}
		every(time.Millisecond, 1, true)
		if !p.paced.Load() || p.limit() != paceStart {
			t.Fatalf("after the first 429: %v a second; want %v", p.limit(), paceStart)
		}
		settled := time.Now().Add(paceSettle)
		every(paceSettle/5, 4, true) // the start's bursts
		if p.limit() != paceStart {
			t.Fatalf("after 429s to polls sent within %v of the first: %v a second; want still %v", paceSettle, p.limit(), paceStart)
		}
		every(100*time.Millisecond, 1, false) // at the settle's very end: no cut, so old news ends there still
		if p.cut != settled {
			t.Fatalf("after an answer at the settle's end: old news until %v after it; want until it", p.cut.Sub(settled))
		}
		every(100*time.Millisecond, 9, false) // on the curve
		curve := p.limit()
		if born := time.Since(p.born).Seconds(); curve <= paceStart || math.Abs(curve-curveAt(paceStart, born)) > 1e-9 {
			t.Fatalf("%.1f s after creation: %v a second; want grown along the curve from paceStart, to %v", born, curve, curveAt(paceStart, born))
		}
		inFlight := time.Now()
		every(time.Millisecond, 1, true)
		cut := p.limit() // the rate sent is above the pace: the cut is from the pace
		if math.Abs(cut-paceBeta*curve) > 1e-9 {
			t.Fatalf("after a 429 at %v a second: %v; want %v times it", curve, cut, paceBeta)
		}
		early := time.Now().Add(slotOf(cut) / 2) // sent after the cut, before the new pace's first slot
		time.Sleep(time.Second)
		p.answered(inFlight, true, false, ratelimit.Limit{})
		p.answered(inFlight, false, false, ratelimit.Limit{})
		p.answered(early, true, false, ratelimit.Limit{})
		if got := p.limit(); got != cut {
			t.Errorf("after answers to polls sent before the cut took effect: %v a second; want still %v", got, cut)
		}
		every(100*time.Millisecond, 10, false) // one second of polling
		grown := p.limit()
		if want := cut + paceGrowth*math.Sqrt(curve)*(1+curve/paceHigh); math.Abs(grown-want) > 0.001 {
			t.Errorf("one second of polling after the cut: %v a second; want grown additively to %v", grown, want)
		}
		every(100*time.Millisecond, 30, true) // 3 s of 429s, nothing accepted: a cut a slot
		if got := p.limit(); got <= paceFloor || got > grown*paceBeta*paceBeta {
			t.Errorf("after 3 s of 429s alone: %v a second; want cut a few times from %v, above the floor %v", got, grown, paceFloor)
		}
		time.Sleep(slotOf(p.limit()))
		p.answered(time.Now(), true, true, ratelimit.Limit{})
		if got := p.limit(); got != paceFloor {
			t.Errorf("a 503 after 3 s with nothing accepted: %v a second; want the floor %v", got, paceFloor)
		}
	})
}

// TestPaceRecoversAfterAnOutage: polls a slot apart whose answers land on
// exact instants (as under testing/synctest, and as periodic polls do), 503s
// for a minute, then 200s: the pace climbs back from the floor along the
// curve, past 20 polls a second within 15 s. An answer landing exactly on
// the boundary of old news once moved it a slot later each time, so that
// every answer was old news and the pace stayed at one poll per 2 s.
func TestPaceRecoversAfterAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(1)
		end := time.Now().Add(time.Minute)
		for time.Since(end) < 15*time.Second {
			sent, err := p.take(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
			down := time.Now().Before(end)
			p.answered(sent, down, down, ratelimit.Limit{})
			p.done()
		}
		if got := p.limit(); got < 20 {
			t.Errorf("15 s after a minute of 503s: %v polls a second; want past 20, up the curve from the floor", got)
		}
	})
}

// TestPaceGrowth: a second of polling after a cut from top adds 0.028 ×
// √top × (1 + top/100), or 0.05 if more: the same for every Poller from
// 1.5 polls a second to about 3.2, so that shares converge; below 1.5, that
// times (top/1.5)⁶, so that alone at 1 r/s, a Poller takes 34 s to grow
// back after a cut; at 200, three times the square-root law, so that a
// Poller alone there uses 90 % of it.
func TestPaceGrowth(t *testing.T) {
	for _, tc := range []struct{ top, want float64 }{
		{1, 0.05 * 0.087791495}, // 0.05 × (1/1.5)⁶: not the 0.028 × √1 of the square-root law
		{1.2, 0.05 * 0.2621440}, // 0.05 × (1.2/1.5)⁶
		{1.5, 0.05},             // 0.05 > 0.028 × √1.5 × 1.015
		{2.5, 0.05},             // 0.05 > 0.028 × √2.5 × 1.025
		{12.5, 0.1113693138},    // 0.028 × √12.5 × 1.125
		{200, 1.1879393923},     // 0.028 × √200 × 3
	} {
		synctest.Test(t, func(t *testing.T) {
			p := newPace(1)
			now := time.Now()
			p.rate, p.top, p.cut, p.last, p.sent = paceBeta*tc.top, tc.top, now, now, 1000
			time.Sleep(time.Second)
			p.answered(time.Now(), false, false, ratelimit.Limit{})
			if got := p.limit() - paceBeta*tc.top; math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("a second after a cut from %v a second: grown by %.6f; want %v", tc.top, got, tc.want)
			}
		})
	}
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
// with no 429 at all: below the stated rate, and no poll before the reset
// when nothing remains.
func TestPaceHonoursStatedLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		sent, _ := p.take(t.Context())
		p.answered(sent, false, false, ratelimit.Limit{Rate: 2})
		p.done()
		if got := p.limit(); got != paceMargin*2 {
			t.Fatalf("after a stated rate of 2 a second: %v; want %v", got, paceMargin*2)
		}
		start := time.Now()
		sent, _ = p.take(t.Context())
		if el, slot := time.Since(start), slotOf(paceMargin*2); el < slot || el > slot+time.Millisecond {
			t.Errorf("next poll after %v; want one slot of the stated rate", el)
		}
		p.answered(sent, false, false, ratelimit.Limit{Rate: 2, Wait: 5 * time.Second}) // nothing remains for 5 s
		p.done()
		start = time.Now()
		if _, err := p.take(t.Context()); err != nil || time.Since(start) != 5*time.Second {
			t.Errorf("next poll after %v (%v); want at the reset, 5 s", time.Since(start), err)
		}
		p.done()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		p.answered(time.Now(), false, false, ratelimit.Limit{Wait: time.Hour}) // held at most paceHold
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
// nothing remains until the reset in 5 s, so at most one poll in those 5 s
// (the rate they state); the next answer states nothing, and the pace lets
// go.
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
		if _, err := p.Wait(t.Context(), "b"); err != nil || time.Since(start) != slotOf(paceMargin/5) {
			t.Fatalf("b: %v after %v; want after the reset, at the stated rate: %v", err, time.Since(start), slotOf(paceMargin/5))
		}
		start = time.Now()
		if _, err := p.Wait(t.Context(), "c"); err != nil || time.Since(start) != 0 {
			t.Errorf("c: %v after %v; want at once: b's answer stated no limit", err, time.Since(start))
		}
	})
}

// TestPaceRaisedWhileAPollWaits: a limit raised while a poll waits for its
// slot applies from the next slot on: no two polls come closer than the
// limit in force allows (golang.org/x/time/rate, which the pace once used,
// let them come 0.925 s apart at 0.98 a second).
func TestPaceRaisedWhileAPollWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		p.answered(time.Now(), true, true, ratelimit.Limit{}) // a first 503: the floor, slots at 2 s, 4 s, ...
		go func() {
			time.Sleep(3 * time.Second) // while the second poll waits, an answer raises the limit
			p.answered(time.Now(), false, false, ratelimit.Limit{})
		}()
		var at [3]time.Time
		for i := range at {
			if _, err := p.take(t.Context()); err != nil {
				t.Fatal(err)
			}
			p.done()
			at[i] = time.Now()
		}
		if raised, gap := p.limit(), at[2].Sub(at[1]); raised <= paceFloor || gap < slotOf(raised) {
			t.Errorf("polls %v apart at a limit raised to %v a second; want at least %v", gap, raised, slotOf(raised))
		}
	})
}

// TestPaceSlotAtMostTheHold: a stated rate too small for a time.Duration
// (a slot of 32 years and more) holds the next poll paceHold, not forever,
// and never sends it at once, as a slot that overflowed to a negative
// duration would.
func TestPaceSlotAtMostTheHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		p.answered(time.Now(), false, false, ratelimit.Limit{Rate: 1e-9})
		for _, want := range []float64{1e-9, 1e-12, 1e-300} {
			p.want = want
			if at, taken := p.slot(false); taken || at.Sub(p.prev) != paceHold {
				t.Errorf("at %v polls a second: slot %v after the last poll (taken %v); want %v", want, at.Sub(p.prev), taken, paceHold)
			}
		}
	})
}

// TestPaceHoldsAQueuedPollUntilTheReset: polls that wait for their slot or
// queue for their turn when an answer says nothing remains until a reset
// wait for the reset.
func TestPaceHoldsAQueuedPollUntilTheReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		for range DefaultConcurrency - 1 { // no slow start: both polls in flight at once
			<-p.slots
		}
		p.start.Store(0)
		p.answered(time.Now(), true, true, ratelimit.Limit{}) // a first 503: the floor, a slot every 2 s
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
			synctest.Wait() // the first holds the turn, waiting for its slot; the second queues for the turn
		}
		reset := time.Now().Add(time.Minute)
		p.answered(time.Now(), false, false, ratelimit.Limit{Wait: time.Minute})
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

// TestPaceSlotPastTheDeadlineWhileAnotherWaits: a poll queued behind one
// waiting for the pace fails at once if its slot surely comes after its
// deadline; if a cut moves both slots later while it queues (the waiting
// poll's to 2 s, its own past the deadline), it fails as soon as its turn
// comes. Both wrap context.DeadlineExceeded.
func TestPaceSlotPastTheDeadlineWhileAnotherWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		for range p.start.Swap(0) { // past the slow start
			<-p.slots
		}
		p.answered(time.Now(), true, false, ratelimit.Limit{})
		p.want = 1 // one slot a second
		if _, err := p.take(t.Context()); err != nil {
			t.Fatal(err)
		}
		go p.take(t.Context()) // waits for the slot at 1 s, holding the turn
		synctest.Wait()
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		if _, err := p.take(ctx); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 0 {
			t.Errorf("slot at 2 s, deadline at 1.5 s: %v after %v; want DeadlineExceeded at once", err, time.Since(start))
		}
		ctx, cancel = context.WithTimeout(t.Context(), 2500*time.Millisecond)
		defer cancel()
		go func() { synctest.Wait(); p.mu.Lock(); p.want = 0.5; p.mu.Unlock() }() // a cut while it queues: slots at 2 s and 4 s
		if _, err := p.take(ctx); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 2*time.Second {
			t.Errorf("slot moved to 4 s, deadline at 2.5 s: %v after %v; want DeadlineExceeded when its turn comes, at 2 s", err, time.Since(start))
		}
	})
}

// TestPaceQueuedBehindAPollJustSent: a poll that has taken its slot but not
// yet left the turn is no longer waiting; a poll queued behind it has the
// next slot, 1 s on, within its deadline of 1.5 s, and must not fail at
// once as if a poll still waited ahead of it.
func TestPaceQueuedBehindAPollJustSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		for range p.start.Swap(0) {
			<-p.slots
		}
		p.answered(time.Now(), true, false, ratelimit.Limit{})
		p.want = 1
		time.Sleep(time.Second)
		p.turn <- struct{}{} // a poll holds the turn ...
		if _, taken := p.slot(true); !taken {
			t.Fatal("the slot has not come")
		}
		go func() { synctest.Wait(); <-p.turn }() // ... and leaves it once the next poll queues
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := p.take(ctx); err != nil || time.Since(start) != time.Second {
			t.Errorf("slot 1 s on, deadline 1.5 s on: %v after %v; want sent after 1 s", err, time.Since(start))
		}
	})
}

// TestPaceRecordsEverySlot: in real time, where the clock moves between
// two readings, every poll the pace sends is the last one it records, and
// none comes closer than the pace allows. A slot that came between the
// pace's look and the caller's once went unrecorded: the next poll then
// went at once.
func TestPaceRecordsEverySlot(t *testing.T) {
	p := newPace(1)
	p.answered(time.Now(), true, false, ratelimit.Limit{})
	p.mu.Lock()
	p.want = 1e6 // a slot a microsecond long: the clock moves by about that between two readings
	p.mu.Unlock()
	var last time.Time
	for range 20000 {
		sent, err := p.take(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		recorded := p.prev
		p.mu.Unlock()
		if !recorded.Equal(sent) || sent.Sub(last) < time.Microsecond {
			t.Fatalf("a poll sent %v after the last, the last recorded %v before it; want every poll recorded, a slot apart",
				sent.Sub(last), sent.Sub(recorded))
		}
		last = sent
		p.done()
	}
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
	return p.want
}

// TestPaceCurve: the curve solves r' = paceCurve·r·(1 + (r/paceSteep)²):
// about 25 % a second at first, so that a Poller started a second later is
// less than 35 % behind below 15 polls a second; from paceStart it passes
// paceSteep after about 6 s and has no bound by 7.3 s.
func TestPaceCurve(t *testing.T) {
	for _, r0 := range []float64{paceFloor, paceStart, 12} {
		if got := curveAt(r0, 0); math.Abs(got-r0) > 1e-9 {
			t.Errorf("curveAt(%v, 0) = %v; want %v", r0, got, r0)
		}
	}
	const h = 1e-6
	for _, at := range []float64{0.5, 2, 5, 6.5} {
		r := curveAt(paceStart, at)
		slope := (curveAt(paceStart, at+h) - curveAt(paceStart, at-h)) / (2 * h)
		if want := paceCurve * r * (1 + (r/paceSteep)*(r/paceSteep)); math.Abs(slope-want) > 1e-4*want {
			t.Errorf("at %v s (%v a second): slope %v; want %v", at, r, slope, want)
		}
	}
	for at := 1.0; curveAt(paceStart, at) <= 15; at += 0.1 {
		if ratio := curveAt(paceStart, at) / curveAt(paceStart, at-1); ratio > 1.35 {
			t.Errorf("at %.1f s: %.2f times the rate of a Poller started a second later; want at most 1.35", at, ratio)
		}
	}
	if a, b := curveAt(paceStart, 5.5), curveAt(paceStart, 6); a >= paceSteep || b <= paceSteep {
		t.Errorf("from paceStart: %v a second at 5.5 s, %v at 6 s; want paceSteep (%v) passed between", a, b, paceSteep)
	}
	if got := curveAt(paceStart, 7.3); got < 1e4 {
		t.Errorf("from paceStart: %v a second at 7.3 s; want past any limit", got)
	}
}

// TestPaceKeepsCurve: in a Poller's first second, a cut moves it down the
// start curve (paceBeta times the rate) and it goes on growing along it;
// after paceKeep, a cut ends the curve.
func TestPaceKeepsCurve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPace(DefaultConcurrency)
		answer := func(after time.Duration, pressure bool) {
			time.Sleep(after)
			p.answered(time.Now(), pressure, false, ratelimit.Limit{})
		}
		answer(45*time.Millisecond, true) // the first 429: onto the curve
		for range 6 {
			answer(110*time.Millisecond, false) // past the settle, on the curve
		}
		before := p.limit()
		answer(100*time.Millisecond, true) // 0.805 s after creation
		kept := p.limit()
		if math.Abs(kept-paceBeta*before) > 0.02*before || p.curve != kept {
			t.Fatalf("a 429 %v after creation, at %v a second: %v, curve from %v; want about %v times it, still on the curve",
				time.Since(p.born), before, kept, p.curve, paceBeta)
		}
		time.Sleep(slotOf(kept))
		answer(200*time.Millisecond, false)
		if want := curveAt(kept, time.Since(p.from).Seconds()); p.limit() != want || want <= kept {
			t.Errorf("after the kept cut: %v a second; want grown along the curve to %v", p.limit(), want)
		}
		answer(paceKeep, true) // past the first second
		if p.curve != 0 {
			t.Errorf("a 429 %v after creation: still on the curve from %v; want off it", time.Since(p.born), p.curve)
		}
	})
}

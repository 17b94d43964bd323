package wait

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/ratelimit"
)

const (
	paceStart  = 5                      // polls per second at the first 429, then up the curve (curveAt) until a cut
	paceSettle = 500 * time.Millisecond // after the first 429, answers to polls sent this soon are old news: the start's bursts
	paceKeep   = time.Second            // in a Poller's first second, a cut moves it down the curve, not off it
	paceCurve  = 0.25                   // the curve grows by this share a second, times 1 + (rate/paceSteep)²
	paceSteep  = 30                     // polls per second: from paceStart, the curve passes it after about 6 s and any rate by 7 s
	paceBeta   = 0.85                   // a cut sets the rate to this times the rate sent
	paceGrowth = 0.028                  // after a cut, the rate grows by this times √top·(1 + top/paceHigh), top the rate cut from, a second,
	paceEven   = 0.05                   // or by this, the same for every Poller, if more (polls a second, a second)
	paceHigh   = 100                    // polls per second: well above it, growth is closer to in proportion to the rate
	paceKnee   = 1.5                    // below this rate cut from, growth falls with its sixth power: alone at 1 r/s, a Poller takes 34 s to grow back after a cut
	paceFloor  = 0.5                    // polls per second: the rate is never cut below it
	paceWindow = 2 * time.Second        // the rate sent is measured over about this long
	paceMargin = 0.98                   // of a rate the server states
	paceHold   = 10 * time.Minute       // the longest a server's reset holds the polls
	unlimited  = math.MaxFloat64        // the rate before any pressure or stated limit: slots 0 s apart
)

// pace admits the polls of one Poller (see the package doc). Multiplicative
// cuts and growth less than in proportion to the rate bring Pollers on one
// key towards equal shares (Chiu and Jain, 1989), equal growth (paceEven)
// fastest; growth in proportion to the rate keeps whatever shares the start
// gave. Shallow cuts take smaller, more frequent steps: less noise in the
// shares. A cut is from the rate sent, 429s included, as the AWS SDK's:
// from the rate accepted, a Poller refused more often would sink further.
// 429s alone are no outage: a Poller that others crowd out would drop to
// the floor and stay behind. The start curve runs from the Poller's
// creation, so that Pollers started together share it; it grows slowly at
// first, so that Pollers started a second apart reach a limit within 35 %
// of each other, and in its first second a Poller's cuts keep it on the
// curve: the bursts of Pollers starting after it would strand it at the
// start rate.
//
// Polls are a slot apart, one waiting for its slot at a time (turn), so
// that a cut or a reset moves the slot of the poll that waits.
type pace struct {
	slots chan struct{} // a poll in flight holds one
	start atomic.Int64  // slots the slow start still holds
	paced atomic.Bool   // since the first 429 or 503, or stated limit
	turn  chan struct{}

	mu    sync.Mutex
	rate  float64   // the rate 429s and 503s set, unlimited before the first
	want  float64   // the limit the next poll applies: rate, or less if the last answer stated less
	born  time.Time // the Poller's creation
	cut   time.Time // when the last cut took effect: the new pace's first slot
	curve float64   // where the curve starts (paceStart, paceFloor after an outage, or a cut's in the first second); 0 after a cut
	from  time.Time // where its t starts: born, or that cut
	top   float64   // the rate sent when last cut
	sent  float64   // HTTP answers, a count decaying over paceWindow
	last  time.Time // when it was last updated
	ok    time.Time // the last answer that was not a 429 or 503
	until time.Time // the server's reset, when nothing remains: no poll before it
	prev  time.Time // when the last paced poll was sent
	waits bool      // a poll holds the turn and waits for its slot
}

func newPace(concurrency int) *pace {
	now := time.Now()
	p := &pace{slots: make(chan struct{}, concurrency), turn: make(chan struct{}, 1),
		rate: unlimited, want: unlimited, born: now, ok: now}
	for range concurrency - 1 {
		p.slots <- struct{}{}
	}
	p.start.Store(int64(concurrency - 1))
	return p
}

var errLate = fmt.Errorf("%w: the Poller's pace, slowed by 429 or 503 answers or the server's stated limit, has no slot before it", context.DeadlineExceeded)

// take waits for a slot in flight and then, once paced, for the pace's next
// slot; it returns when the poll is sent, and done must follow. It fails as
// soon as the pace's slot is known to come after ctx's deadline.
func (p *pace) take(ctx context.Context) (sent time.Time, err error) {
	if err := ctx.Err(); err != nil { // select picks at random when both are ready
		return time.Time{}, err
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	if !p.paced.Load() {
		return time.Now(), nil
	}
	defer func() {
		if err != nil {
			p.done()
		}
	}()
	late := func(at time.Time) bool { dl, ok := ctx.Deadline(); return ok && dl.Before(at) }
	if at, _ := p.slot(false); late(at) {
		return time.Time{}, errLate
	}
	select {
	case p.turn <- struct{}{}:
		defer func() { p.mu.Lock(); p.waits = false; p.mu.Unlock(); <-p.turn }()
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	for { // a cut or a reset while the poll waits moves its slot later: look again when it comes
		at, taken := p.slot(true)
		if taken {
			return at, nil
		}
		if late(at) {
			return time.Time{}, errLate
		}
		select {
		case <-time.After(time.Until(at)):
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// slot is when the next poll may go: a slot of the pace after the last poll
// sent (10 min at most), not before the server's reset. With take, the poll
// in turn takes it if it has come; without, a poll not yet in turn learns
// the earliest it could go, a slot later if another waits for its own.
func (p *pace) slot(take bool) (at time.Time, taken bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	gap, now := time.Duration(min(float64(time.Second)/p.want, float64(paceHold))), time.Now()
	if at = p.prev.Add(gap); p.until.After(at) {
		at = p.until
	}
	switch {
	case take && !at.After(now):
		p.prev, p.waits = now, false
		return now, true
	case take:
		p.waits = true
	case p.waits:
		at = at.Add(gap)
	}
	return at, false
}

// done frees the slot in flight take took.
func (p *pace) done() { <-p.slots }

// answered adapts the pace to the answer to a poll sent at sent: pressure
// (a 429 or a 503; down, a 503) cuts it, any other HTTP answer lets it
// grow; l is what the answer states of the server's limit.
func (p *pace) answered(sent time.Time, pressure, down bool, l ratelimit.Limit) {
	if !pressure && p.start.Load() > 0 && p.start.Add(-1) >= 0 {
		defer func() { <-p.slots }() // slow start: one more poll in flight, once this answer has paced them
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	dt := min(now.Sub(p.last), time.Second).Seconds() // growth counts busy time only
	p.sent, p.last = p.sent*math.Exp(-float64(now.Sub(p.last))/float64(paceWindow))+1, now
	if !pressure {
		p.ok = now
	}
	if l.Wait > 0 && now.Add(min(l.Wait, paceHold)).After(p.until) {
		p.until = now.Add(min(l.Wait, paceHold))
	}
	// The rate sent: the count over what one a second would have added up to since born.
	sentRate, r := p.sent/(paceWindow.Seconds()*-math.Expm1(-float64(now.Sub(p.born))/float64(paceWindow))), p.rate
	cut := false
	switch fresh := !sent.Before(p.cut); { // an answer to a poll sent before the last cut took effect is old news
	case pressure && fresh && down && (now.Sub(p.ok) > paceWindow || r == unlimited): // an outage: a first 503, or nothing accepted for 2 s
		cut, p.curve, p.from, r = true, paceFloor, now, paceFloor
	case pressure && fresh && r == unlimited: // a first 429: onto the start curve, which runs from born
		p.cut, p.curve, p.from, r = now.Add(paceSettle), paceStart, p.born, paceStart
	case pressure && fresh: // a cut; in the Poller's first second, down its curve rather than off it
		keep := p.curve > 0 && now.Sub(p.born) < paceKeep
		p.top = min(r, sentRate)
		cut, p.curve, p.from, r = true, 0, now, max(paceBeta*p.top, paceFloor)
		if keep {
			p.curve = r
		}
	case pressure || !fresh || r == unlimited:
	case p.curve > 0: // never past twice the rate sent: a Poller with few ids does not grow without bound
		r = min(curveAt(p.curve, now.Sub(p.from).Seconds()), max(r, 2*sentRate))
	default:
		g := max(paceGrowth*math.Sqrt(p.top)*(1+p.top/paceHigh), paceEven) * math.Pow(min(1, p.top/paceKnee), 6)
		r = min(r+g*dt, max(r, 2*sentRate))
	}
	if cut { // polls sent before the new pace's first slot went at the old one
		p.cut = now.Add(time.Duration(float64(time.Second) / r))
	}
	p.rate, p.want = r, r
	if l.Rate > 0 { // the latest answer's fields, if any, bound the rate
		p.want = min(r, paceMargin*l.Rate)
	}
	if !p.paced.Load() && (p.want != unlimited || !p.until.IsZero()) {
		p.prev = now // the polls just answered took the last slot
		p.paced.Store(true)
	}
}

// curveAt is the rate t seconds up the curve from r0: the solution of
// r' = paceCurve·r·(1 + (r/paceSteep)²), which has no bound past a finite t.
func curveAt(r0, t float64) float64 {
	q := min(r0*r0/(paceSteep*paceSteep+r0*r0)*math.Exp(2*paceCurve*t), 1-1e-9)
	return paceSteep * math.Sqrt(q/(1-q))
}

package wait

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const (
	paceStart  = 10              // polls per second at first, then up the AWS SDK's CUBIC curve (+0.4 t³) until a cut
	paceBeta   = 0.7             // a cut sets the rate to this times the rate sent (the AWS SDK's factor)
	paceGrowth = 0.1             // after a cut, the rate grows by this many polls per second every second, or 0.5 % of it if more
	paceFloor  = 0.5             // polls per second: the rate is never cut below it
	paceWindow = 2 * time.Second // the rate sent is measured over about this long
)

// pace is the rate all polls of one Poller share (see the package doc).
// Additive growth and multiplicative cuts bring Pollers on one key towards
// equal shares (Chiu and Jain, 1989); growth in proportion to the rate, as
// the AWS SDK's CUBIC scaled to the last rate, keeps the shares the start
// gave. A cut is from the rate sent, 429s included, as the AWS SDK's: from
// the rate accepted, a Poller refused more often would sink further.
//
// The limiter is golang.org/x/time/rate, the Go team's token bucket: its
// rate can change at any time (SetLimit), and Wait gives a slot back when
// ctx ends, or fails at once when it comes after ctx's deadline. One poll
// waits at a time (turn), so that a cut applies to the next poll.
type pace struct {
	lim  *rate.Limiter // burst 1: polls are spread, never sent in a burst
	turn chan struct{}

	mu       sync.Mutex
	born     time.Time // the Poller's creation
	cut      time.Time // the last cut, or born
	curve    float64   // where the CUBIC curve starts: paceStart at first, paceFloor after an outage; 0 after a cut
	answers  float64   // HTTP answers, a count decaying over paceWindow
	accepted float64   // the same, without 429s and 503s
	last     time.Time // when the counts were last updated
}

func newPace() *pace {
	now := time.Now()
	return &pace{lim: rate.NewLimiter(paceStart, 1), turn: make(chan struct{}, 1), born: now, cut: now, curve: paceStart}
}

var errLate = fmt.Errorf("%w: the Poller's pace, cut by 429 or 503 answers, has no slot before it", context.DeadlineExceeded)

// take waits for the pace's next slot and returns when the poll is sent.
// It fails at once when the slot surely comes after ctx's deadline.
func (p *pace) take(ctx context.Context) (time.Time, error) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl).Seconds() < (1-p.lim.Tokens())/float64(p.lim.Limit()) {
		return time.Time{}, errLate
	}
	select {
	case p.turn <- struct{}{}:
		defer func() { <-p.turn }()
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	if err := p.lim.Wait(ctx); err != nil {
		return time.Time{}, cmp.Or(ctx.Err(), errLate) // no ctx error: the next slot comes after ctx's deadline
	}
	return time.Now(), nil
}

// answered adapts the rate to the answer to a poll sent at sent: pressure
// (a 429 or a 503) cuts it, any other HTTP answer lets it grow.
func (p *pace) answered(sent time.Time, pressure bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	dt := min(now.Sub(p.last), time.Second).Seconds() // growth counts busy time only
	decay := math.Exp(-float64(now.Sub(p.last)) / float64(paceWindow))
	p.answers, p.accepted, p.last = p.answers*decay+1, p.accepted*decay, now
	if !pressure {
		p.accepted++
	}
	if sent.Before(p.cut) {
		return
	}
	// The rate sent: the count over what one a second would have added up to since born.
	limit, sentRate := float64(p.lim.Limit()), p.answers/(paceWindow.Seconds()*-math.Expm1(-float64(now.Sub(p.born))/float64(paceWindow)))
	growth := limit + max(paceGrowth, limit/200)*dt
	switch t := now.Sub(p.cut).Seconds(); {
	case pressure && p.accepted < 0.5: // an outage: nothing accepted lately
		p.cut, p.curve, limit = now, paceFloor, paceFloor
	case pressure:
		p.cut, p.curve, limit = now, 0, paceBeta*min(limit, sentRate)
	case p.curve > 0: // the start, or after an outage: the AWS SDK's CUBIC curve
		growth = p.curve + 0.4*t*t*t
	}
	if !pressure { // never past twice the rate sent: a Poller with few ids does not grow without bound
		limit = min(growth, max(limit, 2*sentRate))
	}
	p.lim.SetLimit(rate.Limit(max(limit, paceFloor)))
}

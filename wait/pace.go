package wait

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const (
	paceStart  = 10              // polls per second at first, then up the AWS SDK's CUBIC curve (+0.4 t³) until a cut
	paceBeta   = 0.7             // a cut sets the rate to this times the rate the server accepted (the AWS SDK's factor)
	paceGrowth = 0.1             // after a cut, the rate grows by this many polls per second, every second
	paceFloor  = 0.5             // polls per second: the rate is never cut below it
	paceWindow = 2 * time.Second // the accepted rate is measured over about this long
)

// pace is the rate all polls of one Poller share (see the package doc).
// Additive growth and multiplicative cuts bring Pollers on one key towards
// equal shares (Chiu and Jain, 1989); growth in proportion to the rate, as
// the AWS SDK's CUBIC scaled to the last rate, keeps the shares the start
// gave. The limiter is golang.org/x/time/rate, the Go team's token bucket:
// its rate can change at any time (SetLimit), and Wait gives a slot back
// when ctx ends, or fails at once when it comes after ctx's deadline.
// One poll waits at a time (turn), so that a cut applies to the next poll.
type pace struct {
	lim  *rate.Limiter // burst 1: polls are spread, never sent in a burst
	turn chan struct{}

	mu       sync.Mutex
	born     time.Time // the Poller's creation
	cut      time.Time // the last cut, or born
	lastMax  float64   // the rate the server accepted at the last cut; 0 before the first
	accepted float64   // accepted answers, a count decaying over paceWindow
	last     time.Time // when accepted was last updated
}

func newPace() *pace {
	now := time.Now()
	return &pace{lim: rate.NewLimiter(paceStart, 1), turn: make(chan struct{}, 1), born: now, cut: now}
}

// take waits for the pace's next slot and returns when the poll is sent.
func (p *pace) take(ctx context.Context) (time.Time, error) {
	select {
	case p.turn <- struct{}{}:
		defer func() { <-p.turn }()
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	if err := p.lim.Wait(ctx); err != nil {
		if ctx.Err() == nil { // the next slot comes after ctx's deadline
			err = fmt.Errorf("%w: the Poller's pace, cut by 429 or 503 answers, has no slot before it", context.DeadlineExceeded)
		}
		return time.Time{}, err
	}
	return time.Now(), nil
}

// answered adapts the rate to the answer to a poll sent at sent: pressure
// (a 429 or a 503) cuts it, any other HTTP answer lets it grow.
func (p *pace) answered(sent time.Time, pressure bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.accepted *= math.Exp(-float64(now.Sub(p.last)) / float64(paceWindow))
	p.last = now
	if !pressure {
		p.accepted++
	}
	if sent.Before(p.cut) {
		return
	}
	// The count over what one a second would have added up to since born.
	limit, accepted := float64(p.lim.Limit()), 0.0
	if p.accepted > 0 {
		accepted = p.accepted / (paceWindow.Seconds() * -math.Expm1(-float64(now.Sub(p.born))/float64(paceWindow)))
	}
	switch t := now.Sub(p.cut).Seconds(); {
	case pressure:
		p.cut, p.lastMax = now, min(limit, accepted)
		limit = paceBeta * p.lastMax
	case p.lastMax < 1: // no cut yet, or one when nothing was accepted (an outage)
		limit = paceStart + 0.4*t*t*t
	default: // growth stops at twice the accepted rate: a Poller with few ids does not grow without bound
		limit = min(paceBeta*p.lastMax+paceGrowth*t, max(limit, 2*accepted))
	}
	p.lim.SetLimit(rate.Limit(max(limit, paceFloor)))
}

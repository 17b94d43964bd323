package wait

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/ratelimit"
)

// The AWS SDK's adaptive retry mode, named as in aws-sdk-go-v2's aws/retry/adaptive_ratelimit.go
// (newAdaptiveRateLimit, Update) and adaptive_token_bucket.go, and in botocore's
// botocore/retries/adaptive.py, throttling.py (CubicCalculator) and bucket.py (TokenBucket).
const (
	cubicBeta   = 0.7                    // beta, _BETA: a throttle cuts the rate to this times the rate sent
	cubicScale  = 0.4                    // scaleConstant, _SCALE_CONSTANT: the curve's scale, polls a second per second cubed
	rateSmooth  = 0.8                    // smooth, _DEFAULT_SMOOTHING: the latest bucket's weight in the rate sent
	rateBucket  = 500 * time.Millisecond // updateMeasuredRate's floor(t*2)/2, _TIME_BUCKET_RANGE
	rateGrowth  = 2                      // Update's 2*measuredTxRate, _MAX_RATE_ADJUST_SCALE: at most this times the rate sent
	minFillRate = 0.5                    // minFillRate, _MIN_RATE: the least rate, polls a second

	paceMargin = 0.98             // ours: of a rate the server states
	paceHold   = 10 * time.Minute // ours: the longest a reset or a Retry-After holds the polls
	bucketSize = 1                // ours: one token, so polls are paced, never a burst (RFC 9002 section 7.7); bucket.py's holds a second's

	// ours: after a throttle without Retry-After (slowapi's), CUBIC's concave part (RFC 9438 section 4.2) lasts this
	// many polls at the rate cut from, not the SDK's second or so: one refusal a cycle is 1 %; binds below 34 polls a second.
	regainPolls = 100
	sampleMin   = 10 // ours: a delivered rate counts this many accepted polls at least, right within 10 %
)

// pace admits the polls of one Poller: up to the polls in flight (one, then one more per answer: TCP's slow
// start), and from the first 429 or 503 (a throttle) on, through a token bucket at the AWS SDK's rate, adapted
// to low rates (answered). A stated rate bounds the bucket's; a reset or a throttle's Retry-After holds every poll.
type pace struct {
	slots    chan struct{} // a poll in flight holds one
	start    atomic.Int64  // slots the slow start still holds
	mu       sync.Mutex
	fill     float64       // the law's rate (fillRate); +Inf until the first throttle (tokenBucketEnabled)
	rate     float64       // the bucket's: fill, or less if the last answer states less
	tokens   float64       // in the bucket, at most bucketSize
	refilled time.Time     // when tokens were last counted
	sent     float64       // the rate sent, answers counted (measuredTxRate)
	count    int           // answers since bucket (requestCount)
	bucket   time.Time     // the half second counted last (lastTxRateBucket)
	top      float64       // the rate the last cut was from (lastMaxRate)
	cut      time.Time     // the last cut (lastThrottleTime)
	low      float64       // the rate the last cut set
	recovery bool          // from a cut to the first answer to a poll sent after it
	acc, ref int           // answers accepted and throttles since the last cut
	iv       time.Duration // from the cut before the last to the last
	regain   float64       // regainPolls; 0 in a test of the SDK's own figures
	window   time.Duration // the longest window of an X-RateLimit quota seen
	until    time.Time     // no poll before it: a reset or a Retry-After
	stretch  bool          // the last cut was for a throttle without Retry-After, from a known rate
}

func newPace(concurrency int) *pace {
	now := time.Now()
	p := &pace{slots: make(chan struct{}, concurrency), fill: math.Inf(1), rate: math.Inf(1), refilled: now, bucket: now.Truncate(time.Second), cut: now,
		regain: regainPolls}
	for range concurrency - 1 {
		p.slots <- struct{}{}
	}
	p.start.Store(int64(concurrency - 1))
	return p
}

var errLate = fmt.Errorf("%w: the Poller's pace, slowed by 429 or 503 answers or the server's stated limit, has no slot before it", context.DeadlineExceeded)

// take waits for a slot in flight, then for a token, and returns when the
// poll is sent (done must follow); it fails once the token comes too late.
func (p *pace) take(ctx context.Context) (sent time.Time, err error) {
	if err := ctx.Err(); err != nil { // select picks at random when both are ready
		return sent, err
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return sent, ctx.Err()
	}
	for { // a cut, a hold or another poll may come first: look again when the token is due
		wait := p.token()
		if wait == 0 {
			return time.Now(), nil
		}
		if dl, ok := ctx.Deadline(); ok && dl.Before(time.Now().Add(wait)) {
			p.done()
			return sent, errLate
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			p.done()
			return sent, ctx.Err()
		}
	}
}

// token takes a token if there is one (AWS's AcquireToken) and returns 0,
// or how long until the next (paceHold at most).
func (p *pace) token() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.refill(now)
	switch {
	case now.Before(p.until):
		return p.until.Sub(now)
	case p.tokens >= 1:
		p.tokens--
		fallthrough
	case math.IsInf(p.rate, 1):
		return 0
	}
	return max(time.Duration(min((1-p.tokens)/p.rate*float64(time.Second), float64(paceHold))), 1)
}

// refill adds the tokens of the time since the last refill.
func (p *pace) refill(now time.Time) {
	if !math.IsInf(p.rate, 1) {
		p.tokens = min(p.tokens+now.Sub(p.refilled).Seconds()*p.rate, bucketSize)
	}
	p.refilled = now
}

// done frees the slot in flight take took.
func (p *pace) done() { <-p.slots }

// answered adapts the pace to the answer to a poll sent at sent (AWS's Update) and to l, what it states of the
// server's limit (its Wait: a reset or a Retry-After). The SDK's law, changed where issue 44 measured it failing:
//   - one cut per episode: none until an answer to a poll sent after the last (RFC 9002 section 7.3.2's recovery period);
//   - once a rate is known, the cut is from the rate polls went at (W_max, RFC 9438 section 4.6), not from the SDK's
//     lower measure of it;
//   - when more polls were refused than accepted over a cycle no shorter than the last, the cut is to the rate
//     accepted, if lower (TCP Westwood's estimate, Mascolo et al., MobiCom 2001);
//   - after a throttle without Retry-After that cuts a rate the last cut set, the concave part lasts regainPolls
//     polls; a hold leaves a poll a token.
func (p *pace) answered(sent time.Time, throttle bool, l ratelimit.Limit) {
	if !throttle && p.start.Load() > 0 && p.start.Add(-1) >= 0 {
		defer func() { <-p.slots }() // slow start: one more poll in flight, once this answer has paced them
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.count++
	if b := now.Truncate(rateBucket); b.After(p.bucket) { // updateMeasuredRate
		p.sent = rateSmooth*float64(p.count)/b.Sub(p.bucket).Seconds() + (1-rateSmooth)*p.sent
		p.count, p.bucket = 0, b
	}
	r := p.fill
	if p.ref++; !throttle {
		p.ref, p.acc = p.ref-1, p.acc+1
	}
	switch {
	case throttle && (p.recovery || sent.Before(p.cut)): // that cut was for it too
	case throttle:
		top := min(p.sent, p.fill)
		if p.top > 0 { // a cut before set fill, finite since
			top = p.fill
		}
		r = cubicBeta * top
		if d := float64(p.acc) / now.Sub(p.cut).Seconds(); p.acc >= sampleMin && p.ref >= p.acc && d < min(r, p.low) && now.Sub(p.cut) >= p.iv {
			top, r = d/cubicBeta, d
		}
		p.top, p.cut, p.low, p.recovery, p.acc, p.ref, p.iv, p.stretch = top, now, r, true, 0, 0, now.Sub(p.cut), l.Wait == 0 && p.top > 0
	case math.IsInf(r, 1), p.recovery && sent.Before(p.cut): // no law yet, or no answer yet to a poll sent after the cut
	default: // cubicSuccess, from calculateTimeWindow's point
		p.recovery = false
		k, c := math.Cbrt(p.top*(1-cubicBeta)/cubicScale), cubicScale
		if s := min(p.regain/p.top, paceHold.Seconds()); p.top > 0 && p.stretch && s > k {
			k, c = s, p.top*(1-cubicBeta)/(s*s*s)
		}
		r = c*math.Pow(now.Sub(p.cut).Seconds()-k, 3) + p.top
	}
	p.refill(now)
	if !math.IsInf(r, 1) {
		p.fill = max(min(r, rateGrowth*p.sent), min(minFillRate, cmp.Or(p.low, minFillRate))) // the least: minFillRate, or what the last cut set
	}
	p.rate = p.fill
	if l.Rate > 0 { // the latest answer's fields, if any, bound the rate
		p.rate = min(p.rate, paceMargin*l.Rate)
	}
	if p.window = max(p.window, l.Window); l.Quota > 0 {
		p.rate = min(p.rate, paceMargin*l.Quota/p.window.Seconds())
	}
	if u := now.Add(min(l.Wait, paceHold)); l.Wait > 0 && u.After(p.until) { // nothing shortens the hold
		p.until, p.tokens = u, bucketSize // and the first poll after it goes at once
	}
}

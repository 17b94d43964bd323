package benchmarks

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// The rate-limit runs (issue 21): ids request ids, each PENDING with
// Retry-After: 2 for rlPending and then COMPLETED, waited for by one
// WaitAll per Poller (an equal share of the ids each) through
// tensorpool.NewClient, behind a limiter of a capacity in requests per
// second, burst as large, per API key, that refuses with 429 and
// Retry-After: 1. Demand is ids/2 requests per second: 10 times the
// capacity. Four Pollers start together (within 10 ms).
var rlCases = []rlCase{
	{ids: 200, capacity: 10, pollers: 1},
	{ids: 1000, capacity: 50, pollers: 1},
	{ids: 200, capacity: 10, pollers: 4, stagger: together},
	{ids: 1000, capacity: 50, pollers: 4, stagger: together},
}

// rlOther are capacities beyond issue 21's, one Poller, token bucket only:
// reported, not held to the goals.
var rlOther = []rlCase{{ids: 20, capacity: 1, pollers: 1}, {ids: 100, capacity: 5, pollers: 1},
	{ids: 400, capacity: 20, pollers: 1}, {ids: 2000, capacity: 100, pollers: 1}, {ids: 4000, capacity: 200, pollers: 1}}

const (
	fairRuns = 7 // runs of each four-Poller case in TestRateLimitGoals: at 1 run in 15 unfair, 4 of 7 miss about once in 2,000
	rlHint   = 2 * time.Second
	rlSettle = 5 * time.Second // the refusals "once settled" are counted after it
	rlRTT    = 20 * time.Millisecond
	rlRepeat = 20 // runs of each four-Poller case for the spread of shares
)

var rlPending = flag.Duration("ratelimit.pending", time.Minute, "how long each request of a rate-limit run stays PENDING")

var rlOnly = flag.Int("ratelimit.case", -1, "run only this case")
var rlLimiters = []string{"token bucket", "nginx limit_req"}
var rlNginx = flag.Bool("ratelimit.nginx", true, "run the nginx cases")

type rlCase struct {
	ids, capacity, pollers int
	raw                    bool          // through a bare *gen.Client instead of tensorpool.NewClient
	stagger                time.Duration // each Poller starts at a random moment within this
	dialect                string        // the rate-limit fields the token bucket sends: "" (none) or one of rlDialects
	concurrency            int           // WithConcurrency, if not 0
	// The limit is capacity requests per window (1 s if 0), enforced by
	// limiter: a token bucket ("", burst capacity), or slowapi's "fixed
	// window" or "moving window" (windowLimiter), with its headers if
	// headers is set.
	window  time.Duration
	limiter string
	headers bool
	key     string        // the API key; tensorpooltest.DefaultAPIKey if ""
	most    time.Duration // each WaitAll's deadline; 30 min if 0
}

// per is the limit's window.
func (c rlCase) per() time.Duration { return cmp.Or(c.window, time.Second) }

// rate is the limit in requests a second.
func (c rlCase) rate() float64 { return float64(c.capacity) / c.per().Seconds() }

// settle is when the refusals "once settled" start to count: rlSettle, or
// three windows of a longer limit.
func (c rlCase) settle() time.Duration { return max(rlSettle, 3*c.per()) }

// rlDialects are the rate-limit fields a token bucket can send (see
// bucketLimiter.fields).
var rlDialects = []string{"draft-10", "older draft", "X-RateLimit"}

// rlFigures is one run's outcome.
type rlFigures struct {
	completed, gaveUp int
	sent, refused     int           // every request
	settledSent       int           // those sent after rlSettle
	settledRefused    int           //
	used              float64       // accepted ÷ capacity, over the seconds in which demand ≥ capacity
	done              time.Duration // until every WaitAll returned
	early             int           // polls earlier than a Retry-After allowed
	pollers           []rlPoller
}

type rlPoller struct {
	completed, sent, refused, accepted int
	contended                          int           // accepted while every Poller still waited
	done                               time.Duration // when its WaitAll returned
}

// met says whether f meets issue 21's goals but fairness (see shares).
func (f rlFigures) met(c rlCase) bool {
	return f.completed == c.ids && f.gaveUp == 0 && f.settledShare() <= 0.05 && f.refusedShare() <= 0.10 && f.used >= 0.80 && f.early == 0
}

// shares is each Poller's share of the requests accepted while every
// Poller still waited, times the number of Pollers: 1 is a fair share.
func (f rlFigures) shares() []float64 {
	contended := 0
	for _, p := range f.pollers {
		contended += p.contended
	}
	out := make([]float64, len(f.pollers))
	for i, p := range f.pollers {
		out[i] = float64(p.contended) / float64(max(contended, 1)) * float64(len(f.pollers))
	}
	return out
}

func (f rlFigures) refusedShare() float64 { return float64(f.refused) / float64(max(f.sent, 1)) }
func (f rlFigures) settledShare() float64 {
	return float64(f.settledRefused) / float64(max(f.settledSent, 1))
}

// rlLog records every poll of a run, from the client side of the limiter.
type rlLog struct {
	start    time.Time
	complete map[string]time.Time // when each request completes on the server
	mu       sync.Mutex
	polls    []rlPoll
	detected map[string]time.Time // the first 200 at or after complete, per id
	first    map[string]time.Time // the first poll, per id
	allowed  map[string]time.Time // the earliest poll the last answer allowed, per id
	early    int
}

type rlPoll struct {
	at      time.Duration // since start
	poller  int
	refused bool
}

func newRLLog() *rlLog {
	return &rlLog{start: time.Now(), complete: map[string]time.Time{}, detected: map[string]time.Time{}, allowed: map[string]time.Time{},
		first: map[string]time.Time{}}
}

// rlTap is one Poller's side of the log.
type rlTap struct {
	log    *rlLog
	poller int
	next   http.RoundTripper
}

func (t rlTap) RoundTrip(r *http.Request) (*http.Response, error) {
	l := t.log
	id := requestID(r)
	sent := time.Now()
	l.mu.Lock()
	if sent.Before(l.allowed[id]) {
		l.early++
	}
	if _, ok := l.first[id]; !ok {
		l.first[id] = sent
	}
	l.mu.Unlock()
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	at := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.polls = append(l.polls, rlPoll{at: sent.Sub(l.start), poller: t.poller, refused: resp.StatusCode == http.StatusTooManyRequests})
	l.allowed[id], _ = allowedAfter(resp.Header, at)
	if _, ok := l.detected[id]; !ok && resp.StatusCode == http.StatusOK && !at.Before(l.complete[id]) {
		l.detected[id] = at
	}
	return resp, nil
}

// bucketLimiter is a token-bucket rate limiter per API key in front of
// next: the first of the two limiters the runs face, in virtual time. It
// refills capacity tokens a window (1 s if 0), holds as many, and a refusal
// says Retry-After: the whole seconds until the next token, rounded up (1 at
// a capacity of 1 a second or more).
type bucketLimiter struct {
	next     http.RoundTripper
	capacity int
	window   time.Duration
	dialect  string // the rate-limit fields it sends, if any
	mu       sync.Mutex
	keys     map[string]*rate.Limiter
}

// fields adds the bucket's state to h in b's dialect: a quota of capacity
// per second, whole tokens remaining, and the time until the next token (in
// whole seconds, rounded up; the X-RateLimit reset a Unix time in ms).
func (b *bucketLimiter) fields(h http.Header, lim *rate.Limiter) {
	now := time.Now()
	tokens := lim.TokensAt(now)
	remaining := int(max(tokens, 0))
	next := time.Duration(0)
	if tokens < float64(b.capacity) {
		next = time.Duration((1 - (tokens - math.Floor(tokens))) / float64(b.capacity) * float64(time.Second))
	}
	reset := strconv.Itoa(int(math.Ceil(next.Seconds())))
	switch b.dialect {
	case "draft-10":
		h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=1`, b.capacity))
		h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%s`, remaining, reset))
	case "older draft":
		h.Set("RateLimit-Limit", fmt.Sprintf("%d, %d;w=1", b.capacity, b.capacity))
		h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
		h.Set("RateLimit-Reset", reset)
	case "X-RateLimit":
		h.Set("X-RateLimit-Limit", strconv.Itoa(b.capacity))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
		h.Set("X-RateLimit-Reset", fmt.Sprintf("%.3f", float64(now.Add(next).UnixMilli())/1000))
	}
}

func (b *bucketLimiter) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(rlRTT / 2)
	b.mu.Lock()
	lim := b.keys[r.Header.Get("Authorization")]
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(float64(b.capacity)/cmp.Or(b.window, time.Second).Seconds()), b.capacity)
		b.keys[r.Header.Get("Authorization")] = lim
	}
	b.mu.Unlock()
	if !lim.Allow() {
		next := (1 - lim.Tokens()) / float64(lim.Limit())
		h := http.Header{"Content-Type": {"application/json"}, "Retry-After": {strconv.Itoa(int(math.Ceil(next)))}}
		b.fields(h, lim)
		time.Sleep(rlRTT / 2)
		return respond(r, http.StatusTooManyRequests, h, []byte(`{"detail":"Too Many Requests"}`)), nil
	}
	resp, err := b.next.RoundTrip(r)
	if err == nil {
		b.fields(resp.Header, lim)
	}
	time.Sleep(rlRTT / 2)
	return resp, err
}

// runRateLimited waits for ids, split among c.pollers Pollers, each
// through tensorpool.NewClient at base with the transport tr(i) under
// its log tap, and returns the figures.
func runRateLimited(t *testing.T, c rlCase, ids []string, base string, tr func(i int) http.RoundTripper, log *rlLog) rlFigures {
	t.Helper()
	var f rlFigures
	f.pollers = make([]rlPoller, c.pollers)
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(c.most, 30*time.Minute))
	defer cancel()
	var wg sync.WaitGroup
	per := len(ids) / c.pollers
	for i := range c.pollers {
		hc := &http.Client{Transport: rlTap{log, i, tr(i)}}
		var cl wait.Client
		cl, err := tensorpool.NewClient(tensorpool.WithAPIKey(cmp.Or(c.key, tensorpooltest.DefaultAPIKey)), tensorpool.WithBaseURL(base),
			tensorpool.WithInsecureHTTP(), tensorpool.WithHTTPClient(hc))
		if c.raw {
			cl, err = gen.NewClient(base, gen.WithHTTPClient(hc), gen.WithRequestEditorFn(authEditor))
		}
		if err != nil {
			t.Fatal(err)
		}
		mine := ids[i*per : (i+1)*per]
		var opts []wait.Option
		if c.concurrency > 0 {
			opts = append(opts, wait.WithConcurrency(c.concurrency))
		}
		delay := time.Duration(rand.Int64N(int64(c.stagger) + 1))
		wg.Go(func() {
			time.Sleep(delay)
			_, err := wait.New(cl, opts...).WaitAll(ctx, mine...)
			failed := 0
			if err != nil {
				failed = len(err.(interface{ Unwrap() []error }).Unwrap())
				var we *wait.Error
				if errors.As(err, &we) {
					t.Logf("poller %d: %d waits failed, the first: %v", i, failed, we)
				}
			}
			log.mu.Lock()
			f.pollers[i].completed, f.gaveUp = len(mine)-failed, f.gaveUp+failed
			f.pollers[i].done = time.Since(log.start)
			log.mu.Unlock()
		})
	}
	wg.Wait()
	f.done = time.Since(log.start)

	log.mu.Lock()
	defer log.mu.Unlock()
	f.early = log.early
	contention := f.done
	for _, p := range f.pollers {
		contention = min(contention, p.done)
	}
	bin := c.per()
	secs := int(f.done/bin) + 1
	accepted := make([]int, secs)
	for _, p := range log.polls {
		f.sent++
		pf := &f.pollers[p.poller]
		pf.sent++
		if p.at >= c.settle() {
			f.settledSent++
		}
		if p.refused {
			f.refused++
			pf.refused++
			if p.at >= c.settle() {
				f.settledRefused++
			}
			continue
		}
		pf.accepted++
		if p.at < contention {
			pf.contended++
		}
		accepted[int(p.at/bin)]++
	}
	for _, p := range f.pollers {
		f.completed += p.completed
	}
	// Demand in window s: the ids not yet seen COMPLETED, each polled every
	// rlHint; the capacity used is counted over the windows it reaches the
	// capacity.
	var window, got int
	for s := range secs {
		at := log.start.Add(time.Duration(s) * bin)
		outstanding := 0
		for _, id := range ids {
			if d, ok := log.detected[id]; !ok || d.After(at) {
				outstanding++
			}
		}
		if float64(outstanding)/rlHint.Seconds() >= c.rate() {
			window++
			got += accepted[s]
		}
	}
	f.used = float64(got) / float64(max(window*c.capacity, 1))
	return f
}

// runBucket runs c against the token-bucket limiter in virtual time.
func runBucket(t *testing.T, c rlCase, pending time.Duration) rlFigures {
	var f rlFigures
	synctest.Test(t, func(t *testing.T) {
		ls := newLightServer(hint{d: rlHint, form: tensorpooltest.RetryAfterSeconds})
		log := newRLLog()
		ids := make([]string, c.ids)
		for i := range ids {
			ids[i] = ls.add(tensorpooltest.Succeed(pending/2, pending-pending/2))
			log.complete[ids[i]] = time.Now().Add(pending)
		}
		var lim http.RoundTripper = &bucketLimiter{next: ls, capacity: c.capacity, window: c.window, dialect: c.dialect, keys: map[string]*rate.Limiter{}}
		if c.limiter != "" {
			lim = &windowLimiter{next: ls, moving: c.limiter == "moving window", amount: c.capacity, window: c.per(), headers: c.headers,
				keys: map[string]*windowKey{}}
		}
		f = runRateLimited(t, c, ids, tensorpooltest.InProcessURL, func(int) http.RoundTripper { return lim }, log)
	})
	return f
}

// TestBenchRateLimit runs every case against the token bucket (virtual
// time) and against nginx's limit_req (real time, on loopback; skipped
// when nginx is not installed: `make bench` installs it), writes the
// table, and checks the goals of issue 21.
func TestBenchRateLimit(t *testing.T) {
	w := measure(t)
	fmt.Fprintf(w, "## Under the API's rate limiter, does every wait complete, politely?\n\n"+
		"Each request PENDING with `Retry-After: 2` for %s, then COMPLETED; one `WaitAll` per Poller (an equal share of the ids), "+
		"through `tensorpool.NewClient`, behind a limiter per API key (capacity r/s, burst as large) that refuses with 429 and "+
		"`Retry-After: 1`; demand (ids ÷ 2 s) is 10 × the capacity. The token bucket (`golang.org/x/time/rate`) runs in virtual "+
		"time with a %v round trip; nginx `limit_req` (Debian's nginx, started by the test with a temporary config: per-key zone, "+
		"`burst`, `nodelay`, `limit_req_status 429`, `Retry-After` added) in real time on loopback, in front of `tensorpooltest`. "+
		"*Refused, settled*: after the first %s. *Capacity used*: accepted ÷ capacity over the seconds in which the ids still "+
		"waiting ask for at least the capacity.\n\n"+
		"Goals (issue 21): every id completes, 0 waits given up, ≤ 5 %% refused once settled and ≤ 10 %% overall, ≥ 80 %% of the "+
		"capacity used, 0 polls earlier than a Retry-After; with four Pollers, each within ±30 %% of a fair share. Gated for one "+
		"Poller; four Pollers' are reported (issue 37 gates their fairness over 100 runs, below).\n\n", *rlPending, rlRTT, rlSettle)
	row(w, "limiter", "ids", "capacity", "Pollers", "completed", "given up", "refused", "refused, settled", "capacity used", "all done", "early", "goals")
	row(w, "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---")
	var shares []string
	for _, lim := range rlLimiters {
		for _, c := range rlCases {
			if *rlOnly >= 0 && c != rlCases[*rlOnly] || !*rlNginx && lim != "token bucket" {
				continue
			}
			var f rlFigures
			if lim == "token bucket" {
				f = runBucket(t, c, *rlPending)
			} else if f = runNginx(t, c, *rlPending); f.sent == 0 {
				continue
			}
			name := fmt.Sprintf("%s, %d ids, %d r/s, %d Pollers", lim, c.ids, c.capacity, c.pollers)
			ok := f.met(c)
			for i, share := range f.shares() {
				ok = ok && (c.pollers == 1 || share >= 0.7 && share <= 1.3)
				if p := f.pollers[i]; c.pollers > 1 {
					shares = append(shares, fmt.Sprintf("| %s | %d | %d | %d | %s | %s × |", name, i+1, p.completed, p.sent,
						pct(float64(p.refused)/float64(max(p.sent, 1))), num(share)))
				}
			}
			row(w, lim, c.ids, c.capacity, c.pollers, f.completed, f.gaveUp, pct(f.refusedShare()), pct(f.settledShare()),
				pct(f.used), secs(f.done), f.early, gate(t, c.pollers == 1, ok, name))
		}
	}
	if *rlOnly < 0 {
		fmt.Fprintf(w, "\nOther capacities, one Poller, token bucket, same demand (10 × the capacity): reported, not held to the goals.\n\n")
		row(w, "capacity", "ids", "completed", "given up", "refused", "refused, settled", "capacity used", "all done", "early")
		row(w, "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
		for _, c := range rlOther {
			f := runBucket(t, c, *rlPending)
			row(w, c.capacity, c.ids, f.completed, f.gaveUp, pct(f.refusedShare()), pct(f.settledShare()), pct(f.used), secs(f.done), f.early)
		}
		// One run's shares depend on its jitter: the spread over rlRepeat runs.
		fmt.Fprintf(w, "\nFour Pollers, token bucket, %d runs each (starts within 10 ms and jitter differ): runs in which every Poller is within ±30 %% of a fair share, and the range of shares.\n\n", rlRepeat)
		row(w, "ids", "capacity", "runs within ±30 %", "shares, min", "shares, max", "refused, max")
		row(w, "---:", "---:", "---:", "---:", "---:", "---:")
		for _, c := range rlCases {
			if c.pollers == 1 {
				continue
			}
			within, lo, hi, refused := 0, 10.0, 0.0, 0.0
			for range rlRepeat {
				f := runBucket(t, c, *rlPending)
				sh := f.shares()
				lo, hi, refused = min(lo, slices.Min(sh)), max(hi, slices.Max(sh)), max(refused, f.refusedShare())
				if slices.Min(sh) >= 0.7 && slices.Max(sh) <= 1.3 {
					within++
				}
			}
			row(w, c.ids, c.capacity, fmt.Sprintf("%d of %d", within, rlRepeat), num(lo), num(hi), pct(refused))
		}
	}
	fmt.Fprintf(w, "\nFour Pollers on one key: each one's completions, requests, refusals and share of the requests accepted while all four still had ids to wait for "+
		"(1 × is a fair share).\n\n")
	row(w, "run", "Poller", "completed", "requests", "refused", "share")
	row(w, "---", "---:", "---:", "---:", "---:", "---:")
	for _, s := range shares {
		fmt.Fprintln(w, s)
	}
	before, err := os.ReadFile("testdata/ratelimit-before.md")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "\n%s\n", before)
}

func pct(v float64) string { return num(100*v) + " %" }

// TestRateLimitGoals: in virtual time, the gated goals of issue 37 that one
// run checks: issue 21's for one Poller, through a raw gen client too; no
// pace without a limiter; the stated limits at 5 and 50 r/s in each
// dialect; the 200 r/s edge. Four Pollers started together (within 10 ms)
// at 10 r/s are each within ±30 % of a fair share in most of fairRuns runs
// (make bench measures 100 at a time); the rest of their figures, and 50
// r/s, are logged, not checked: issue 37 reports them.
func TestRateLimitGoals(t *testing.T) {
	for _, c := range append(rlCases, rlCase{ids: 200, capacity: 10, pollers: 1, raw: true}) {
		runs, fair := 1, 0
		if c.pollers > 1 {
			runs = fairRuns
		}
		for range runs {
			f := runBucket(t, c, time.Minute)
			report := t.Errorf
			if c.pollers > 1 {
				report = t.Logf
			}
			if !f.met(c) {
				report("%+v: %d completed, %d given up, %.1f %% refused (%.1f %% settled), %.0f %% used, %d early; want issue 21's goals",
					c, f.completed, f.gaveUp, 100*f.refusedShare(), 100*f.settledShare(), 100*f.used, f.early)
			}
			if sh := f.shares(); slices.Min(sh) >= 0.7 && slices.Max(sh) <= 1.3 {
				fair++
			} else {
				t.Logf("%+v: shares %.2f", c, sh)
			}
		}
		if c.pollers > 1 && c.capacity == 10 && 2*fair <= fairRuns {
			t.Errorf("%+v: every Poller within ±30 %% of a fair share in %d of %d runs; want most", c, fair, fairRuns)
		}
	}
	for _, d := range rlDialects {
		for _, c := range statedCases[1:] { // 1 r/s is reported
			c.dialect = d
			if f := runBucket(t, c, time.Minute); f.completed != c.ids || f.refusedShare() > 0.01 || f.used < 0.90 {
				t.Errorf("%+v: %d completed, %.2f %% refused, %.1f %% used; want all, ≤ 1 %%, ≥ 90 %%", c, f.completed, 100*f.refusedShare(), 100*f.used)
			}
		}
	}
	if c := edgeCases[1]; c.capacity == 200 {
		if f := runBucket(t, c, time.Minute); f.completed != c.ids || f.used < 0.90 {
			t.Errorf("%+v: %d completed, %.1f %% used; want all, ≥ 90 %%", c, f.completed, 100*f.used)
		}
	}
	for _, n := range freeIDs {
		if f := runFree(t, n); f.P99 > freeGoal || f.LastFirst > time.Second {
			t.Errorf("no limiter, %d ids: last first poll %v, detection delay p99 %v; want ≤ 1 s, ≤ %v", n, f.LastFirst, f.P99, freeGoal)
		}
	}
}

// TestRateLimitNginx: behind nginx's limit_req (200 ids, 10 r/s, one
// Poller, 20 s PENDING: about 40 s), every goal is met. make check-peers
// runs it (TENSORPOOL_NGINX=1, nginx installed by .ci/setup peers); without
// that variable it skips, so make check needs only Go.
func TestRateLimitNginx(t *testing.T) {
	if os.Getenv("TENSORPOOL_NGINX") == "" {
		t.Skip("make check-peers runs it (TENSORPOOL_NGINX=1, with nginx installed)")
	}
	c := rlCases[0]
	f := runNginx(t, c, 20*time.Second)
	t.Logf("%d completed, %d given up, %.1f %% refused (%.1f %% settled), %.0f %% used, %d early, all done in %v",
		f.completed, f.gaveUp, 100*f.refusedShare(), 100*f.settledShare(), 100*f.used, f.early, f.done.Round(time.Second))
	if !f.met(c) {
		t.Errorf("%+v: %d completed, %d given up, %.1f %% refused (%.1f %% settled), %.0f %% used, %d early; want issue 21's goals",
			c, f.completed, f.gaveUp, 100*f.refusedShare(), 100*f.settledShare(), 100*f.used, f.early)
	}
}

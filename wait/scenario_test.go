package wait

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/retryafter"

	"github.com/tensorpool/tensorpool-go/gen"
)

// A scenario is a deterministic server-side life of one or more requests,
// played in virtual time. Scenarios are data so that later benchmarks can
// add to the set and run other pollers against it.
type scenario struct {
	name  string
	done  []time.Duration                       // per request: when it reaches its final status
	final gen.RequestStatus                     // final status of every request
	hint  func(now time.Time) (ra, date string) // Retry-After and Date of a running response
	fault func(poll int) int                    // HTTP status to answer poll n (1-based) of a request with, 0 for none
}

func secs(n float64) func(time.Time) (string, string) {
	return func(now time.Time) (string, string) {
		return strconv.FormatFloat(n, 'f', -1, 64), now.UTC().Format(http.TimeFormat)
	}
}

var scenarios = []scenario{
	{name: "steady-5s", done: []time.Duration{47 * time.Second}, hint: secs(5)},
	{name: "multi-minute-120s", done: []time.Duration{9*time.Minute + 10*time.Second}, hint: secs(120)},
	{name: "decimal-2.5s", done: []time.Duration{20 * time.Second}, hint: secs(2.5)},
	{name: "http-date-30s", done: []time.Duration{95 * time.Second}, hint: func(now time.Time) (string, string) {
		return now.Add(30 * time.Second).UTC().Format(http.TimeFormat), now.UTC().Format(http.TimeFormat)
	}},
	{name: "http-date-skewed-server-clock", done: []time.Duration{60 * time.Second}, hint: func(now time.Time) (string, string) {
		server := now.Add(-time.Hour)
		return server.Add(20 * time.Second).UTC().Format(time.RFC850), server.UTC().Format(http.TimeFormat)
	}},
	{name: "no-header", done: []time.Duration{75 * time.Second}, hint: func(time.Time) (string, string) { return "", "" }},
	{name: "transient-503", done: []time.Duration{40 * time.Second}, hint: secs(5),
		fault: func(n int) int { return map[int]int{3: 503, 4: 502}[n] }},
	{name: "failed-after-31s", done: []time.Duration{31 * time.Second}, final: gen.RequestStatusFAILED, hint: secs(3)},
	{name: "attach-3-clusters", done: []time.Duration{33 * time.Second, 97 * time.Second, 151 * time.Second}, hint: secs(10)},
}

// simEngine plays a scenario and measures every poller against the server's
// own rules: a poll before the time the previous answer allowed is early.
type simEngine struct {
	sc    scenario
	start time.Time
	mu    sync.Mutex
	polls map[string]int
	next  map[string]time.Time // earliest allowed poll, from the last hint
	seen  map[string]time.Time // when the final status was first served
	early int
	total int
}

func (e *simEngine) RoundTrip(req *http.Request) (*http.Response, error) {
	id := strings.TrimPrefix(req.URL.Path, "/request/info/")
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.total++
	e.polls[id]++
	if now.Before(e.next[id]) {
		e.early++
	}
	delete(e.next, id)
	i, _ := strconv.Atoi(strings.TrimPrefix(id, "r"))
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: req}
	st := gen.RequestStatusPROCESSING
	if el := now.Sub(e.start); el >= e.sc.done[i] {
		st = gen.RequestStatusCOMPLETED
		if e.sc.final != "" {
			st = e.sc.final
		}
		if _, ok := e.seen[id]; !ok {
			e.seen[id] = now
		}
	}
	body, _ := json.Marshal(gen.RequestInfoResponse{RequestID: id, Status: st, RequestType: gen.RequestTypeSTORAGEATTACH})
	if e.sc.fault != nil {
		if code := e.sc.fault(e.polls[id]); code != 0 {
			resp.StatusCode, body = code, []byte(`{"detail":"busy"}`)
			resp.Header.Set("Retry-After", "10")
			e.next[id] = now.Add(10 * time.Second)
		}
	}
	if resp.StatusCode == 200 && !st.Valid() || st == gen.RequestStatusPROCESSING && resp.StatusCode == 200 {
		ra, date := e.sc.hint(now)
		if ra != "" {
			resp.Header.Set("Retry-After", ra)
			resp.Header.Set("Date", date)
			if d, ok := retryafter.Parse(resp.Header, now); ok {
				e.next[id] = now.Add(d)
			}
		}
	}
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp, nil
}

// result is what one poller achieved on one scenario.
type result struct {
	polls, early int
	latency      time.Duration // last final status served minus when it was reached (max over requests)
	verdict      bool          // the poller reached the right verdict for every request
}

// poller is anything that waits for a scenario's requests.
type pollerFunc func(ctx context.Context, c *gen.Client, ids []string) error

func waitPoller(seed uint64) pollerFunc {
	return func(ctx context.Context, c *gen.Client, ids []string) error {
		p := New(c)
		r := rand.New(rand.NewPCG(seed, seed))
		var mu sync.Mutex
		p.rand = func() float64 { mu.Lock(); defer mu.Unlock(); return r.Float64() }
		_, err := p.WaitAll(ctx, ids...)
		return err
	}
}

// cliPoller is the official tp CLI's rule: sequential, stop at the first
// failure; any non-200 or undecodable body ends the wait; sleep
// max(1, int(Retry-After)) seconds, or 2 s when the header is absent or not
// an integer.
func cliPoller(ctx context.Context, c *gen.Client, ids []string) error {
	for _, id := range ids {
		for {
			resp, err := c.GetRequestInfo(ctx, id)
			if err != nil {
				return err
			}
			parsed, err := gen.ParseGetRequestInfoResponse(resp)
			if err != nil || resp.StatusCode != 200 || parsed.JSON200 == nil {
				return fmt.Errorf("poll failed: %d", resp.StatusCode)
			}
			st := parsed.JSON200.Status
			if st == gen.RequestStatusFAILED {
				return fmt.Errorf("request failed")
			}
			if st == gen.RequestStatusCOMPLETED {
				break
			}
			delay := 2 * time.Second
			if v := strings.TrimSpace(resp.Header.Get("Retry-After")); v != "" {
				if n, err := strconv.Atoi(v); err == nil { // Python int(): sign allowed, no fraction
					delay = time.Duration(max(1, n)) * time.Second
				}
			}
			time.Sleep(delay)
		}
	}
	return nil
}

// run plays sc against pf in a synctest bubble.
func (sc scenario) run(t *testing.T, pf pollerFunc) result {
	var res result
	synctest.Test(t, func(t *testing.T) {
		e := &simEngine{sc: sc, start: time.Now(), polls: map[string]int{}, next: map[string]time.Time{}, seen: map[string]time.Time{}}
		c, err := gen.NewClient("https://engine.test/", gen.WithHTTPClient(&http.Client{Transport: e}))
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(sc.done))
		for i := range ids {
			ids[i] = fmt.Sprint("r", i)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		err = pf(ctx, c, ids)
		res = result{polls: e.total, early: e.early, verdict: (err == nil) == (sc.final != gen.RequestStatusFAILED) && len(e.seen) > 0}
		for i, id := range ids {
			if at, ok := e.seen[id]; ok {
				res.latency = max(res.latency, at.Sub(e.start.Add(sc.done[i])))
			} else if sc.final != gen.RequestStatusFAILED {
				res.verdict = false
			}
		}
	})
	return res
}

func TestScenariosNeverEarly(t *testing.T) {
	for _, sc := range scenarios {
		for seed := range uint64(5) {
			r := sc.run(t, waitPoller(seed))
			if r.early != 0 || !r.verdict {
				t.Errorf("%s seed %d: %+v; want no early polls and the right verdict", sc.name, seed, r)
			}
		}
	}
}

// BenchmarkScenarios runs the scenario set in virtual time for this package
// and for the tp CLI's rule, and reports per scenario: polls issued, polls
// earlier than the server allowed, detection latency (seconds from the
// request's final status to the poll that saw it; for several requests the
// worst) and whether the right verdict was reached.
func BenchmarkScenarios(b *testing.B) {
	for _, sc := range scenarios {
		for _, impl := range []struct {
			name string
			pf   pollerFunc
		}{{"wait", waitPoller(1)}, {"tp-cli", cliPoller}} {
			b.Run(sc.name+"/"+impl.name, func(b *testing.B) {
				var r result
				for b.Loop() {
					r = inBubble(b, sc, impl.pf)
				}
				b.ReportMetric(float64(r.polls), "polls")
				b.ReportMetric(float64(r.early), "early")
				b.ReportMetric(r.latency.Seconds(), "latency-s")
				verdict := 0.0
				if r.verdict {
					verdict = 1
				}
				b.ReportMetric(verdict, "verdict")
			})
		}
	}
}

// inBubble runs a scenario from a benchmark: synctest.Test needs a
// *testing.T, which testing.RunTests provides.
func inBubble(b *testing.B, sc scenario, pf pollerFunc) result {
	var r result
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "scenario", F: func(t *testing.T) { r = sc.run(t, pf) }}})
	if !ok {
		b.Fatal("scenario failed")
	}
	return r
}

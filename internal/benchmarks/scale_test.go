package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// A waitAller waits for many request ids at once and reports the bound on
// requests in flight it promises.
type waitAller struct {
	name    string
	bound   int
	waitAll func(ctx context.Context, c *gen.ClientWithResponses, ids []string) error
	// only, if set, restricts the runs to the 10,000 ids against the light
	// responder: a variant shown where it matters.
	only bool
}

// The scale runs: every id is a storage destroy whose lifecycle lasts 10-60
// s (uniform, fixed seed), polled while the server asks for Retry-After 5 s;
// each answer takes scaleRTT of virtual time, so requests overlap and the
// in-flight bound matters.
const (
	scaleHint = 5 * time.Second
	scaleRTT  = 20 * time.Millisecond
)

func scaleLifecycles(n int) []tensorpooltest.Lifecycle {
	r := rand.New(rand.NewPCG(scenarioSeed, uint64(n)))
	ls := make([]tensorpooltest.Lifecycle, n)
	for i := range ls {
		d := 10*time.Second + time.Duration(r.Int64N(int64(50*time.Second))).Round(time.Millisecond)
		ls[i] = tensorpooltest.Succeed(d/4, d-d/4)
	}
	return ls
}

// delayed makes every answer of a backend take d of (virtual) time.
type delayed struct {
	backend
	d time.Duration
}

// The scale runs never cancel a request, so a plain Sleep does: the
// cheapest wait, to keep the harness's share of CPU per poll small.
func (s delayed) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(s.d)
	return s.backend.RoundTrip(r)
}

// scaleFigures is one WaitAll run.
type scaleFigures struct {
	polls, errors         int
	maxInflight           int
	peakHeap, waitingHeap uint64 // bytes
	stacks                uint64 // bytes, at the same moment as waitingHeap
	peakGoroutines        int
	cpu                   time.Duration // user+system CPU of the process during WaitAll (not the setup)
	peakRSS               uint64        // bytes, if the kernel lets us reset the high-water mark
	startRSS              uint64        // bytes: the resident set when the run began
	virtual               time.Duration // from the first poll to WaitAll's return
	// latencies: per id, from its completion to the first answer that
	// showed it (sorted).
	latencies []time.Duration
}

var heapMetrics = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/stacks:bytes"},
	{Name: "/sched/goroutines:goroutines"},
}

// peaks samples the heap and the goroutine count, keeping the largest.
type peaks struct {
	mu         sync.Mutex
	heap       uint64
	goroutines int
}

func (p *peaks) sample() {
	s := make([]metrics.Sample, len(heapMetrics))
	copy(s, heapMetrics)
	metrics.Read(s)
	p.mu.Lock()
	p.heap = max(p.heap, s[0].Value.Uint64())
	p.goroutines = max(p.goroutines, int(s[2].Value.Uint64()))
	p.mu.Unlock()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the kernel's high-water mark of the process's
// resident set (Linux); it reports whether it could.
func resetPeakRSS() bool { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil }

// peakRSS is VmHWM of /proc/self/status, in bytes.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// runScale creates n requests on a backend inside a bubble and waits for
// all of them with w.
func runScale(t *testing.T, w waitAller, n int, kind backendKind) scaleFigures {
	ls := scaleLifecycles(n)
	var f scaleFigures
	var pk peaks
	debug.FreeOSMemory() // what earlier runs left must not count
	rssOK := resetPeakRSS()
	if rssOK {
		f.startRSS = peakRSS()
	}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // real time, outside the bubble
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				pk.sample()
			}
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		start := hint{d: scaleHint, form: tensorpooltest.RetryAfterSeconds}
		var be backend
		var ids []string
		if kind == lightBackend {
			ls2 := newLightServer(start)
			for _, l := range ls {
				ids = append(ids, ls2.add(l))
			}
			be = ls2
		} else {
			be, ids = newEngineRequests(t, start, ls)
		}
		obs := newObserver(delayed{be, scaleRTT}, nil)
		t0 := time.Now()
		for i, id := range ids {
			obs.track(id, t0.Add(lifecycleEnd(ls[i])))
		}
		c := newClient(t, obs)

		// While every id waits: live heap and stacks after a GC, once the
		// first poll of every id has had time to go out.
		measured := make(chan struct{})
		go func() {
			defer close(measured)
			time.Sleep(5 * time.Second)
			runtime.GC()
			s := make([]metrics.Sample, len(heapMetrics))
			copy(s, heapMetrics)
			metrics.Read(s)
			f.waitingHeap, f.stacks = s[0].Value.Uint64(), s[1].Value.Uint64()
			pk.sample()
		}()
		// In virtual time too: the real-time sampler cannot see inside a
		// virtual instant.
		ctx, cancel := context.WithCancel(context.Background())
		vsampled := make(chan struct{})
		go func() {
			defer close(vsampled)
			for ctx.Err() == nil {
				pk.sample()
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}()
		cpu0 := cpuTime()
		if err := w.waitAll(context.Background(), c, ids); err != nil {
			f.errors++
			t.Logf("%s, %d ids: %v", w.name, n, err)
		}
		f.cpu = cpuTime() - cpu0
		f.virtual = time.Since(t0)
		cancel()
		<-vsampled
		<-measured
		f.polls, f.maxInflight = obs.polls, obs.maxIn
		for _, id := range ids {
			if r := obs.ids[id]; !r.detected.IsZero() {
				f.latencies = append(f.latencies, r.detected.Sub(r.done))
			}
		}
		f.latencies = sortedCopy(f.latencies)
	})
	close(stop)
	<-sampled
	f.peakHeap, f.peakGoroutines = pk.heap, pk.goroutines
	if rssOK {
		f.peakRSS = peakRSS()
	}
	return f
}

func (f scaleFigures) report(b *testing.B, n, bound int) {
	const mib = 1 << 20
	b.ReportMetric(float64(n), "ids")
	b.ReportMetric(float64(scaleRTT.Milliseconds()), "rtt-ms")
	b.ReportMetric(scaleHint.Seconds(), "hint-s")
	b.ReportMetric(float64(f.polls), "polls")
	b.ReportMetric(float64(f.peakHeap)/mib, "peak-heap-MiB")
	b.ReportMetric(float64(f.waitingHeap)/mib, "heap-waiting-MiB")
	b.ReportMetric(float64(f.stacks)/mib, "stacks-MiB")
	if f.peakRSS > 0 {
		b.ReportMetric(float64(f.peakRSS)/mib, "peak-rss-MiB")
		b.ReportMetric(float64(f.startRSS)/mib, "start-rss-MiB")
	}
	b.ReportMetric(float64(f.peakGoroutines), "goroutines-peak")
	b.ReportMetric(float64(f.maxInflight), "max-inflight")
	b.ReportMetric(float64(bound), "inflight-bound")
	b.ReportMetric(float64(f.cpu.Microseconds())/float64(max(f.polls, 1)), "cpu-us/poll")
	b.ReportMetric(f.virtual.Seconds(), "virtual-s")
	b.ReportMetric(quantile(f.latencies, 0.50).Seconds(), "latency-p50-s")
	b.ReportMetric(quantile(f.latencies, 0.99).Seconds(), "latency-p99-s")
	b.ReportMetric(quantile(f.latencies, 1).Seconds(), "latency-max-s")
	b.ReportMetric(float64(f.errors), "errors")
}

// scaleRuns are the sizes measured against each backend: the engine's
// validation (about 0.45 ms of CPU per poll) makes 10,000 ids too slow for
// `make bench`, so it runs the two smaller sizes, for comparison.
var scaleRuns = []struct {
	kind backendKind
	name string
	ids  []int
}{
	{lightBackend, "light", []int{100, 1000, 10000}},
	{engineBackendKind, "engine", []int{100, 1000}},
}

var scaleOnly = flag.String("scale.only", "", "run only the scale measurement of this name (e.g. Scale/responder=light/waiter=wait/ids=10000), to profile it")

// TestScale measures WaitAll over 100 to 10,000 ids in virtual time.
func TestScale(t *testing.T) {
	needFigures(t)
	for _, w := range scaleWaiters() {
		for _, run := range scaleRuns {
			for _, n := range run.ids {
				if w.only && (run.kind != lightBackend || n != 10000) {
					continue
				}
				name := fmt.Sprintf("Scale/responder=%s/waiter=%s/ids=%d", run.name, w.name, n)
				if *scaleOnly != "" && name != *scaleOnly {
					continue
				}
				var f scaleFigures
				res := testing.Benchmark(func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						f = runScale(t, w, n, run.kind)
					}
					f.report(b, n, w.bound)
				})
				printBench(name, res)
			}
		}
	}
}

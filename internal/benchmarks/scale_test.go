package benchmarks

import (
	"context"
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

// A waitAller waits for many request ids at once.
type waitAller struct {
	name    string
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
	polls          int
	peakHeap       uint64 // bytes
	stacks         uint64 // bytes, while every id waits
	peakGoroutines int
	cpu            time.Duration // user+system CPU of the process during WaitAll (not the setup)
	peakRSS        uint64        // bytes, if the kernel lets us reset the high-water mark
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

// mib is a size in a table; 0, not measured (peak RSS off Linux), is "–".
func mib(b uint64) string {
	if b == 0 {
		return "–"
	}
	return num(float64(b)/(1<<20)) + " MiB"
}

// runScale creates n requests on a backend inside a bubble and waits for
// all of them with w.
func runScale(t *testing.T, w waitAller, n int, kind backendKind) scaleFigures {
	ls := scaleLifecycles(n)
	var f scaleFigures
	var pk peaks
	debug.FreeOSMemory() // what earlier runs left must not count
	rssOK := resetPeakRSS()
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

		// While every id waits: goroutine stacks after a GC, once the first
		// poll of every id has had time to go out.
		measured := make(chan struct{})
		go func() {
			defer close(measured)
			time.Sleep(5 * time.Second)
			runtime.GC()
			s := make([]metrics.Sample, len(heapMetrics))
			copy(s, heapMetrics)
			metrics.Read(s)
			f.stacks = s[1].Value.Uint64()
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
			t.Errorf("%s, %d ids: %v", w.name, n, err)
		}
		f.cpu = cpuTime() - cpu0
		cancel()
		<-vsampled
		<-measured
		f.polls = obs.polls
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

// TestBenchScale measures WaitAll over 100 to 10,000 ids in virtual time.
func TestBenchScale(t *testing.T) {
	w := measure(t)
	fmt.Fprintf(w, "## How does WaitAll scale?\n\n"+
		"One WaitAll over n request ids in virtual time (lifecycles of 10-60 s, Retry-After %s, %d ms per answer), "+
		"against the light responder or the validating engine. *Memory*: peak heap + goroutine stacks. "+
		"*CPU/poll*: the whole process, responder included.\n\n", secs(scaleHint), scaleRTT.Milliseconds())
	row(w, "responder", "waiter", "ids", "polls", "latency p99", "memory", "peak RSS", "goroutines", "CPU/poll")
	row(w, "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	var big scaleFigures // 10,000 ids, the light responder, wait's defaults
	for _, wa := range scaleWaiters() {
		for _, run := range scaleRuns {
			for _, n := range run.ids {
				if wa.only && (run.kind != lightBackend || n != 10000) {
					continue
				}
				f := runScale(t, wa, n, run.kind)
				if wa.name == "wait" && run.kind == lightBackend && n == 10000 {
					big = f
				}
				row(w, run.name, wa.name, n, f.polls, secs(quantile(f.latencies, 0.99)),
					mib(f.peakHeap+f.stacks), mib(f.peakRSS), f.peakGoroutines,
					num(float64(f.cpu.Microseconds())/float64(max(f.polls, 1)))+" µs")
			}
		}
	}
	mem, cpu := big.peakHeap+big.stacks, float64(big.cpu.Microseconds())/float64(max(big.polls, 1))
	fmt.Fprintf(w, "\nGoals at 10,000 ids: < 100 MiB: %s (%s, peak RSS %s); CPU per poll < 50 µs: %s (%s µs).\n\n",
		verdict(t, big.polls > 0 && mem < 100<<20, "10,000 ids in < 100 MiB"), mib(mem), mib(big.peakRSS),
		verdict(t, big.polls > 0 && cpu < 50, "CPU per poll < 50 µs"), num(cpu))
}

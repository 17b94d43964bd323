package benchmarks

import (
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// The measurements in virtual time run as tests, not Benchmark functions:
// testing/synctest.Test needs a live *testing.T, and a *testing.B has none
// (benchmarks run after every test has finished). So each measurement is a
// Test that calls testing.Benchmark, runs synctest.Test(t, ...) inside
// every b.Loop iteration, reports its figures with b.ReportMetric, and
// prints the result in the format of `go test -bench`, which benchmd and
// benchstat read. ns/op, B/op and allocs/op there are real: wall time and
// memory of one whole iteration. The tests only run with -figures, which
// `make bench` passes; `go test ./...` skips them.
var figures = flag.Bool("figures", false, "run the measurements in virtual time (economy, no header, storm, scale); make bench sets it")

func needFigures(t *testing.T) {
	t.Helper()
	if !*figures {
		t.Skip("a measurement: `make bench` runs it (go test -figures)")
	}
}

// printBench writes a result line in `go test -bench` format.
func printBench(name string, r testing.BenchmarkResult) {
	fmt.Fprintf(os.Stdout, "Benchmark%s-%d\t%s\t%s\n", name, runtime.GOMAXPROCS(0), r.String(), r.MemString())
}

// newClient is the generated client over an in-process transport, sending
// the engine's API key.
func newClient(tb testing.TB, rt http.RoundTripper) *gen.ClientWithResponses {
	c, err := gen.NewClientWithResponses(tensorpooltest.InProcessURL,
		gen.WithHTTPClient(&http.Client{Transport: rt}), gen.WithRequestEditorFn(authEditor))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// quantile is the nearest-rank q-quantile of sorted values.
func quantile[T any](sorted []T, q float64) T {
	var zero T
	if len(sorted) == 0 {
		return zero
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func sortedCopy[T int | int64 | float64 | time.Duration](v []T) []T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// metricName keeps a unit free of white space, which the format forbids.
func metricName(s string) string { return strings.ReplaceAll(s, " ", "-") }

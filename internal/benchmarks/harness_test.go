package benchmarks

import (
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// The measurements are tests named TestBench*, not Benchmark functions:
// testing/synctest.Test needs a *testing.T. Each one computes its figures,
// appends a Markdown section (a table and its goals) to the file named by
// -figures, and fails when a goal is missed. Without -figures they skip, so
// `go test ./...` stays quick. `make bench` runs them all in one process, in
// the order go test runs them (by file name, then by position in the file),
// and puts the file into BENCHMARKS.md.
var figures = flag.String("figures", "", "run the measurements (TestBench*) and append their Markdown to this file; make bench sets it")

// measure skips t unless -figures is set, and returns where t writes its
// section.
func measure(t *testing.T) io.Writer {
	t.Helper()
	if *figures == "" {
		t.Skip("a measurement: `make bench` runs it (go test -figures FILE)")
	}
	f, err := os.OpenFile(*figures, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// verdict is a goal's cell, and fails t when the goal is missed: the table
// and the test cannot disagree.
func verdict(t *testing.T, met bool, goal string) string {
	t.Helper()
	if !met {
		t.Errorf("goal not met: %s", goal)
		return "**not met**"
	}
	return "**met**"
}

// row writes one row of a Markdown table.
func row(w io.Writer, cells ...any) {
	fmt.Fprint(w, "|")
	for _, c := range cells {
		fmt.Fprintf(w, " %v |", c)
	}
	fmt.Fprintln(w)
}

// num formats a figure with about as many digits as it deserves.
func num(v float64) string {
	switch a := math.Abs(v); {
	case v == math.Trunc(v) || a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// secs is a duration in a table: seconds, as num formats them.
func secs(d time.Duration) string { return num(d.Seconds()) + " s" }

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

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The short file answers each question with one table, links to the data
// file, and says "Not measured" rather than printing an empty table.
func TestWriteSummary(t *testing.T) {
	const out = `BenchmarkClientOverhead/loopback/client=handwritten-2 	 2000	 50000 ns/op	 7925 B/op	 89 allocs/op
BenchmarkClientOverhead/loopback/client=generated-2 	 2000	 52000 ns/op	 8925 B/op	 99 allocs/op
BenchmarkEconomy/strategy=wait-2	 6	 196610846 ns/op	 0 early-polls	 1.1 latency/hint-p99	 100 ops	 900 polls
BenchmarkEconomy/strategy=tp-cli-2	 6	 196610846 ns/op	 12 early-polls	 1.5 latency/hint-p99	 100 ops	 1000 polls
`
	rs, err := parse(strings.NewReader(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeSummary(&buf, machine{command: "make bench", date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}, rs, "BENCHMARKS-data.md")
	s := buf.String()
	for _, want := range []string{
		"[BENCHMARKS-data.md](BENCHMARKS-data.md)",
		"| wait | 9 | 0 |",
		"no more polls than the CLI's rule (tp-cli): **met** (0.90×)",
		"| generated | 52000 | 1.04× | – | – |",
		"## How does WaitAll scale?\n\nNot measured in this run.",
		"## Method",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "\n|---"); n != 2 {
		t.Errorf("%d tables for the two questions measured, want 2:\n%s", n, s)
	}
}

package main

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const out = `goos: linux
BenchmarkClientOverhead/loopback/client=handwritten-2         	    2000	     60299 ns/op	    7925 B/op	      89 allocs/op
BenchmarkClientOverhead/loopback/client=handwritten-2         	    2000	     50000 ns/op	    7925 B/op	      89 allocs/op
BenchmarkClientOverhead/loopback/client=handwritten-2         	    2000	     70000 ns/op	    7925 B/op	      89 allocs/op
=== RUN   TestEconomy
BenchmarkEconomy/strategy=tp-cli-2	       6	 196610846 ns/op	      1189 early-polls	         0 errors	        43.38 latency-max-s
--- PASS: TestEconomy (4.82s)
ok  	x	0.6s
`
	rs, err := parse(strings.NewReader(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("got %d results, want 2", len(rs))
	}
	hw := find(rs, "ClientOverhead/loopback/client=handwritten")
	if m, ok := hw.median("ns/op"); !ok || m != 60299 {
		t.Errorf("median ns/op = %v, %v; want 60299", m, ok)
	}
	cli := find(rs, "Economy/strategy=tp-cli")
	if m, _ := cli.median("early-polls"); m != 1189 {
		t.Errorf("early-polls = %v", m)
	}
	if _, ok := cli.median("nope"); ok {
		t.Error("a metric never reported has a median")
	}
}

func TestPairedRatio(t *testing.T) {
	const out = `BenchmarkClientOverhead/loopback/client=handwritten-2 	1	100 ns/op
BenchmarkClientOverhead/loopback/client=generated-2 	1	105 ns/op
BenchmarkClientOverhead/loopback/client=handwritten-2 	1	200 ns/op
BenchmarkClientOverhead/loopback/client=generated-2 	1	220 ns/op
BenchmarkClientOverhead/loopback/client=handwritten-2 	1	100 ns/op
BenchmarkClientOverhead/loopback/client=generated-2 	1	102 ns/op
`
	rs, err := parse(strings.NewReader(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	gen, hw := find(rs, "ClientOverhead/loopback/client=generated"), find(rs, "ClientOverhead/loopback/client=handwritten")
	// Per round: 1.05, 1.10, 1.02. The ratio of the medians would be 105/100.
	m, lo, hi, ok := pairedRatio(gen, hw, "ns/op")
	if !ok || m != 1.05 || lo != 1.02 || hi != 1.1 {
		t.Errorf("pairedRatio = %v, %v, %v, %v; want 1.05, 1.02, 1.1, true", m, lo, hi, ok)
	}
	gen.samples["ns/op"] = gen.samples["ns/op"][:2]
	if _, _, _, ok := pairedRatio(gen, hw, "ns/op"); ok {
		t.Error("rounds of different counts paired")
	}
}

// TestOverheadReportsEveryClientPerRound: section 2 gives every client the
// median of its per-round ratios to the hand-written call, and a verdict
// for the front door too.
func TestOverheadReportsEveryClientPerRound(t *testing.T) {
	const out = `BenchmarkClientOverhead/loopback/client=handwritten-2 	1	100 ns/op	10 B/op	1 allocs/op
BenchmarkClientOverhead/loopback/client=generated-2 	1	105 ns/op	10 B/op	1 allocs/op
BenchmarkClientOverhead/loopback/client=tensorpool.NewClient-2 	1	108 ns/op	20 B/op	2 allocs/op
BenchmarkClientOverhead/loopback/client=handwritten-2 	1	200 ns/op	10 B/op	1 allocs/op
BenchmarkClientOverhead/loopback/client=generated-2 	1	220 ns/op	10 B/op	1 allocs/op
BenchmarkClientOverhead/loopback/client=tensorpool.NewClient-2 	1	260 ns/op	20 B/op	2 allocs/op
BenchmarkClientOverhead/loopback/client=handwritten-2 	1	100 ns/op	10 B/op	1 allocs/op
BenchmarkClientOverhead/loopback/client=generated-2 	1	102 ns/op	10 B/op	1 allocs/op
BenchmarkClientOverhead/loopback/client=tensorpool.NewClient-2 	1	109 ns/op	20 B/op	2 allocs/op
`
	rs, err := parse(strings.NewReader(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeOverhead(&b, rs, nil)
	// Per round, NewClient: 1.08, 1.30, 1.09 (median 1.09); generated:
	// 1.05, 1.10, 1.02 (median 1.05).
	for _, want := range []string{
		"| loopback | tensorpool.NewClient | 109 | 20 | 2 | 1.09× (1.08–1.30) | 2× | 2× |",
		"| loopback | generated | 105 | 10 | 1 | 1.05× (1.02–1.10) | 1× | 1× |",
		"tensorpool.NewClient ≤ 1.10 × hand-written over loopback: **met** (per round: median 1.09×",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("section 2 lacks %q:\n%s", want, b.String())
		}
	}
}

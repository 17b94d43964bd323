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

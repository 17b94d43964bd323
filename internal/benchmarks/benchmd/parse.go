package main

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A result is one benchmark: every sample of every metric it reported,
// by unit ("ns/op", "B/op", "polls", ...).
type result struct {
	name    string // without "Benchmark" and the -GOMAXPROCS suffix
	samples map[string][]float64
	lines   []string // as printed
}

// median of a metric, and whether the benchmark reported it.
func (r *result) median(unit string) (float64, bool) {
	v := slices.Clone(r.samples[unit])
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// pairedRatio is the median over rounds of r's sample divided by base's
// sample of the same round, with the smallest and largest such ratio. The
// rounds of `make bench` run every client back to back, so a change of load
// on the machine between rounds cancels out of each ratio, which a ratio of
// medians does not guarantee. ok is false unless both have the same number
// of samples.
func pairedRatio(r, base *result, unit string) (median, lo, hi float64, ok bool) {
	if r == nil || base == nil {
		return 0, 0, 0, false
	}
	a, b := r.samples[unit], base.samples[unit]
	if len(a) == 0 || len(a) != len(b) {
		return 0, 0, 0, false
	}
	q := &result{samples: map[string][]float64{}}
	for i := range a {
		q.samples[unit] = append(q.samples[unit], a[i]/b[i])
	}
	median, _ = q.median(unit)
	return median, slices.Min(q.samples[unit]), slices.Max(q.samples[unit]), true
}

// parse reads `go test -bench` output (other lines are skipped) and returns
// the results in order of first appearance.
func parse(rd io.Reader, into []*result) ([]*result, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		var r *result
		for _, x := range into {
			if x.name == name {
				r = x
			}
		}
		if r == nil {
			r = &result{name: name, samples: map[string][]float64{}}
			into = append(into, r)
		}
		r.lines = append(r.lines, line)
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			r.samples[f[i+1]] = append(r.samples[f[i+1]], v)
		}
	}
	return into, sc.Err()
}

// find returns the result named name, or nil.
func find(rs []*result, name string) *result {
	for _, r := range rs {
		if r.name == name {
			return r
		}
	}
	return nil
}

// withPrefix returns the results whose name starts with prefix.
func withPrefix(rs []*result, prefix string) []*result {
	var out []*result
	for _, r := range rs {
		if strings.HasPrefix(r.name, prefix) {
			out = append(out, r)
		}
	}
	return out
}

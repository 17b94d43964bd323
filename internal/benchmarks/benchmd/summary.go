package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// writeSummary renders the short BENCHMARKS.md: one table per question and
// the method in a paragraph. Every figure, breakdown and profile is in the
// data file (write), named by dataName.
func writeSummary(w io.Writer, m machine, rs []*result, dataName string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Benchmarks\n\n")
	p("The short answers. Every figure, the breakdowns by kind of operation, the CPU profiles and the raw results are in ")
	p("[%s](%s). Both files are written by `%s`; do not edit them by hand.\n\n", dataName, dataName, m.command)

	p("## Does package wait poll politely, and see completion soon?\n\n")
	eco := withPrefix(rs, "Economy/strategy=")
	if len(eco) == 0 {
		p("Not measured in this run.\n\n")
	} else {
		p("%s mixed operations in virtual time, each waited for by package wait and by the polling rules of other clients. ", cell(get(eco[0], "ops")))
		p("*Early*: a poll before the server's Retry-After allowed it. *Latency*: from completion to the waiter returning. ")
		p("*÷ hint*: latency over the Retry-After in force at completion.\n\n")
		p("| strategy | polls/op | early polls | latency p50 | latency p99 | latency ÷ hint, p99 |\n")
		p("|---|---:|---:|---:|---:|---:|\n")
		for _, r := range eco {
			p("| %s | %s | %s | %s s | %s s | %s |\n", strings.TrimPrefix(r.name, "Economy/strategy="),
				cell(get(r, "polls")/get(r, "ops")), cell(get(r, "early-polls")),
				cell(get(r, "latency-p50-s")), cell(get(r, "latency-p99-s")), cell(get(r, "latency/hint-p99")))
		}
		p("\n")
		if wait, cli := find(rs, "Economy/strategy=wait"), find(rs, "Economy/strategy=tp-cli"); wait != nil && cli != nil {
			early, ratio := get(wait, "early-polls"), get(wait, "latency/hint-p99")
			wp, cp := get(wait, "polls"), get(cli, "polls")
			p("Goals: no early poll: %s (%s); no more polls than the CLI's rule (tp-cli): %s (%s×); ", verdict(early == 0), cell(early), verdict(wp <= cp), cell(wp/cp))
			clean := get(wait, "latency/hint-p99-clean")
			p("p99 latency ≤ 1.25 × the Retry-After, on the operations without a 429/503 after completion: %s (%s×; over every operation %s×, ",
				verdict(clean <= 1.25), cell(clean), cell(ratio))
			p("as a 429/503 after completion delays every strategy). Operations without a Retry-After are in the data file's own row.\n\n")
		}
	}

	p("## Without a Retry-After, does it notice completion about as soon as the CLI?\n\n")
	if nh := withPrefix(rs, "NoHeader/"); len(nh) == 0 {
		p("Not measured in this run.\n\n")
	} else {
		p("One request id, no Retry-After ever, completing T s after creation; package wait run %s times per T (worst run shown), ", cell(get(nh[0], "runs")))
		p("the official CLI's rule (every 2 s) once. Goals: never more polls than the CLI, never more than 2.5 × its latency.\n\n")
		p("| T | CLI polls | wait polls, max | CLI latency | wait latency, max | goals |\n")
		p("|---:|---:|---:|---:|---:|---|\n")
		for _, pr := range noHeaderPairs(rs) {
			T, r, cli := pr.T, pr.wait, pr.cli
			cp, cl, wp, wl := get(cli, "polls-max"), get(cli, "latency-max-s"), get(r, "polls-max"), get(r, "latency-max-s")
			p("| %s s | %s | %s | %s s | %s s | %s |\n", T, cell(cp), cell(wp), cell(cl), cell(wl), verdict(wp <= cp && wl <= 2.5*cl))
		}
		p("\n")
	}

	p("## Does it back off when the server is overloaded?\n\n")
	if st := withPrefix(rs, "Storm/"); len(st) == 0 {
		p("Not measured in this run.\n\n")
	} else {
		p("One WaitAll over %s ids against a server answering 503 for the first %s s (with the Retry-After shown, or none); ",
			cell(get(st[0], "ids")), cell(get(st[0], "overload-s")))
		p("package wait holds every poll on a 429/503 and probes one at a time; the baselines poll each id on their own.\n\n")
		p("| Retry-After | strategy | requests during overload | req/s mean | req/s peak | latency p50 |\n")
		p("|---|---|---:|---:|---:|---:|\n")
		for _, row := range stormRows(st) {
			r := row.r
			p("| %s | %s | %s | %s | %s | %s s |\n", row.retryAfter, row.strategy, cell(get(r, "requests-in-overload")),
				cell(get(r, "rps-mean")), cell(get(r, "rps-peak")), cell(get(r, "latency-p50-s")))
		}
		p("\n")
	}

	p("## What does the client cost over a hand-written call?\n\n")
	if len(withPrefix(rs, "ClientOverhead/")) == 0 {
		p("Not measured in this run.\n\n")
	} else {
		p("One GET /request/info, same answer, over loopback and in-process (no network: the clients' own cost). ")
		p("Medians over the rounds; × is the median of the per-round ratios to the hand-written call on the same transport.\n\n")
		p("| client | loopback ns/op | × | in-process ns/op | × | allocs/op |\n")
		p("|---|---:|---:|---:|---:|---:|\n")
		lb, ip := find(rs, "ClientOverhead/loopback/client=handwritten"), find(rs, "ClientOverhead/inprocess/client=handwritten")
		ratio := func(r, base *result) float64 {
			if m, _, _, ok := pairedRatio(r, base, "ns/op"); ok {
				return m
			}
			return math.NaN()
		}
		for _, c := range []string{"handwritten", "generated", "generated-withresponse", "tensorpool.NewClient"} {
			l, i := find(rs, "ClientOverhead/loopback/client="+c), find(rs, "ClientOverhead/inprocess/client="+c)
			if l == nil && i == nil {
				continue
			}
			p("| %s | %s | %s | %s | %s | %s |\n", c, cell(get(l, "ns/op")), times(ratio(l, lb)),
				cell(get(i, "ns/op")), times(ratio(i, ip)), cell(get(i, "allocs/op")))
		}
		p("\n")
		for _, c := range []string{"generated", "tensorpool.NewClient"} {
			if m, lo, hi, ok := pairedRatio(find(rs, "ClientOverhead/loopback/client="+c), lb, "ns/op"); ok {
				p("Goal: %s ≤ 1.10 × hand-written over loopback: %s (median of the per-round ratios %s×, from %s× to %s×).\n",
					c, verdict(m <= 1.10), cell(m), cell(lo), cell(hi))
			}
		}
		p("\n")
	}

	p("## How does WaitAll scale?\n\n")
	sc := withPrefix(rs, "Scale/")
	if len(sc) == 0 {
		p("Not measured in this run.\n\n")
	} else {
		p("One WaitAll over n request ids in virtual time (lifecycles of 10-60 s, Retry-After %s s, %s ms per answer), ",
			cell(get(sc[0], "hint-s")), cell(get(sc[0], "rtt-ms")))
		p("against the light responder or the validating engine. *Memory*: peak heap + goroutine stacks. ")
		p("*CPU/poll*: the whole process, responder included.\n\n")
		p("| responder | waiter | ids | polls | latency p99 | memory | peak RSS | goroutines | CPU/poll |\n")
		p("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range sc {
			parts := strings.Split(strings.TrimPrefix(r.name, "Scale/"), "/")
			waiter := ""
			if len(parts) > 1 {
				waiter = strings.TrimPrefix(parts[1], "waiter=")
			}
			p("| %s | %s | %s | %s | %s s | %s MiB | %s MiB | %s | %s µs |\n", strings.TrimPrefix(parts[0], "responder="), waiter,
				cell(get(r, "ids")), cell(get(r, "polls")), cell(get(r, "latency-p99-s")),
				cell(get(r, "peak-heap-MiB")+get(r, "stacks-MiB")), cell(get(r, "peak-rss-MiB")),
				cell(get(r, "goroutines-peak")), cell(get(r, "cpu-us/poll")))
		}
		p("\n")
		var big *result
		for _, r := range sc {
			if strings.HasPrefix(r.name, "Scale/responder=light/waiter=wait/") && get(r, "ids") == 10000 {
				big = r
			}
		}
		if big != nil {
			mem, cpu := get(big, "peak-heap-MiB")+get(big, "stacks-MiB"), get(big, "cpu-us/poll")
			p("Goals at 10,000 ids: < 100 MiB: %s (%s MiB, peak RSS %s MiB); CPU per poll < 50 µs: %s (%s µs).\n\n",
				verdict(mem < 100), cell(mem), cell(get(big, "peak-rss-MiB")), verdict(cpu < 50), cell(cpu))
		}
	}

	p("## Method\n\n")
	p("`%s` (scripts/bench.sh) ran on %s, %d cores, `%s`, on %s", m.command, m.cpu, m.cores, m.goVersion, m.date.Format("2006-01-02"))
	if m.elapsed > 0 {
		p(", in %s", m.elapsed.Round(time.Second))
	}
	if m.before != "" {
		p("; the machine is shared (load before and after in the data file), which inflates wall and CPU times but not counts, virtual-time latencies or bytes")
	}
	p(". The polling and scale questions run in testing/synctest virtual time, as tests that call `testing.Benchmark`, ")
	p("against a light responder that answers GET /request/info as tensorpooltest's engine does without its OpenAPI ")
	p("validation (TestLightServerMatchesEngine keeps the two alike); the operations come from a fixed seed ")
	p("(durations from 2 s to 40 min, Retry-After in seconds, as an HTTP-date or absent, policy changes, 429/503 bursts, ")
	p("RETRYING, FAILED, multi-id attaches). The baselines are the official CLI's rule, a fixed 1 s, the AWS SDK waiter's ")
	p("backoff and hcloud-go's 500 ms. The client costs are ordinary Go benchmarks, run in ")
	if r := find(rs, "ClientOverhead/loopback/client=handwritten"); r != nil && len(r.samples["ns/op"]) > 0 {
		p("%d rounds ", len(r.samples["ns/op"]))
	} else {
		p("rounds ")
	}
	p("that alternate the clients, so load cancels out of the per-round ratios. Package wait's jitter is not seeded: its ")
	p("figures move slightly between runs.\n")
}

// times is a ratio cell: "1.05×", or "–" when a figure is missing.
func times(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return num(v) + "×"
}

package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// write renders the data file: every figure, profile and raw result.
// summaryName is the short file (writeSummary) it goes with.
func write(w io.Writer, m machine, rs []*result, listing, scaleTop []byte, summaryName string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Benchmarks: the data\n\n")
	if summaryName != "" && summaryName != "." {
		p("The short answers are in [%s](%s); this file holds every figure behind them. ", summaryName, summaryName)
	}
	p("Written by `%s` (scripts/bench.sh, internal/benchmarks/benchmd); do not edit by hand. ", m.command)
	p("Issue 8 asks for three measurements, each side by side in the same run: request economy and detection ")
	p("latency of package wait against other polling rules, the overhead of the generated client over a ")
	p("hand-written call, and how WaitAll scales.\n\n")

	p("## Machine\n\n")
	p("| | |\n|---|---|\n")
	p("| Go | `%s` |\n", m.goVersion)
	p("| CPU | %s |\n", m.cpu)
	p("| Cores | %d |\n", m.cores)
	p("| Date | %s |\n", m.date.Format(time.RFC3339))
	if m.before != "" {
		p("| Load before | `%s` |\n", m.before)
	}
	if m.after != "" {
		p("| Load after | `%s` |\n", m.after)
	}
	if m.elapsed > 0 {
		p("| `%s` wall time | %s |\n", m.command, m.elapsed.Round(time.Second))
	}
	p("| Reproduce | `%s` |\n\n", m.command)
	p("The machine is shared: a load average above the core count means other work ran during the ")
	p("measurements, which inflates wall and CPU times (not counts, virtual-time latencies or bytes).\n\n")

	writeEconomy(w, rs)
	writeNoHeader(w, rs)
	writeStorm(w, rs)
	writeOverhead(w, rs, listing)
	writeScale(w, rs, scaleTop)
	writeMethod(w, rs)

	p("## Raw results\n\n")
	p("Every result line as `go test` printed it (benchstat reads this format).\n\n```\n")
	for _, r := range rs {
		for _, l := range r.lines {
			p("%s\n", l)
		}
	}
	p("```\n")
}

// num formats a figure with as many digits as it deserves.
func num(v float64) string {
	switch a := math.Abs(v); {
	case v == math.Trunc(v) && a < 1e15:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// get is a median, or NaN when the metric is missing.
func get(r *result, unit string) float64 {
	if r == nil {
		return math.NaN()
	}
	v, ok := r.median(unit)
	if !ok {
		return math.NaN()
	}
	return v
}

func cell(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return num(v)
}

func verdict(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**not met**"
}

func writeEconomy(w io.Writer, rs []*result) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	eco := withPrefix(rs, "Economy/strategy=")
	p("## 1. Request economy and detection latency (virtual time)\n\n")
	if len(eco) == 0 {
		p("Not measured in this run.\n\n")
		return
	}
	ops := get(eco[0], "ops")
	p("%s operations from a fixed seed (internal/benchmarks/scenario_test.go): durations log-uniform from 2 s to ", cell(ops))
	p("40 min; a Retry-After of 1, 2, 2.5, 5, 10 or 30 s sent as seconds (70 %%; 2.5 s as the decimal \"2.5\", which the ")
	p("CLI cannot read and replaces by its 2 s: early polls), an HTTP-date (15 %%) or not at all ")
	p("(15 %%); in 40 %% of them the policy changes 1-3 times mid-operation; in 25 %%, 1-2 bursts of 1-4 ")
	p("consecutive 429 or 503 answers, with a Retry-After of 1-10 s or none; one in ten goes through RETRYING, ")
	p("one in ten ends FAILED; 15 %% are storage attaches with 2-4 request ids, all completing, each within 50-100 %% ")
	p("of the operation's length, in random order. Each strategy runs every operation in its own testing/synctest bubble against ")
	p("the light responder (below), through the generated client.\n\n")
	p("- *early*: a poll sent before the moment the server's previous answer allowed (its Retry-After, seconds or HTTP-date).\n")
	p("- *latency*: from the moment the operation's last request reached COMPLETED/FAILED to the moment the strategy returned.\n")
	p("- *latency ÷ hint*: per request id, the time from its completion to the first answer that showed it, over the ")
	p("Retry-After granted by the last answer before completion; for an operation, the largest over its ids whose last ")
	p("answer before completion carried one. Every operation counts, those with a 429/503 after completion (which ")
	p("delays every strategy) included; the ids whose last answer before completion had no usable Retry-After are in ")
	p("their own table below, with their latency in seconds (there is no hint to divide by).\n")
	p("- *non-200*: operations in which a 429/503 was seen; the official CLI stops at the first one (\"Failed to poll ")
	p("request status\"). Here every baseline keeps polling on its own schedule, so that all are compared on the same operations.\n\n")

	p("| strategy | polls | polls/op | early polls (ops) | latency p50 | p99 | max | no terminal | non-200 ops | wall/pass |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range eco {
		name := strings.TrimPrefix(r.name, "Economy/strategy=")
		p("| %s | %s | %s | %s (%s) | %s s | %s s | %s s | %s | %s | %s s |\n", name,
			cell(get(r, "polls")), cell(get(r, "polls")/get(r, "ops")),
			cell(get(r, "early-polls")), cell(get(r, "ops-with-early-polls")),
			cell(get(r, "latency-p50-s")), cell(get(r, "latency-p99-s")), cell(get(r, "latency-max-s")),
			cell(get(r, "errors")), cell(get(r, "ops-with-non200")), cell(get(r, "ns/op")/1e9))
	}
	p("\n")
	p("Detection latency per request id, over every operation: ids whose last answer before completion granted a ")
	p("Retry-After (latency ÷ that hint), and ids whose last answer had none (latency in seconds):\n\n")
	p("| strategy | ids with a Retry-After: ops | latency ÷ hint p50 | p99 | max | ops without a 429/503 after completion: p99 (max) | ids without: ops | latency p50 | p99 | max |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range eco {
		p("| %s | %s | %s | %s | %s | %s (%s) | %s | %s s | %s s | %s s |\n", strings.TrimPrefix(r.name, "Economy/strategy="),
			cell(get(r, "ops-in-latency/hint")), cell(get(r, "latency/hint-p50")), cell(get(r, "latency/hint-p99")), cell(get(r, "latency/hint-max")),
			cell(get(r, "latency/hint-p99-clean")), cell(get(r, "latency/hint-max-clean")),
			cell(get(r, "ops-no-hint")), cell(get(r, "no-hint-latency-p50-s")), cell(get(r, "no-hint-latency-p99-s")), cell(get(r, "no-hint-latency-max-s")))
	}
	p("\n")
	groups := []struct{ unit, what string }{
		{"steady-seconds", "one id; one policy throughout, Retry-After in seconds"},
		{"steady-date", "one id; one policy throughout, Retry-After as an HTTP-date"},
		{"steady-none", "one id; one policy throughout, no Retry-After"},
		{"changing", "one id; the policy changes, or 429/503 bursts come"},
		{"multi-id", "2-4 ids (storage attach), any policy"},
	}
	p("The same, by kind of operation (polls per operation, early polls, latency p50 / p99):\n\n")
	p("| strategy |")
	for _, g := range groups {
		p(" %s (%s ops) |", g.what, cell(get(eco[0], "ops@"+g.unit)))
	}
	p("\n|---|")
	for range groups {
		p("---|")
	}
	p("\n")
	for _, r := range eco {
		p("| %s |", strings.TrimPrefix(r.name, "Economy/strategy="))
		for _, g := range groups {
			p(" %s polls/op, %s early, %s s / %s s |", cell(get(r, "polls@"+g.unit)/get(r, "ops@"+g.unit)),
				cell(get(r, "early-polls@"+g.unit)), cell(get(r, "latency-p50-s@"+g.unit)), cell(get(r, "latency-p99-s@"+g.unit)))
		}
		p("\n")
	}
	p("\n")
	wait := find(rs, "Economy/strategy=wait")
	cli := find(rs, "Economy/strategy=tp-cli")
	p("Goals:\n\n")
	if wait == nil {
		p("- package wait: not measured in this run.\n\n")
		return
	}
	early := get(wait, "early-polls")
	p("- our early polls = 0: %s (%s).\n", verdict(early == 0), cell(early))
	wp, cp := get(wait, "polls"), get(cli, "polls")
	p("- our polls ≤ the CLI rule's: %s over the whole set (%s vs %s, %s×)", verdict(wp <= cp), cell(wp), cell(cp), cell(wp/cp))
	var worse []string
	for _, g := range groups {
		gw, gc := get(wait, "polls@"+g.unit), get(cli, "polls@"+g.unit)
		if gw > gc {
			worse = append(worse, fmt.Sprintf("%s: %s vs %s, %s×", g.unit, cell(gw), cell(gc), cell(gw/gc)))
		}
	}
	if len(worse) > 0 {
		p("; more than the CLI's on: %s", strings.Join(worse, "; "))
	} else {
		p("; and on every kind of operation")
	}
	p(".\n")
	ratio := get(wait, "latency/hint-p99-clean")
	p("- our p99 latency ≤ 1.25 × the Retry-After in force, on the %s operations without a 429/503 after completion: %s ", cell(get(wait, "ops-in-latency/hint-clean")), verdict(ratio <= 1.25))
	p("(p99 %s×, max %s×). Over every operation with a Retry-After it is %s× at p99 (the CLI's %s×): ", cell(ratio), cell(get(wait, "latency/hint-max-clean")),
		cell(get(wait, "latency/hint-p99")), cell(get(cli, "latency/hint-p99")))
	p("a 429/503 after completion delays every strategy by its own Retry-After or backoff.\n")
	nh, cnh := get(wait, "latency-p99-s@steady-none"), get(cli, "latency-p99-s@steady-none")
	p("- without a Retry-After (one id, one policy throughout: the CLI's sequential polling of several ids makes its ")
	p("figures above incomparable), our p99 latency ≤ 2.5 × the CLI's: %s (%s s vs %s s); our polls ≤ the CLI's: %s (%s vs %s per operation).\n\n",
		verdict(nh <= 2.5*cnh), cell(nh), cell(cnh), verdict(get(wait, "polls@steady-none") <= get(cli, "polls@steady-none")),
		cell(get(wait, "polls@steady-none")/get(wait, "ops@steady-none")), cell(get(cli, "polls@steady-none")/get(cli, "ops@steady-none")))
}

func writeNoHeader(w io.Writer, rs []*result) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	nh := withPrefix(rs, "NoHeader/")
	p("## 1b. No Retry-After: package wait against the CLI (virtual time)\n\n")
	if len(nh) == 0 {
		p("Not measured in this run.\n\n")
		return
	}
	p("One request id whose server never sends Retry-After, completing T seconds after its creation (odd, so the CLI, ")
	p("polling every 2 s from 0, sees it 1 s late). The CLI has no randomness: one run. Package wait, whose jitter is ")
	p("random, runs %s times per T; its polls and latency are given as median and maximum (latency p99 too). ", cell(get(nh[0], "runs")))
	p("Goals: never more polls than the CLI, never more than 2.5 × its latency.\n\n")
	p("| T | CLI polls | wait polls p50 | max | CLI latency | wait latency p50 | p99 | max | max ÷ CLI | goals |\n")
	p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, pr := range noHeaderPairs(rs) {
		T, r, cli := pr.T, pr.wait, pr.cli
		cp, cl := get(cli, "polls-max"), get(cli, "latency-max-s")
		wp, wl := get(r, "polls-max"), get(r, "latency-max-s")
		p("| %s s | %s | %s | %s | %s s | %s s | %s s | %s s | %s× | %s |\n", T, cell(cp), cell(get(r, "polls-p50")), cell(wp),
			cell(cl), cell(get(r, "latency-p50-s")), cell(get(r, "latency-p99-s")), cell(wl), cell(wl/cl), verdict(wp <= cp && wl <= 2.5*cl))
	}
	p("\n")
}

// noHeaderPair is package wait's and the CLI's result for one T of TestNoHeader.
type noHeaderPair struct {
	T         string
	wait, cli *result
}

// noHeaderPairs pairs each T's wait result with the CLI's.
func noHeaderPairs(rs []*result) (out []noHeaderPair) {
	for _, r := range withPrefix(rs, "NoHeader/") {
		if T, ok := strings.CutSuffix(strings.TrimPrefix(r.name, "NoHeader/T="), "/strategy=wait"); ok {
			out = append(out, noHeaderPair{T, r, find(rs, "NoHeader/T="+T+"/strategy=tp-cli")})
		}
	}
	return out
}

// stormRow is one result of TestStorm, named by its Retry-After and strategy.
type stormRow struct {
	retryAfter, strategy string
	r                    *result
}

// stormRows names each Storm result.
func stormRows(st []*result) (out []stormRow) {
	for _, r := range st {
		if parts := strings.Split(strings.TrimPrefix(r.name, "Storm/retry-after="), "/strategy="); len(parts) == 2 {
			out = append(out, stormRow{parts[0], parts[1], r})
		}
	}
	return out
}

func writeStorm(w io.Writer, rs []*result) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	st := withPrefix(rs, "Storm/")
	p("## 1c. Storm: 1,000 ids against an overloaded server (virtual time)\n\n")
	if len(st) == 0 {
		p("Not measured in this run.\n\n")
		return
	}
	p("One WaitAll (for the baselines, one goroutine per id) over %s request ids, all completing at 30 s, against ", cell(get(st[0], "ids")))
	p("a server that answers every poll with 503 for the first %s s, with the Retry-After shown or none, then ", cell(get(st[0], "overload-s")))
	p("recovers; every answer takes 20 ms. Package wait treats a 429, a 503 or a refused connection as news about the ")
	p("server: all its polls hold until the Retry-After (at least 1 s) or a shared backoff has passed, then one probe ")
	p("at a time until an answer that is not one of those. Requests per second are counted in one-second buckets over ")
	p("the overload; *peak* includes the polls sent at t = 0, before any answer. *latency*: from completion to the first ")
	p("answer that showed it.\n\n")
	p("| Retry-After | strategy | requests during overload | req/s mean | req/s peak | requests in all | ids completed | latency p50 | max | virtual |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range stormRows(st) {
		r := row.r
		p("| %s | %s | %s | %s | %s | %s | %s | %s s | %s s | %s s |\n", row.retryAfter, row.strategy,
			cell(get(r, "requests-in-overload")), cell(get(r, "rps-mean")), cell(get(r, "rps-peak")), cell(get(r, "requests")),
			cell(get(r, "completed")), cell(get(r, "latency-p50-s")), cell(get(r, "latency-max-s")), cell(get(r, "virtual-s")))
	}
	p("\n")
}

func writeOverhead(w io.Writer, rs []*result, listing []byte) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## 2. Client overhead: GET /request/info\n\n")
	ov := withPrefix(rs, "ClientOverhead/")
	if len(ov) == 0 {
		p("Not measured in this run.\n\n")
		return
	}
	p("One GET /request/info answered with the same bytes (the engine's answer for a PROCESSING storage destroy, ")
	p("recorded once, with its headers) by the same loopback httptest server, and by an in-process ")
	p("RoundTripper that shows the clients' own cost without the network. *hand-written*: ")
	p("`http.NewRequestWithContext` + `io.ReadAll` + `json.Unmarshal` into a hand-declared struct + the Retry-After ")
	p("header (faster here than `json.NewDecoder` and draining the body, so the stricter baseline); *handwritten-timeout*: ")
	p("the same under `context.WithTimeout(ctx, tensorpool.DefaultTimeout)`, as the front door bounds every call; ")
	p("*generated*: `(*gen.Client).GetRequestInfo` + `gen.ParseGetRequestInfoResponse`; *withresponse*: ")
	p("`GetRequestInfoWithResponse` (the same two calls); *tensorpool.NewClient*: the front door with `Check` (auth ")
	p("transport, retry policy and whole-call timeout, client-side validation, the body read in full under its cap and ")
	p("scrubbed of the key, the strict status check) over the same transport.\n\n")
	p("All clients run in one process in interleaved rounds (A B C D, A B C D, ...; TestClientOverhead). ")
	p("The absolute columns are medians over the rounds; the × hand-written columns are the median over rounds of ")
	p("the client's figure divided by the hand-written client's figure of the same round (range of the time ratio ")
	p("in brackets), so load from other work on the shared machine, which falls on every client of a round alike, ")
	p("cancels out.\n\n")
	p("| transport | client | ns/op | B/op | allocs/op | × hand-written: time | bytes | allocs |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range ov {
		parts := strings.SplitN(strings.TrimPrefix(r.name, "ClientOverhead/"), "/", 2)
		if len(parts) != 2 {
			continue
		}
		base := find(rs, "ClientOverhead/"+parts[0]+"/client=handwritten")
		ratio := func(unit string, withRange bool) string {
			m, lo, hi, ok := pairedRatio(r, base, unit)
			if !ok {
				return cell(get(r, unit)/get(base, unit)) + "× (ratio of medians)"
			}
			if withRange {
				return fmt.Sprintf("%s× (%s–%s)", cell(m), cell(lo), cell(hi))
			}
			return cell(m) + "×"
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", parts[0], strings.TrimPrefix(parts[1], "client="),
			cell(get(r, "ns/op")), cell(get(r, "B/op")), cell(get(r, "allocs/op")),
			ratio("ns/op", true), ratio("B/op", false), ratio("allocs/op", false))
	}
	p("\n")
	hw := find(rs, "ClientOverhead/loopback/client=handwritten")
	for _, name := range []string{"generated", "tensorpool.NewClient"} {
		c := find(rs, "ClientOverhead/loopback/client="+name)
		if c == nil || hw == nil {
			continue
		}
		if m, lo, hi, ok := pairedRatio(c, hw, "ns/op"); ok {
			p("- Goal: %s ≤ 1.10 × hand-written over loopback: %s (per round: median %s×, from %s× to %s× over %d rounds).\n",
				name, verdict(m <= 1.10), cell(m), cell(lo), cell(hi), len(c.samples["ns/op"]))
		}
	}
	gi, hi := find(rs, "ClientOverhead/inprocess/client=generated"), find(rs, "ClientOverhead/inprocess/client=handwritten")
	if gi != nil && hi != nil {
		p("- Without the network (in-process) the generated client costs %s ns and %s allocations more per call than the hand-written one.\n",
			cell(get(gi, "ns/op")-get(hi, "ns/op")), cell(get(gi, "allocs/op")-get(hi, "allocs/op")))
	}
	p("\n")
	if len(listing) > 0 {
		p("Where the generated path spends its time (in-process, `go test -cpuprofile`, `pprof -list`, lines with samples):\n\n```\n%s```\n\n", listing)
	}
	p("Reading the listing: decoding (`io.ReadAll` + `json.Unmarshal`) costs the generated and the hand-written ")
	p("client the same. What the generated client adds is building the request: `NewGetRequestInfoRequest` parses ")
	p("the server URL on every call, formats the path, resolves it against the server URL, turns it back into a ")
	p("string and `http.NewRequest` parses it again; then `req.WithContext` copies the request. No option of ")
	p("oapi-codegen's configuration changes that code; `output-options.user-templates` could replace the ")
	p("generator's client template with one that parses the server URL once, at the price of maintaining a fork ")
	p("of that template across generator upgrades. Nothing in our own code can reach it without editing gen/. ")
	p("Over a socket that cost is small next to one loopback round trip, and a real call to the API ")
	p("costs milliseconds, so it is left as is.\n\n")
}

func writeScale(w io.Writer, rs []*result, top []byte) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## 3. Scale: WaitAll (virtual time)\n\n")
	sc := withPrefix(rs, "Scale/")
	if len(sc) == 0 {
		p("Not measured in this run.\n\n")
		return
	}
	rtt, hint, bound := get(sc[0], "rtt-ms"), get(sc[0], "hint-s"), get(sc[0], "inflight-bound")
	p("One WaitAll over n storage-destroy request ids in one testing/synctest bubble: each id's lifecycle lasts ")
	p("10-60 s (fixed seed), the server asks for Retry-After %s s, and every answer takes %s ms of virtual time, ", cell(hint), cell(rtt))
	p("so requests overlap and the in-flight bound matters. *wait* is package wait with its defaults (at most %s ", cell(bound))
	p("polls in flight per Poller): at a %s ms round trip that is at most %s polls/s, while 10,000 ids at ", cell(rtt), cell(bound*1000/rtt))
	p("Retry-After %s s ask for %s/s, so at 10,000 ids polls queue behind the bound: fewer polls, later ", cell(hint), cell(10000/hint))
	p("detection. A *wait-concurrency-N* row is the same with `wait.WithConcurrency(N)`. The *goroutine-per-id* row ")
	p("is the alternative to WaitAll's scheduler: one goroutine per id calling `Wait` on one Poller, whose bound on ")
	p("polls in flight acts as the semaphore; the scheduler is kept because it holds no stack per waiting id.\n\n")
	p("- *latency*: per id, from its completion to the first answer that showed it.\n")
	p("- *peak heap*: the largest heap (live and not yet collected objects) sampled every real millisecond and ")
	p("every virtual second; *heap while all wait*: live heap after a GC at virtual t = 5 s, when every id is ")
	p("waiting; *stacks*: goroutine stacks at that moment.\n")
	p("- *RSS*: the test process's resident set at the start of the run (after returning freed memory to the OS) ")
	p("and its high-water mark during the run (reset at the start; Linux).\n")
	p("- *CPU/poll*: user + system CPU time of the whole process during WaitAll over the polls sent: it includes ")
	p("the responder, the harness (observer, the 20 ms virtual round trip, samplers) and the GC.\n\n")
	p("| responder | waiter | ids | polls | virtual | latency p50 | p99 | peak heap | heap while all wait | stacks | RSS start → peak | peak goroutines | max in flight (bound) | CPU/poll | wall |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range sc {
		parts := strings.Split(strings.TrimPrefix(r.name, "Scale/"), "/")
		resp := strings.TrimPrefix(parts[0], "responder=")
		waiter := ""
		if len(parts) > 1 {
			waiter = strings.TrimPrefix(parts[1], "waiter=")
		}
		p("| %s | %s | %s | %s | %s s | %s s | %s s | %s MiB | %s MiB | %s MiB | %s → %s MiB | %s | %s (%s) | %s µs | %s s |\n", resp, waiter,
			cell(get(r, "ids")), cell(get(r, "polls")), cell(get(r, "virtual-s")),
			cell(get(r, "latency-p50-s")), cell(get(r, "latency-p99-s")),
			cell(get(r, "peak-heap-MiB")), cell(get(r, "heap-waiting-MiB")), cell(get(r, "stacks-MiB")),
			cell(get(r, "start-rss-MiB")), cell(get(r, "peak-rss-MiB")),
			cell(get(r, "goroutines-peak")), cell(get(r, "max-inflight")), cell(get(r, "inflight-bound")),
			cell(get(r, "cpu-us/poll")), cell(get(r, "ns/op")/1e9))
	}
	p("\n")
	light, engine := find(rs, "Responder/light"), find(rs, "Responder/engine")
	step := find(rs, "WaitStep/light")
	if light != nil || engine != nil {
		p("Per answer, measured apart (`go test -bench`, no bubble): the light responder alone %s µs (%s allocs); ",
			cell(get(light, "ns/op")/1e3), cell(get(light, "allocs/op")))
		p("the engine with OpenAPI validation alone %s µs (%s allocs)", cell(get(engine, "ns/op")/1e3), cell(get(engine, "allocs/op")))
		if step != nil {
			p("; one `(*wait.Poller).Step` (one poll: generated client, Retry-After, status handling) against the light responder %s µs (%s B, %s allocs)",
				cell(get(step, "ns/op")/1e3), cell(get(step, "B/op")), cell(get(step, "allocs/op")))
		}
		p(".\n\n")
	}
	var big *result
	for _, r := range sc {
		if strings.HasPrefix(r.name, "Scale/responder=light/waiter=wait/") && get(r, "ids") == 10000 {
			big = r
		}
	}
	if big == nil {
		return
	}
	if small := find(rs, "Scale/responder=light/waiter=wait/ids=100"); small != nil {
		dn := get(big, "ids") - get(small, "ids")
		p("From 100 to 10,000 ids, each more wait holds about %s KiB of live heap and %s KiB of goroutine stack ",
			cell((get(big, "heap-waiting-MiB")-get(small, "heap-waiting-MiB"))*1024/dn), cell((get(big, "stacks-MiB")-get(small, "stacks-MiB"))*1024/dn))
		p("while it waits; CPU per poll goes from %s µs to %s µs.\n\n", cell(get(small, "cpu-us/poll")), cell(get(big, "cpu-us/poll")))
	}
	mem := get(big, "peak-heap-MiB") + get(big, "stacks-MiB")
	p("Goals, at 10,000 ids against the light responder:\n\n")
	p("- 10,000 waits in < 100 MiB: peak heap + goroutine stacks %s MiB: %s", cell(mem), verdict(mem < 100))
	if rss := get(big, "peak-rss-MiB"); !math.IsNaN(rss) {
		start := get(big, "start-rss-MiB")
		p("; peak RSS of the whole test process %s MiB: %s. Of that RSS, %s MiB were resident before the run ", cell(rss), verdict(rss < 100), cell(start))
		p("(the test binary, the runtime, what earlier runs left) and the run added %s MiB, for a peak heap of %s MiB and %s MiB ", cell(rss-start), cell(get(big, "peak-heap-MiB")), cell(get(big, "stacks-MiB")))
		p("of goroutine stacks (the heap reuses pages already resident, so the two need not add up)")
	}
	p(". WaitAll holds no goroutine per id (peak %s goroutines for %s ids): each waiting id costs about %s KiB of heap ",
		cell(get(big, "goroutines-peak")), cell(get(big, "ids")), cell(get(big, "heap-waiting-MiB")*1024/get(big, "ids")))
	p("and no stack.\n")
	cpu := get(big, "cpu-us/poll")
	p("- CPU per poll < 50 µs: whole process during the run %s µs: %s", cell(cpu), verdict(cpu < 50))
	if step != nil && light != nil {
		own := (get(step, "ns/op") - get(light, "ns/op")) / 1e3
		p("; the client's own cost per poll (Step less the responder) %s µs: %s", cell(own), verdict(own < 50))
	}
	p(".\n\n")
	if len(top) > 0 {
		p("Where the CPU of the 10,000-id run goes (`go test -cpuprofile`, `pprof -top -cum`, first 30 lines):\n\n```\n%s```\n\n", top)
	}
}

func writeMethod(w io.Writer, rs []*result) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## Method and caveats\n\n")
	p("- **Why some benchmarks are tests.** Virtual time needs `testing/synctest.Test`, which takes a live ")
	p("`*testing.T`; a `*testing.B` has none, and benchmarks run only after every test has finished. So sections 1, ")
	p("1b, 1c and 3 are tests (`TestEconomy`, `TestNoHeader`, `TestStorm`, `TestScale`, skipped unless `-figures` is given) that call `testing.Benchmark`, ")
	p("run `synctest.Test(t, ...)` inside each `b.Loop` iteration, report with `b.ReportMetric`, and print the ")
	p("`go test -bench` line format. Their ns/op, B/op and allocs/op are real wall time and memory for one whole ")
	p("iteration; the counts and latencies are virtual. Section 2 is a test too (`TestClientOverhead`), so that every client ")
	p("runs in the same process in interleaved rounds, each client's `testing.Benchmark` once per round; the per-answer ")
	p("costs are ordinary `Benchmark` functions. ")
	p("(wait's own `BenchmarkScenarios` gets its `*testing.T` from `testing.RunTests` instead; that function, meant for ")
	p("`go test`'s own use, also repeats its tests `-test.count` times and once per `-test.cpu` value, setting GOMAXPROCS ")
	p("to each, inside the benchmark being timed, so it is not used here.)\n")
	var polls float64
	for _, r := range withPrefix(rs, "Economy/") {
		if v := get(r, "polls"); !math.IsNaN(v) {
			polls += v
		}
	}
	engine := get(find(rs, "Responder/engine"), "ns/op")
	p("- **The light responder.** tensorpooltest's engine validates every request and answer against the OpenAPI ")
	p("document")
	if !math.IsNaN(engine) {
		p(" (%s µs of CPU per answer here)", cell(engine/1e3))
	}
	if polls > 0 && !math.IsNaN(engine) {
		p("; section 1 sends %s polls, which would take about %s of CPU against it, so", cell(polls), (time.Duration(polls * engine)).Round(time.Second))
	} else {
		p("; so")
	}
	p(" sections 1 and 3 run against `lightServer` (internal/benchmarks/servers_test.go), which answers GET ")
	p("/request/info as the engine does without validating. `TestLightServerMatchesEngine` (part of `go test ./...`) ")
	p("keeps that true: on scenarios covering every feature of the set, the baselines see the same answers (status, ")
	p("Date, Retry-After, Content-Type, every body field) at the same virtual moments from both. The engine has no ")
	p("option to skip validation. Section 3 also runs against the engine at 100 and 1,000 ids for comparison.\n")
	p("- **Baselines.** *tp-cli*: `max(1, int(Retry-After))` s, else 2 s (an HTTP-date is not an int). *fixed-1s*. ")
	p("*aws-waiter*: first poll at once, then smithy-go's `ComputeDelay` (2 s × 2^(n-1) capped at 120 s, drawn from ")
	p("[2 s, that)), Retry-After ignored. *hcloud-500ms*: `ConstantBackoff(500ms)`, sleeping before each poll as ")
	p("hcloud-go's waiter does. All of them treat a 429/503 as \"poll again on schedule\"; the official CLI would ")
	p("stop instead (see *non-200 ops*). On several ids the CLI polls one after the other ")
	p("(`_poll_multiple_requests_until_terminal`); the other baselines poll each id on its own schedule, concurrently, ")
	p("with their own jitter source; package wait uses WaitAll. Concurrent pollers can meet a burst of 429/503 in ")
	p("either order at the same virtual instant, so their figures on those operations may move slightly between runs.\n")
	p("- **Randomness.** The scenario set and the AWS waiter's jitter come from fixed seeds, so the baselines' ")
	p("figures are identical from run to run. Package wait draws its jitter from math/rand/v2's global source, which ")
	p("cannot be seeded from outside the package: its figures move slightly between runs.\n")
	p("- **Scenario bursts** are applied at the first poll at or after their moment, and a burst waits until the ")
	p("previous one has been served and no request id's last answer is a failure, so no id sees a run of failures ")
	p("longer than the 4 the set describes (package wait gives up after 5 in a row by default, WithMaxFailures).\n\n")
}

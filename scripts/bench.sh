#!/usr/bin/env bash
# Rewrites BENCHMARKS.md from internal/benchmarks: every test named TestBench*
# (each appends its Markdown section to the -figures file, in the order go
# test runs them, and fails when a goal is missed), then
# BenchmarkClientOverhead in rounds, compared by benchstat (tools/benchstat).
# internal/benchmarks is also built on two earlier commits (git archive: it
# needs their history), so that its "before" columns are measured in the run.
# The section on generation at scale is copied as `make bench-generation`
# recorded it (internal/benchmarks/testdata/generation.md).
# BENCHMARKS.md is written even when a goal is missed; the script then fails.
#
#   BENCH_COUNT  rounds of BenchmarkClientOverhead (default 10)
#   ECONOMY_N    operations in the request-economy set (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
load() { uptime | sed 's/.*load averages*: *//; s/[, ].*//'; } # the last minute's
load_before=$(load)

./.ci/setup bench # nginx and the slowapi peer's packages, for the rate-limit runs
export TENSORPOOL_NGINX=1 TENSORPOOL_SLOWAPI=1 # a missing nginx or package fails them instead of skipping
"$GO" test -c -o "$tmp/benchmarks.test" ./internal/benchmarks
# "Before", measured by this same code in the same run (waitscale_test.go):
# today's law as issue 44 was filed, the hold the pace replaced, and the
# laws issue 44 measured beside the one it adopted (PACE_CANDIDATES:
# commit=name;...; empty measures none).
today=e164252
candidates=${PACE_CANDIDATES-"582c321=first attempt (582c321: tuned constants);eea906e=BBR policer model, every throttle (eea906e);e197b7f=GAIMD (e197b7f)"}
IFS=';' read -ra cands <<<"$candidates"
flag=
for c in "${cands[@]}"; do
	flag+="${flag:+;}${c#*=}=$tmp/${c%%=*}.test"
done
for rev in $today fb24af9 "${cands[@]%%=*}"; do
	mkdir "$tmp/$rev"
	git archive "$rev" | tar -x -C "$tmp/$rev"
	rm -rf "$tmp/$rev/internal/benchmarks"
	cp -r internal/benchmarks "$tmp/$rev/internal/"
	cp go.mod go.sum "$tmp/$rev/" # the hold's go.mod lacks golang.org/x/time, which these tests use
	(cd "$tmp/$rev" && "$GO" test -c -o "$tmp/$rev.test" ./internal/benchmarks)
done
cd internal/benchmarks
status=0
touch "$tmp/figures.md"
"$tmp/benchmarks.test" -test.run '^TestBench' -test.v -test.timeout 60m -figures "$tmp/figures.md" \
	-economy.n "${ECONOMY_N:-1000}" -pace.before "$tmp/$today.test" -pace.hold "$tmp/fb24af9.test" \
	${flag:+-pace.candidate "$flag"} -pace.name "new law ($(git rev-parse --short HEAD))" || status=$?
# One round is every client once (-count=1), so that load from other work on
# the machine falls on all of them alike.
for _ in $(seq "${BENCH_COUNT:-10}"); do
	"$tmp/benchmarks.test" -test.run '^$' -test.bench '^BenchmarkClientOverhead$' -test.count 1
done | tee "$tmp/overhead.txt"
cd "$root"
benchstat() { "$GO" -C tools/benchstat run golang.org/x/perf/cmd/benchstat "$@"; }
benchstat -col /client "$tmp/overhead.txt" >"$tmp/benchstat.txt"
# The goals: a client's median time over loopback, over its baseline's: the
# generated client's over the hand-written call's; NewClient's over the raw
# generated client's (generated-withresponse), the layer it adds.
benchstat -format csv -col /client -filter '/transport:loopback .unit:sec/op' "$tmp/overhead.txt" 2>/dev/null |
	awk -F, '/^,/ && !seen++ { for (i = 2; i <= NF; i++) if ($i != "") col[$i] = i }
		/^ClientOverhead/ { n = split("generated:handwritten:hand-written|tensorpool.NewClient:generated-withresponse:the raw generated client (generated-withresponse)", c, "|")
			for (j = 1; j <= n; j++) {
				split(c[j], p, ":")
				x = $col[p[1]] / $col[p[2]]
				printf "- %s ≤ 1.10 × %s over loopback: **%s** (%.2f×)\n", p[1], p[3], x <= 1.10 ? "met" : "not met", x
			} }' >"$tmp/goals.md"

elapsed=$(($(date +%s) - start))
{
	cat <<-EOF
		# Benchmarks

		The short answers, written by \`make bench\` (scripts/bench.sh) from internal/benchmarks; do not edit by hand.
		A goal not met fails its test (TestBench*) and \`make bench\`, except the client-overhead goals: those are
		reported only.

	EOF
	cat "$tmp/figures.md"
	cat internal/benchmarks/testdata/generation.md # as recorded by make bench-generation: minutes of builds, not rerun here
	cat <<-EOF
		## What does the client cost over a hand-written call?

		One GET /request/info, same answer, over loopback and in-process (no network: the clients' own cost), through
		a hand-written net/http call, the generated client (\`GetRequestInfo\` and \`ParseGetRequestInfoResponse\`, or
		\`GetRequestInfoWithResponse\`) and \`tensorpool.NewClient\` (its methods check each answer): BenchmarkClientOverhead in
		${BENCH_COUNT:-10} rounds, compared by \`benchstat -col /client\`.

		\`\`\`
		$(cat "$tmp/benchstat.txt")
		\`\`\`

		Goals (a target, reported but not enforced: wall time on a shared machine), from benchstat's medians:

		$(cat "$tmp/goals.md")

		## Method

		\`make bench\` ran with $(getconf _NPROCESSORS_ONLN) cores (the CPU is named above), \`$("$GO" version)\`, on
		$(date -u +%F), in ${elapsed} s; load average before and after: ${load_before} and $(load). Load inflates wall
		and CPU times, not counts, virtual-time latencies or bytes.
	EOF
} >"$tmp/BENCHMARKS.md"
cp "$tmp/BENCHMARKS.md" BENCHMARKS.md
echo "wrote BENCHMARKS.md in ${elapsed}s"
if [ "$status" -ne 0 ]; then
	echo >&2 "bench: a measurement failed or missed a goal (see the test output above and BENCHMARKS.md)"
fi
exit "$status"

#!/usr/bin/env bash
# Runs the benchmarks of internal/benchmarks and rewrites BENCHMARKS.md (the
# short answers) and BENCHMARKS-data.md (every figure, profile and raw result).
#
#   BENCH_COUNT     rounds of the per-call benchmarks (default 10; medians of per-round ratios are reported)
#   ECONOMY_N       operations in the request-economy scenario set (default 1000)
#   BENCH_OUT       the data file to write (default BENCHMARKS-data.md)
#   BENCH_SUMMARY   the short file to write (default BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
count=${BENCH_COUNT:-10}
economy_n=${ECONOMY_N:-1000}
out=${BENCH_OUT:-BENCHMARKS-data.md}
summary=${BENCH_SUMMARY:-BENCHMARKS.md}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
case $summary in /*) ;; *) summary=$(pwd)/$summary ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
before=$(uptime)

"$GO" test -c -o "$tmp/benchmarks.test" ./internal/benchmarks
cd internal/benchmarks

# 2. Client overhead: every client in interleaved rounds in this one process
# (A B C D, A B C D, ...), so that benchmd can divide each client's figure by
# the hand-written one of the same round (see TestClientOverhead).
"$tmp/benchmarks.test" -test.count 1 -test.run '^TestClientOverhead$' -figures -overhead.rounds "$count" |
	tee "$tmp/client.txt"
# The per-answer costs: plain Benchmark functions, in rounds of one run each.
for _ in $(seq "$count"); do
	"$tmp/benchmarks.test" -test.run '^$' -test.bench '^Benchmark(Responder|WaitStep)$' \
		-test.benchmem -test.count 1
done | tee -a "$tmp/client.txt"

# Where the generated client's time goes, without the network.
"$tmp/benchmarks.test" -test.count 1 -test.run '^TestClientOverhead$' -figures -overhead.rounds 3 \
	-overhead.only inprocess/generated -test.cpuprofile "$tmp/cpu.out" >/dev/null
"$GO" tool pprof -list 'gen\.(NewGetRequestInfoRequest|ParseGetRequestInfoResponse|\(\*Client\)\.GetRequestInfo)$' \
	"$tmp/benchmarks.test" "$tmp/cpu.out" 2>/dev/null |
	grep -v '^ *\. *\. ' | grep -v '^ *$' | sed 's| in /.*/gen/| in gen/|' >"$tmp/pprof.txt" || true

# 1 and 3: measurements in virtual time, run as tests (see harness_test.go).
"$tmp/benchmarks.test" -test.count 1 -test.v -test.timeout 30m -test.run '^(TestEconomy|TestNoHeader|TestStorm|TestScale)$' \
	-figures -economy.n "$economy_n" | tee "$tmp/figures.txt"

# Where the CPU of the largest scale run goes.
"$tmp/benchmarks.test" -test.count 1 -test.run '^TestScale$' -figures \
	-scale.only 'Scale/responder=light/waiter=wait/ids=10000' -test.cpuprofile "$tmp/scale-cpu.out" >/dev/null
"$GO" tool pprof -top -cum -nodecount 30 "$tmp/benchmarks.test" "$tmp/scale-cpu.out" 2>/dev/null |
	sed -n '/flat%/,$p' >"$tmp/scale-pprof.txt" || true

cd ../..
after=$(uptime)
elapsed=$(($(date +%s) - start))
"$GO" run ./internal/benchmarks/benchmd -o "$out" -summary "$summary" -elapsed "${elapsed}s" \
	-load-before "$before" -load-after "$after" -pprof "$tmp/pprof.txt" -scale-pprof "$tmp/scale-pprof.txt" \
	"$tmp/client.txt" "$tmp/figures.txt"
echo "wrote $summary and $out in ${elapsed}s"

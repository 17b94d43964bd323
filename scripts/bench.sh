#!/usr/bin/env bash
# Runs the benchmarks of internal/benchmarks and rewrites BENCHMARKS.md.
#
#   BENCH_COUNT   runs of each client-overhead benchmark (default 5; medians are reported)
#   ECONOMY_N     operations in the request-economy scenario set (default 1000)
#   BENCH_OUT     file to write (default BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
count=${BENCH_COUNT:-5}
economy_n=${ECONOMY_N:-1000}
out=${BENCH_OUT:-BENCHMARKS.md}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
before=$(uptime)

# 2. Client overhead: plain Benchmark functions.
"$GO" test -run '^$' -bench '^Benchmark(ClientOverhead|Responder|WaitStep)$' -benchmem -count "$count" ./internal/benchmarks | tee "$tmp/client.txt"

# Where the generated client's time goes, without the network.
"$GO" test -run '^$' -bench '^BenchmarkClientOverhead$/^inprocess$/^client=generated$' -benchtime 200000x \
	-cpuprofile "$tmp/cpu.out" -o "$tmp/benchmarks.test" ./internal/benchmarks >/dev/null
"$GO" tool pprof -list 'gen\.(NewGetRequestInfoRequest|ParseGetRequestInfoResponse|\(\*Client\)\.GetRequestInfo)$' \
	"$tmp/benchmarks.test" "$tmp/cpu.out" 2>/dev/null |
	grep -v '^ *\. *\. ' | grep -v '^ *$' >"$tmp/pprof.txt" || true

# 1 and 3: measurements in virtual time, run as tests (see harness_test.go).
"$GO" test -count=1 -v -timeout 30m -run '^(TestEconomy|TestScale)$' ./internal/benchmarks \
	-args -figures -economy.n "$economy_n" | tee "$tmp/figures.txt"

after=$(uptime)
elapsed=$(($(date +%s) - start))
"$GO" run ./internal/benchmarks/benchmd -o "$out" -elapsed "${elapsed}s" \
	-load-before "$before" -load-after "$after" -pprof "$tmp/pprof.txt" \
	"$tmp/client.txt" "$tmp/figures.txt"
echo "wrote $out in ${elapsed}s"

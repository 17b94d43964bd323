#!/usr/bin/env bash
# An independent peer for the generated client: installs the pinned Prism
# (tools/prism/package-lock.json -> .cache/prism), serves `prism mock
# openapi.json` on a loopback port, and runs internal/prismpeer, which drives
# every operation of openapi.json through gen.ClientWithResponses against it.
# Fails if Prism rejects a request (422/401/404, or an sl-violations header),
# the client cannot decode a response, or a test or subtest skips.
#
#   scripts/prism.sh              (make prism)
#   PRISM_PORT=4010 scripts/prism.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=$root/.cache/prism
GO=${GO:-go}

if ! command -v npm >/dev/null 2>&1; then
	echo >&2 "prism: npm is not installed (Node >= 18.20 with npm is needed: apt-get install nodejs npm)"
	exit 1
fi

# Install, or reinstall when the pinned lock file changed.
if ! cmp -s tools/prism/package-lock.json "$cache/package-lock.json" || [ ! -x "$cache/node_modules/.bin/prism" ]; then
	echo "prism: installing $(grep -o '"@stoplight/prism-cli": "[^"]*"' tools/prism/package.json) into .cache/prism"
	rm -rf "$cache"
	mkdir -p "$cache"
	cp tools/prism/package.json tools/prism/package-lock.json "$cache/"
	(cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi
echo "prism: $("$cache/node_modules/.bin/prism" --version) on node $(node --version)"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${PRISM_PORT:-}
if [ -z "$port" ]; then
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 20000))
		port_open "$port" || break
	done
fi

log=$(mktemp)
"$cache/node_modules/.bin/prism" mock --host 127.0.0.1 --port "$port" openapi.json >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT

for _ in $(seq 600); do # up to 60 s
	if grep -q "Prism is listening" "$log"; then break; fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo >&2 "prism: the mock server exited:"; cat >&2 "$log"; exit 1
	fi
	sleep 0.1
done
if ! grep -q "Prism is listening" "$log"; then
	echo >&2 "prism: the mock server did not start within 60 s:"; cat >&2 "$log"; exit 1
fi

status=0
PRISM_URL=http://127.0.0.1:$port $GO test -count=1 -v -run . ./internal/prismpeer/ 2>&1 | tee "$log.test" || status=$?
# A skip must not pass for a run: of a test or a subtest (PRISM_URL lost on
# the way, or a t.Skip inside a test), or the main test not run at all.
if [ "$status" -eq 0 ] && grep -q -- "--- SKIP: " "$log.test"; then
	echo >&2 "prism: a test skipped, so it proved nothing against Prism:"
	grep -- "--- SKIP: " "$log.test" >&2
	status=1
elif [ "$status" -eq 0 ] && ! grep -q -- "--- PASS: TestEveryOperationAgainstPrism " "$log.test"; then
	echo >&2 "prism: TestEveryOperationAgainstPrism did not run"
	status=1
fi
if [ "$status" -ne 0 ]; then
	echo >&2 "prism: the mock server's log:"; cat >&2 "$log"
fi
rm -f "$log.test"
exit "$status"

#!/usr/bin/env bash
# Runs `make <step>` for each step, every one even after a failure, and ends
# with ONE verdict line, which names the steps that failed:
#
#   scripts/steps.sh <name> <step>...   (make check, make check-peers)
#
#   <name>: PASS: 8 steps in 95s
#   <name>: FAIL: check-vet test (2 of 8 steps failed; 95s)
#
# While a step runs, a line says so every STEPS_TICK seconds (default 20):
# go test prints a package only when it is done, and some take minutes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
name=$1
shift
MAKE=${MAKE:-make}
failed=()
for step in "$@"; do
	start=$SECONDS
	echo "== $name: make $step"
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM # and its sleep, which holds our stdout
		while :; do
			sleep "${STEPS_TICK:-20}" &
			nap=$!
			wait "$nap"
			echo "== $name: make $step: still running ($((SECONDS - start))s)"
		done
	) &
	ticker=$!
	trap 'kill "$ticker" 2>/dev/null' EXIT
	"$MAKE" --no-print-directory "$step"
	rc=$?
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null
	if [ "$rc" -eq 0 ]; then
		echo "== $name: make $step: ok ($((SECONDS - start))s)"
	else
		echo "== $name: make $step: FAILED ($((SECONDS - start))s)"
		failed+=("$step")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "$name: FAIL: ${failed[*]} (${#failed[@]} of $# steps failed; ${SECONDS}s)"
	exit 1
fi
echo "$name: PASS: $# steps in ${SECONDS}s"

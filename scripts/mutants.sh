#!/usr/bin/env bash
# make mutants: plants each one-line bug of scripts/mutants.txt in turn, runs
# the tests it names, requires them to fail, and puts the file back. The
# tests must pass first, unchanged (run once per distinct test command): a
# failure then means the planted change was caught, not that the tests were
# already broken. One line per planted change, then one verdict line; exit 1
# if any change is not caught or the list is out of date (a find that is not
# on exactly one line, a test pattern that matches nothing, a change that
# does not build).
#
#   scripts/mutants.sh                (make mutants)
#   MUTANTS=scripts/mutants.txt scripts/mutants.sh
#
# Each file is restored from a copy as soon as its tests end, and on any
# exit, Ctrl-C included.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
GO=${GO:-go}
list=${MUTANTS:-scripts/mutants.txt}
[ -r "$list" ] || { echo >&2 "mutants: cannot read $list"; exit 2; }

tmp=$(mktemp -d)
current= # the file that holds a planted change; its copy is $tmp/backup
child=   # the go test running
restore() {
	if [ -n "$current" ]; then
		cp -p "$tmp/backup" "$current" && current=
	fi
}
trap 'restore; rm -rf "$tmp"' EXIT
trap 'if [ -n "$child" ]; then kill "$child" 2>/dev/null; fi; echo >&2 "mutants: interrupted: every file restored"; exit 130' INT TERM HUP

# gotest <log> <env or ""> <package> <pattern>: go test -v of the pattern, its
# exit status returned; in the background, so that a signal reaches the trap.
gotest() {
	local log=$1 env=$2 pkg=$3 pattern=$4
	# shellcheck disable=SC2086 # env is one VAR=value or nothing
	env $env "$GO" test -count=1 -v -timeout 20m -run "$pattern" "$pkg" >"$log" 2>&1 &
	child=$!
	wait "$child"
	local rc=$?
	child=
	return "$rc"
}

# The list: blocks of "key: value" lines, a blank line or the end closing one.
promises=() files=() finds=() replaces=() tests=() envs=()
add() {
	if [ -n "${promise:-}" ]; then
		promises+=("$promise") files+=("${file:-}") finds+=("${find:-}") replaces+=("${replace-}") tests+=("${test:-}") envs+=("${env:-}")
	fi
	promise='' file='' find='' replace='' test='' env=''
}
add
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'#'*) continue ;;
	'') add; continue ;;
	esac
	key=${line%%:*} value=${line#*:}
	value=${value#"${value%%[![:space:]]*}"} # leading blanks
	case $key in
	promise | file | find | replace | test | env) printf -v "$key" '%s' "$value" ;;
	*) echo >&2 "mutants: $list: unknown key in: $line"; exit 2 ;;
	esac
done <"$list"
add

start=$SECONDS
echo "== mutants: ${#promises[@]} planted changes ($list), each against the tests it names"
passed=$'\n' # the test commands that passed unchanged, one a line
caught=0 failures=()
for i in "${!promises[@]}"; do
	promise=${promises[$i]} file=${files[$i]} find=${finds[$i]} replace=${replaces[$i]} env=${envs[$i]}
	pkg=${tests[$i]%% *} pattern=${tests[$i]#* }
	t0=$SECONDS
	verdict=
	if [ -z "$find" ] || [ -z "$pkg" ] || [ "$pattern" = "${tests[$i]}" ]; then
		verdict="STALE: the block lacks a find, or a test with a package and a pattern"
	elif n=$({ grep -o -F -- "$find" "$file" || true; } | wc -l) && [ "$n" -ne 1 ]; then
		verdict="STALE: the find is $n times in $file, not once: re-point it in $list"
	fi
	# The tests as they are, once per command: they must run, and pass.
	cmd="$env $pkg $pattern"
	run="${env:+$env }go test -run '$pattern' $pkg"
	if [ -z "$verdict" ] && [[ $passed != *$'\n'"$cmd"$'\n'* ]]; then
		if ! gotest "$tmp/log" "$env" "$pkg" "$pattern"; then
			verdict="STALE: the tests fail without the change ($run): $(grep -a -m1 -E -- '--- FAIL|\[build failed\]|panic:' "$tmp/log")"
		elif ! grep -q -- '--- PASS' "$tmp/log" || grep -q -- '--- SKIP' "$tmp/log"; then
			verdict="STALE: $run runs no test, or skips one"
		else
			passed+="$cmd"$'\n'
		fi
	fi
	if [ -z "$verdict" ]; then
		cp -p "$file" "$tmp/backup" && current=$file
		F=$find R=$replace awk '{ i = index($0, ENVIRON["F"]); if (i) $0 = substr($0, 1, i - 1) ENVIRON["R"] substr($0, i + length(ENVIRON["F"])); print }' \
			"$tmp/backup" >"$file"
		if cmp -s "$file" "$tmp/backup"; then
			verdict="STALE: the replacement changes nothing"
		elif gotest "$tmp/log" "$env" "$pkg" "$pattern"; then
			verdict="NOT caught"
		elif grep -q -E '\[(build|setup) failed\]' "$tmp/log"; then
			verdict="STALE: the planted change does not build: $(grep -a -m1 -E '^[^[:space:]]+\.go:[0-9]+' "$tmp/log")"
		else
			verdict="caught"
			failed=$(grep -a -E -- '^--- FAIL: ' "$tmp/log" | awk '{ print $3 }' | head -3 | paste -s -d ' ' -)
		fi
		restore
		cmp -s "$file" "$tmp/backup" || { echo >&2 "mutants: $file was not restored"; exit 2; }
	fi
	if [ "$verdict" = caught ]; then
		caught=$((caught + 1))
		printf 'caught      %s (%s: %s; failed: %s; %ss)\n' "$promise" "$file" "$replace" "${failed:-the tests}" "$((SECONDS - t0))"
	else
		failures+=("$promise")
		printf 'NOT caught  %s (%s: %s -> %s): %s\n' "$promise" "$file" "$find" "$replace" "$verdict"
		if [ "$verdict" = "NOT caught" ]; then
			echo "            $run passes with the change"
		fi
	fi
done
if [ ${#failures[@]} -gt 0 ]; then
	echo "mutants: FAIL: ${#failures[@]} of ${#promises[@]} planted changes not caught: $(printf '%s; ' "${failures[@]}")(${caught} caught; $((SECONDS - start))s)"
	exit 1
fi
echo "mutants: PASS: every one of ${#promises[@]} planted changes caught ($((SECONDS - start))s)"

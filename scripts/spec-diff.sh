#!/usr/bin/env bash
# Breaking-change gate for openapi.json, with oasdiff pinned in tools/oasdiff.
#
#   scripts/spec-diff.sh <git ref>   openapi.json at <git ref> vs the working tree
#   scripts/spec-diff.sh <file>      <file> vs the working tree
#   scripts/spec-diff.sh             CI mode: the base is openapi.json before the
#                                    last commit that changed it (or HEAD, when the
#                                    working tree changes it); none: say so, pass
#                                    (a shallow clone: warn, pass); not a git
#                                    checkout: fail
#
# REV=<file> compares against that file instead of ./openapi.json (update-spec
# uses it to report on a fetched spec before writing it; REV_LABEL names it).
# SPEC_DIFF_LIST=<file> also writes every change, one line each (oasdiff's
# singleline format), and <file>.breaking the unacknowledged breaking ones,
# for update-spec's CHANGELOG draft and its list of what needs a human.
#
# It prints every change (oasdiff changelog, under an "info:" heading: its
# errors may be acknowledged), then the breaking ones that are not
# acknowledged in openapi.acknowledged-breaking.txt, and exits 1 if there
# are any. Check levels are adjusted by openapi.severity-levels.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

base_arg=${1:-}
rev=${REV:-openapi.json}
ack=openapi.acknowledged-breaking.txt
levels=openapi.severity-levels.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/before" "$tmp/after"
root=$PWD
# oasdiff runs in its own module (go -C, not -modfile, so that the go command
# reads that go.mod and may switch to its toolchain line under
# GOTOOLCHAIN=...+auto: it needs a newer Go than the library's floor), so
# every path given to it is absolute. Output names the files as
# before/openapi.json and after/openapi.json (or openapi.json for the working
# tree), not by their absolute paths.
oasdiff() { ${GO:-go} -C tools/oasdiff run github.com/oasdiff/oasdiff "$@" | sed "s|$tmp/||g; s|$root/||g"; }

# Pick the base document.
if [ -z "$base_arg" ]; then
	if ! git ls-files --error-unmatch openapi.json >/dev/null 2>&1; then
		echo >&2 "spec-diff: FAIL: openapi.json is not tracked in a git checkout here, so the gate has no base; run it in a clone, or give BASE (a git ref or file)."
		exit 2
	fi
	if ! git diff --quiet HEAD -- openapi.json 2>/dev/null; then
		base_arg=HEAD
		echo "spec-diff: openapi.json has uncommitted changes; comparing against HEAD."
	else
		last=$(git log -1 --format=%H -- openapi.json)
		if [ -z "$last" ]; then
			echo "spec-diff: no commit has changed openapi.json; nothing to compare against."
			exit 0
		fi
		if ! git cat-file -e "$last^:openapi.json" 2>/dev/null; then
			if [ "$(git rev-parse --is-shallow-repository)" = true ] && ! git cat-file -e "$last^" 2>/dev/null; then
				echo >&2 "spec-diff: WARNING: gate NOT run: shallow clone (history stops at $(git rev-parse --short "$last")), so the previous version of openapi.json is not here. Run 'git fetch --unshallow', then this again."
			else
				echo "spec-diff: openapi.json was added by $(git rev-parse --short "$last") and never changed since; nothing to compare against."
			fi
			exit 0
		fi
		base_arg="$last^"
		echo "spec-diff: openapi.json last changed in $(git log -1 --format='%h %s' "$last"); comparing against its parent."
	fi
fi
if [ -f "$base_arg" ]; then
	cp "$base_arg" "$tmp/before/openapi.json"
	base_name=$base_arg
else
	if ! git show "$base_arg:openapi.json" >"$tmp/before/openapi.json" 2>"$tmp/err"; then
		echo >&2 "spec-diff: cannot read openapi.json at '$base_arg': $(cat "$tmp/err")"
		exit 2
	fi
	base_name="$base_arg:openapi.json"
fi

# oasdiff reads neither comments nor blank lines in a levels file; the
# acknowledgement file must give a reason on every line.
grep -v -E '^[[:space:]]*(#|$)' "$levels" >"$tmp/levels" || true
grep -v -E '^[[:space:]]*(#|$)' "$ack" >"$tmp/ack" || true
if bad=$(grep -n -v -E 'reason:[[:space:]]*[^[:space:]]' "$tmp/ack"); then
	echo >&2 "spec-diff: every line of $ack needs 'reason: <why>'; these do not:"
	echo >&2 "$bad"
	exit 2
fi

if [ "$rev" != openapi.json ]; then
	cp "$rev" "$tmp/after/openapi.json"
	rev_label=${REV_LABEL:-$rev}
	rev=$tmp/after/openapi.json
else
	rev_label=openapi.json
	rev=$root/openapi.json
fi

flags=(--color never --allow-external-refs=false --severity-levels "$tmp/levels")
echo "== info: every change from $base_name to ${rev_label:-$rev} (the gate is the next section)"
if ! oasdiff changelog "${flags[@]}" "$tmp/before/openapi.json" "$rev"; then
	echo >&2 "spec-diff: oasdiff cannot compare the two documents (above)."
	exit 2
fi
if [ -n "${SPEC_DIFF_LIST:-}" ]; then
	oasdiff changelog "${flags[@]}" -f singleline "$tmp/before/openapi.json" "$rev" >"$SPEC_DIFF_LIST"
	oasdiff breaking "${flags[@]}" --err-ignore "$tmp/ack" -f singleline "$tmp/before/openapi.json" "$rev" >"$SPEC_DIFF_LIST.breaking"
fi
echo "== Breaking changes not acknowledged in $ack (errors fail the gate, warnings do not)"
if ! oasdiff breaking "${flags[@]}" --err-ignore "$tmp/ack" --fail-on ERR "$tmp/before/openapi.json" "$rev"; then
	echo >&2 "spec-diff: FAIL: breaking changes above. If the Go client and its users can live with them, acknowledge each in $ack (one line each, with a reason); otherwise keep the old spec."
	exit 1
fi
echo "spec-diff: OK: no unacknowledged breaking change."

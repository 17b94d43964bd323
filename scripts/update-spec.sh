#!/usr/bin/env bash
# Refreshes openapi.json from upstream (or any URL or file):
#
#   SPEC=<url or file> scripts/update-spec.sh      (make update-spec SPEC=...)
#
# 1. fetch SPEC and format it like the vendored file (scripts/specfetch);
# 2. print the changes against the vendored openapi.json, breaking ones
#    first-class (scripts/spec-diff.sh, oasdiff pinned in tools/oasdiff);
# 3. write openapi.json and regenerate gen/ (make generate: the preparation
#    step, scripts/specprep, then oapi-codegen) and go mod tidy every module
#    (make tidy): they move together, or, when the generator refuses the spec
#    or tidy fails, the verdict names which and none moves;
#    then load it in tensorpooltest's engine;
# 4. print the Go API changes of the regenerated tree against HEAD
#    (scripts/api-diff.sh, apidiff pinned in tools/apidiff) and the semver
#    bump the whole change implies;
# 5. write a draft entry under "## [Unreleased]" in CHANGELOG.md;
# 6. run the checks: `make $SPEC_CHECKS` (default: check; empty: none);
# 7. list the new operations (information: tensorpooltest answers each as
#    the document says, with no hand edit) apart from ONE list of what
#    still needs a human, by name: unacknowledged breaking changes (wire and
#    Go), operations without a generated client method, new response enum
#    values, the CHANGELOG draft; and a verdict naming the first failure, in
#    one line: the generator's or go mod tidy's message, the first compile
#    error of code that no longer builds against the new gen/, the engine's
#    load error, the failing step or test. A failed check is never called a
#    pass, and makes the script exit 1.
#
# Unacknowledged breaking changes do not stop the update (you need the new
# files to judge them), but they make it exit 1 after a summary, and `make
# check` (its spec-diff and api-diff steps) keeps failing until they are
# acknowledged or the old spec is restored.
#
# The version rule (README, "Versioning"): a break of either the wire
# contract (an oasdiff error) or the Go API (an apidiff incompatible change)
# is a MAJOR bump, released as a MINOR one while the module is v0 (no v1+
# tag); any other reported change is a minor bump; nothing reported, a patch.
# To cut a release: move the [Unreleased] entries of CHANGELOG.md under
# "## [X.Y.Z] - YYYY-MM-DD", commit, tag vX.Y.Z on that commit, push the tag.
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${SPEC:-https://engine.tensorpool.dev/openapi.json}
checks=${SPEC_CHECKS-check}
GO=${GO:-go}
MAKE=${MAKE:-make}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== Fetching $spec"
$GO run ./scripts/specfetch -o "$tmp/openapi.json" "$spec"
if cmp -s "$tmp/openapi.json" openapi.json; then
	echo "openapi.json is already what $spec serves; nothing to do."
	exit 0
fi

breaking=0
wire=$tmp/wire.txt # every wire change, oasdiff singleline; $wire.breaking: the unacknowledged ones
SPEC_DIFF_LIST=$wire REV="$tmp/openapi.json" REV_LABEL="$spec" ./scripts/spec-diff.sh openapi.json || breaking=$?
if [ "$breaking" -gt 1 ]; then
	exit "$breaking" # the diff itself failed (bad acknowledgement file, unreadable spec)
fi

echo "== Writing openapi.json and regenerating gen/"
# openapi.json, gen/ and the modules' go.mod and go.sum move together, or not at all.
# (No mapfile, no cp --parents: macOS has bash 3.2 and BSD cp.)
saved=(openapi.json gen)
while IFS= read -r f; do
	saved+=("$f")
done < <(git ls-files -- 'go.mod' 'go.sum' '*/go.mod' '*/go.sum')
for f in "${saved[@]}"; do
	mkdir -p "$tmp/old/$(dirname "$f")" && cp -R "$f" "$tmp/old/$f"
done
cp "$tmp/openapi.json" openapi.json
# refused <log> <what failed> <hint>: put the saved files back, name the
# failure with the log's first error line (else its last line, make's and
# the generator's own lines aside) and stop.
refused() {
	rm -rf gen && cp -R "$tmp/old/." .
	why=$(awk '/^(go generate|make|specprep: [a-z-]+ \()/ || NF == 0 { next }
		{ sub(/^[[:space:]]+/, "") }
		tolower($0) ~ /error|fail|panic/ { print; found = 1; exit }
		{ last = $0 }
		END { if (!found) print last }' "$1")
	echo "== Summary"
	echo "update-spec: FAIL: $2: $why"
	echo "update-spec: openapi.json, gen/ and the modules' go.mod and go.sum are left as they were. $3"
	exit 1
}
if ! $MAKE generate 2>&1 | tee "$tmp/generate.log"; then
	refused "$tmp/generate.log" "the generator refuses the new spec" \
		"A preparation rule (scripts/specprep) may be missing for it, or a project edit's target is gone."
fi
if ! $MAKE tidy 2>&1 | tee "$tmp/tidy.log"; then
	refused "$tmp/tidy.log" "go mod tidy (make tidy) fails on the regenerated gen/" \
		"The generated code may import a module that cannot be fetched here (network, GOPROXY, GOFLAGS)."
fi

# The first real failure, for the verdict (set once).
first=
fail() { if [ -z "$first" ]; then first=$1; fi; }

echo "== Loading the new spec in tensorpooltest's engine"
# The test compiles the root package, tensorpooltest and wait against the
# new gen/ first: a build failure is theirs (or gen/'s), not the engine's.
if ! $GO test -count=1 -run '^TestOpenAPIDocumentIsValid$' . >"$tmp/engine.log" 2>&1; then
	cat "$tmp/engine.log"
	if grep -q -F '[build failed]' "$tmp/engine.log"; then
		err=$(awk '/^[^[:space:]#][^[:space:]]*\.go:[0-9]+(:[0-9]+)?: / { print; exit }' "$tmp/engine.log")
		case $err in
		gen/*) fail "the regenerated gen/ does not compile: $err" ;;
		*) fail "hand-written code no longer compiles against the new gen: ${err:-$(grep -m1 -F '[build failed]' "$tmp/engine.log")}" ;;
		esac
	else
		fail "the engine (tensorpooltest) cannot load the new spec: $(grep -m1 -E 'refuses|does not load|panic|\.go:[0-9]+:[0-9]+: ' "$tmp/engine.log" | sed -E 's/.*refuses openapi.json: //')"
	fi
fi
# The generated code may import what the module did not need (a YAML
# decoder for a YAML response, say): go mod tidy above added it.
if ! cmp -s go.mod "$tmp/old/go.mod"; then
	deps=$({ diff "$tmp/old/go.mod" go.mod || true; } | sed -n -E 's/^> +([^ ]+ v[^ ]+).*/\1/p' | tr '\n' ' ')
	newdeps="go.mod gains $deps(the regenerated gen/ imports it): a dependency of every user; keep it, or keep its content type out of the client (scripts/specprep)"
fi

goapi=$tmp/go.tsv # <package> <incompatible|expected|compatible|broken> <change> <reason or ->
: >"$goapi"
api=0
GO=$GO API_DIFF_LIST=$goapi ./scripts/api-diff.sh HEAD || api=$?

# The semver bump of the whole change (see the rule at the top).
has() { awk -F'\t' -v k="$2" '$2 == k { f = 1 } END { exit !f }' "$1"; }
bump='patch'
if grep -q -E '^(error|warning|info) ' "$wire" || has "$goapi" compatible || has "$goapi" expected; then
	bump=minor
fi
if grep -q -E '^error ' "$wire" || has "$goapi" incompatible; then
	bump=major
fi
echo "== Version"
if [ "$bump" = major ] && ! git tag --list 'v[1-9]*' | grep -q .; then
	echo "update-spec: a breaking change (wire or Go API): a MAJOR bump by semver, but the module is v0 (no v1+ tag), so the next release is a MINOR bump (v0.x.y -> v0.(x+1).0)."
else
	echo "update-spec: the change implies a $bump version bump."
fi

# plain <singleline oasdiff change>: "<level>\t<what, in plain words>\t<section>"
plain() {
	sed -n -E 's/^(error|warning|info) at [^,]*, in (.*) \[([a-z0-9-]+)\]\.( .*)?$/\1\t\2\t\3/p' |
		while IFS=$'\t' read -r level what id; do
			case $id in
			*deprecat*) section=Deprecated ;;
			*removed*) section=Removed ;;
			*added* | new-*) section=Added ;;
			*) section=Changed ;;
			esac
			if [[ $what =~ ^API\ ([A-Z]+\ [^ ]+)\ (.*)$ ]]; then
				what="\`${BASH_REMATCH[1]}\`: ${BASH_REMATCH[2]}"
			fi
			printf '%s\t%s\t%s\n' "$level" "$what" "$section"
		done
}

# The CHANGELOG.md draft, Keep a Changelog sections, under [Unreleased].
draft=$tmp/draft.md
{
	echo "<!-- Draft written by make update-spec on $(date -u +%F) from $spec: reword, merge into the"
	echo "     sections of [Unreleased], then delete this comment. Implied bump: $bump$([ "$bump" = major ] && ! git tag --list 'v[1-9]*' | grep -q . && echo ' (a minor bump while v0)'). -->"
	for section in Added Changed Deprecated Removed; do
		items=$(
			plain <"$wire" | awk -F'\t' -v s="$section" '$3 == s { printf "- API: %s%s.\n", ($1 == "error" ? "**breaking**: " : ""), $2 }'
			awk -F'\t' -v s="$section" '{
				sec = "Changed"
				if ($3 ~ /: added$/) sec = "Added"
				if ($3 ~ /: removed$/) sec = "Removed"
				i = index($3, ": ")
				if (sec == s) printf "- Go: %s`%s.%s`: %s.\n", ($2 == "incompatible" ? "**breaking**: " : ""), $1, substr($3, 1, i - 1), substr($3, i + 2)
				if (sec == s && $2 == "expected" && !noted++) expected = 1
			} END {
				if (expected) print "- Go: a type of yours that implements `gen.ClientInterface` or `gen.ClientWithResponsesInterface`, such as a mock, must add the new methods: the expected break of a new operation."
			}' "$goapi"
		)
		if [ -n "$items" ]; then
			printf '### %s\n\n%s\n\n' "$section" "$items"
		fi
	done
} >"$draft"
if [ ! -f CHANGELOG.md ]; then
	printf '# Changelog\n\n## [Unreleased]\n' >CHANGELOG.md
fi
if ! grep -q '^## \[Unreleased\]' CHANGELOG.md; then
	awk 'NR == 1 { print; print ""; print "## [Unreleased]"; next } { print }' CHANGELOG.md >"$tmp/cl" && cp "$tmp/cl" CHANGELOG.md
fi
awk -v draft="$draft" '{ print } /^## \[Unreleased\]/ && !done { print ""; while ((getline l < draft) > 0) print l; done = 1 }' CHANGELOG.md >"$tmp/cl"
cp "$tmp/cl" CHANGELOG.md
echo "== CHANGELOG.md: draft entry written under [Unreleased]"
cat "$draft"

# unexplained <go test log>: what failed in a run, in one line, where no
# step and no test is named: a panic outside a test (a goroutine's,
# TestMain's, a -timeout), a data race, a build or setup failure. Each
# package's output ends with its "ok", "?" or "FAIL<tab><pkg>" line (go test
# prints packages whole). Output a test quotes is indented: not matched.
unexplained() {
	awk '
	/^[^[:space:]#][^[:space:]]*\.go:[0-9]+(:[0-9]+)?: / && compile == "" { compile = $0 }
	/^panic: / && sign == "" { sign = $0 }
	/^WARNING: DATA RACE/ && sign == "" { sign = "a data race" }
	/^(ok|FAIL|\?)[[:space:]]/ {
		if ($1 == "FAIL" && why == "") {
			if ($0 ~ /\[build failed\]/) {
				why = $2 " does not build" (compile != "" ? ": " compile : "")
			} else if ($0 ~ /\[[a-z ]*failed\]/) {
				why = $2 " " $3 " " $4
			} else if (sign != "") {
				why = $2 ": " sign
			} else {
				why = $2 " fails"
			}
		}
		sign = ""
	}
	END { print (why != "" ? why : "no failing package named") }' "$1"
}

checked=0
if [ -n "$checks" ]; then
	echo "== make $checks"
	set +e
	# shellcheck disable=SC2086 # the checks are several words
	$MAKE -k $checks 2>&1 | tee "$tmp/checks.log" # -k: one failing check does not hide the others
	checked=${PIPESTATUS[0]}
	set -e
	# The first failure, named: a failing step, else the first failing test,
	# else what go test says. A failed run is never called a pass.
	step=$(sed -n -E 's/^== check[a-z-]*: make ([a-z-]+): FAILED.*/\1/p' "$tmp/checks.log" | { grep -v -x test || true; } | head -n 1)
	test=$(sed -n -E 's/^[[:space:]]*--- FAIL: ([A-Za-z0-9_]+).*/\1/p' "$tmp/checks.log" | head -n 1)
	if [ -n "$step" ]; then
		fail "make $step fails on the new spec (above)"
	elif [ -n "$test" ]; then
		fail "$test fails on the new spec: $(grep -m1 -A1 -E -- "--- FAIL: $test" "$tmp/checks.log" | tail -n 1 | sed -E 's/^[[:space:]]+//')"
	elif [ "$checked" -ne 0 ]; then
		fail "make $checks fails on the new spec: $(unexplained "$tmp/checks.log") (above)"
	fi
fi

# What still needs a human, by name, in one list.
needs=()
while IFS=$'\t' read -r level what _; do
	case $level in
	error) needs+=("breaking wire change not acknowledged in openapi.acknowledged-breaking.txt: $what") ;;
	warning) needs+=("wire change to check callers against (code that switches on a new enum value needs a default branch): $what") ;;
	esac
done < <(plain <"$wire.breaking" 2>/dev/null)
while IFS=$'\t' read -r name kind change reason; do
	if [ "$kind" = incompatible ] && [ "$reason" = - ]; then
		needs+=("incompatible Go API change not acknowledged in go-api.acknowledged-breaking.txt: $name $change")
	elif [ "$kind" = broken ]; then
		needs+=("package $name does not build against the regenerated gen/ (api-diff output above): update it, or keep the old Go names with an x-go-name (scripts/specprep's projectEdits)")
	fi
done <"$goapi"
if [ "$api" -gt 1 ]; then
	needs+=("the Go API could not be compared (api-diff output above): does the regenerated tree build?")
fi
# missing <package> <test> <prefix>: the operations the test names after
# prefix, one a line; if it fails for another reason, "!" and why.
missing() {
	local out
	if out=$($GO test -count=1 -run "^$2\$" "$1" 2>&1); then
		return
	fi
	if grep -q -F "$3" <<<"$out"; then
		sed -n "s/.*$3 *//p" <<<"$out"
	else
		echo "!$2 ($1) fails for a reason other than a missing operation: $(grep -m1 -E 'panic|FAIL|_test.go' <<<"$out")"
	fi
}
# The new operations: information, not work. tensorpooltest answers each as
# the document says, and TestEveryOperationAnswers covers it.
mapfile -t added < <(sed -n -E 's/.* in API ([A-Z]+ [^ ]+) endpoint added \[endpoint-added\].*/\1/p' "$wire" | sort -u)
while IFS= read -r op; do
	case $op in
	'!'*) fail "${op#!}" ;;
	*) needs+=("no generated client method (a scripts/specprep rule?): $op") ;;
	esac
done < <(missing . TestEveryOperationHasAClientMethod "operation without a generated client method:")
if [ -n "${newdeps:-}" ]; then
	needs+=("$newdeps")
fi
needs+=("CHANGELOG.md: the draft under [Unreleased] (reword it, merge it into the sections)")
echo "== New operations: tensorpooltest answers them as the document says, no hand edit needed (${#added[@]})"
if [ ${#added[@]} -gt 0 ]; then
	printf -- '- %s\n' "${added[@]}"
fi
echo "== Needs a human (${#needs[@]})"
printf -- '- %s\n' "${needs[@]}"

echo "== Summary"
if [ -n "$first" ]; then
	echo "update-spec: FAIL: $first"
fi
if [ "$breaking" -ne 0 ]; then
	echo "update-spec: openapi.json and gen/ are updated, with breaking changes (above) that openapi.acknowledged-breaking.txt does not acknowledge; CI fails until each is acknowledged with a reason, or the old spec is restored (git checkout openapi.json gen)."
fi
if [ "$api" -ne 0 ]; then
	echo "update-spec: the regenerated gen/ breaks the Go API (above) without an acknowledgement in go-api.acknowledged-breaking.txt; CI fails until each is acknowledged with a reason, an x-go-name keeps a schema's old names (scripts/specprep's projectEdits), or the old spec is restored."
fi
if [ -n "$first" ] || [ "$breaking" -ne 0 ] || [ "$api" -ne 0 ]; then
	exit 1
fi
if [ -z "$checks" ]; then
	echo "update-spec: openapi.json, gen/ and CHANGELOG.md are updated; nothing was checked (SPEC_CHECKS is empty): run make check. Review 'git diff', see the lists above, commit."
else
	echo "update-spec: openapi.json, gen/ and CHANGELOG.md are updated and make $checks passes. Review 'git diff', see the lists above, commit."
fi

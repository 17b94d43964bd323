#!/usr/bin/env bash
# Go API gate: what importers of this module compile against, compared with
# golang.org/x/exp/cmd/apidiff (pinned in tools/apidiff).
#
#   scripts/api-diff.sh <git ref>   packages at <git ref> vs the working tree
#   scripts/api-diff.sh             CI mode: the base is the latest v* tag; with
#                                   none, the parent of the last commit that
#                                   changed openapi.json, oapi-codegen.yaml,
#                                   scripts/specprep or gen/ (or HEAD,
#                                   when the working tree changes them); no such
#                                   commit: say so, pass (a shallow clone: warn,
#                                   pass); not a git checkout: fail
#
# What is compared: the whole module, every package an importer can import
# (apidiff -m; internal packages are not API): today gen, tensorpool (the
# root), wait and tensorpooltest. The base is extracted with `git archive`
# into a temporary directory; apidiff -m -w writes the module's export data
# in both trees, then compares them.
#
# It prints every change once, by package: an incompatible change
# acknowledged in go-api.acknowledged-breaking.txt under a heading of its
# own, with its reason. Then it lists the incompatible changes not
# acknowledged, and exits 1 if there are any (2 if the comparison itself
# fails). apidiff exits 0 even on incompatible changes, so
# its "Incompatible changes:" / "Compatible changes:" sections are read here.
# Before the verdict, an "info:" line counts the changes and names the version
# bump they imply on their own (major/minor/patch; while the module is v0, a
# major one is cut as a minor): information, which a passing run prints too.
#
# Policy: a method added to gen.ClientInterface or gen.ClientWithResponsesInterface
# is an expected break. apidiff rightly calls it incompatible: a type of the
# user's that implements the interface, such as a mock, stops doing so. But
# every new operation of a spec sync adds one, and the compatibility promise
# (CONTRIBUTING, "Versioning") covers calling these interfaces, not
# implementing them. So it is reported once, in a section of its own, needs
# no acknowledgement, and implies a minor bump, as a new operation does.
#
# Blind spots of apidiff: it does not report renamed parameters (a
# positional call still compiles, so that is right for Go callers), nor a
# change in behaviour; oasdiff (scripts/spec-diff.sh) covers the wire.
#
# API_DIFF_LIST=<file> also writes one line per change, tab-separated:
# <package> <incompatible|expected|compatible|broken> <change> <acknowledgement reason or ->,
# for scripts/update-spec.sh's report and CHANGELOG draft.
#
# gorelease is not used: it asks the module proxy for the base version,
# which an unpublished module or a plain git ref does not have.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GOWORK=off
base_arg=${1:-}
ack=go-api.acknowledged-breaking.txt
watched=(openapi.json oapi-codegen.yaml scripts/specprep gen)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo >&2 "api-diff: FAIL: not a git checkout, so there is no base to compare with; run it in a clone."
	exit 2
fi

# Pick the base commit.
if [ -z "$base_arg" ]; then
	tag=$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || true)
	if [ -n "$tag" ]; then
		base_arg=$tag
		echo "api-diff: comparing against the latest release tag, $tag."
	elif [ -n "$(git status --porcelain -- "${watched[@]}")" ]; then
		base_arg=HEAD
		echo "api-diff: the spec, the generator configuration or gen/ has uncommitted changes; comparing against HEAD."
	else
		last=$(git log -1 --format=%H -- "${watched[@]}")
		if [ -z "$last" ]; then
			echo "api-diff: no commit has changed the spec or gen/; nothing to compare against."
			exit 0
		fi
		if ! git cat-file -e "$last^" 2>/dev/null; then
			if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
				echo >&2 "api-diff: WARNING: gate NOT run: shallow clone (history stops at $(git rev-parse --short "$last")), so the API before the last spec or gen/ change is not here. Run 'git fetch --unshallow', then this again."
			else
				echo "api-diff: gen/ was added by $(git rev-parse --short "$last") and its inputs never changed since; nothing to compare against."
			fi
			exit 0
		fi
		base_arg="$(git rev-parse --short "$last")^"
		echo "api-diff: the spec or gen/ last changed in $(git log -1 --format='%h %s' "$last"); comparing against its parent."
	fi
fi
if ! base=$(git rev-parse --verify -q "$base_arg^{commit}"); then
	echo >&2 "api-diff: '$base_arg' is not a commit here."
	exit 2
fi

# The acknowledgement file: <package> <change as printed> reason: <why>.
declare -A reasons=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
	if [[ ! $line =~ ^(.*[^[:space:]])[[:space:]]+reason:[[:space:]]*([^[:space:]].*)$ ]]; then
		echo >&2 "api-diff: every line of $ack needs '<package> <change> reason: <why>'; line $n does not:"
		echo >&2 "$line"
		exit 2
	fi
	reasons[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done <"$ack"

# go -C, not -modfile: under GOTOOLCHAIN=<floor>+auto the go command switches
# to tools/apidiff's toolchain line for this build alone (-modfile never switches).
$GO -C tools/apidiff build -o "$tmp/apidiff" golang.org/x/exp/cmd/apidiff
mkdir "$tmp/base"
git archive "$base" | tar -x -C "$tmp/base"
module=$($GO list -m)

# The whole module's API in each tree (apidiff -m: every importable
# package, a new one included; internal ones are not API).
if ! (cd "$tmp/base" && "$tmp/apidiff" -m -w "$tmp/old" "$module") >"$tmp/err" 2>&1; then
	echo >&2 "api-diff: cannot read the API of the module at $base_arg: $(grep -v '^Ignoring internal' "$tmp/err")"
	exit 2
fi
list=$tmp/list
: >"$list"
broken=()
echo "== info: Go API changes from $base_arg ($(git rev-parse --short "$base")) to the working tree (apidiff -m; renamed parameters are not reported)"
if "$tmp/apidiff" -m -w "$tmp/new" "$module" >"$tmp/err" 2>&1; then
	"$tmp/apidiff" -m "$tmp/old" "$tmp/new" 2>/dev/null >"$tmp/report"
else
	# apidiff -m needs every package to build. Where one does not (typically
	# a hand-written package that uses a gen/ identifier the regeneration
	# removed, as importers would see), each importable package is compared
	# on its own, and those that do not build are named.
	: >"$tmp/report"
	importable() { (cd "$1" && $GO list -e -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' ./... 2>/dev/null | grep -v '/internal\(/\|$\)'); }
	for ip in $({ importable "$tmp/base"; importable "$PWD"; } | sort -u); do
		old=$tmp/old.pkg new=$tmp/new.pkg
		rm -f "$old" "$new"
		(cd "$tmp/base" && "$tmp/apidiff" -w "$old" "$ip") >/dev/null 2>&1 || true
		if ! "$tmp/apidiff" -w "$new" "$ip" >"$tmp/err" 2>&1 && importable "$PWD" | grep -qx "$ip"; then
			name=${ip#"$module"} name=${name#/}
			echo "${name:-tensorpool}: DOES NOT BUILD in the working tree:"
			sed "s|$PWD/||; s/^/  /" "$tmp/err" | awk '!seen[$0]++' | head -n 20
			broken+=("${name:-tensorpool}")
			printf '%s\t%s\t%s\t%s\n' "${name:-tensorpool}" broken "does not build in the working tree" - >>"$list"
			continue
		fi
		dir=${ip#"$module"} dir=${dir#/}
		if [ ! -f "$old" ]; then
			echo "Compatible changes:" >>"$tmp/report"
			echo "- package $ip: added" >>"$tmp/report"
		elif [ ! -f "$new" ]; then
			echo "Incompatible changes:" >>"$tmp/report"
			echo "- package $ip: removed" >>"$tmp/report"
		else # as apidiff -m prints a package's change
			"$tmp/apidiff" "$old" "$new" | sed "s|^- |- ${dir:+./$dir.}|" >>"$tmp/report"
		fi
	done
fi
# Each change once, in its package and kind (see "Policy" at the top).
# apidiff prints a package's change as "./<dir>.<change>", the root's
# as "<change>", and a package that comes or goes as "package <path>: added".
awk -v module="$module" '
	/^Incompatible changes:/ { kind = "incompatible"; next }
	/^Compatible changes:/ { kind = "compatible"; next }
	!/^- / { next }
	{
		c = substr($0, 3); name = "tensorpool"
		if (c ~ /^package /) {
			sub(/^package /, "", c); path = c; sub(/: .*/, "", path); c = "package " substr(c, length(path) + 3)
			name = (path == module) ? "tensorpool" : substr(path, length(module) + 2)
		} else if (c ~ /^\.\//) {
			c = substr(c, 3); i = index(c, "."); name = substr(c, 1, i - 1); c = substr(c, i + 1)
		}
		k = kind
		if (name == "gen" && c ~ /^(ClientInterface|ClientWithResponsesInterface)\.[A-Za-z0-9_]+: added$/) k = "expected"
		if (!seen[name SUBSEP c]++) print name "\t" k "\t" c
	}' "$tmp/report" >"$tmp/changes"
while IFS=$'\t' read -r name kind change; do
	reason=-
	[ "$kind" != incompatible ] || reason=${reasons[$name $change]:--}
	printf '%s\t%s\t%s\t%s\n' "$name" "$kind" "$change" "$reason" >>"$list"
done <"$tmp/changes"
for name in $(awk -F'\t' '$2 != "broken" && !seen[$1]++ { print $1 }' "$list"); do
	echo "$name:"
	for k in incompatible acknowledged expected compatible; do
		case $k in
		incompatible) header="Incompatible changes:" ;;
		acknowledged) header="Incompatible changes, acknowledged in $ack:" ;;
		expected) header="Expected with new operations: they break a type of yours that implements the interface, such as a mock:" ;;
		compatible) header="Compatible changes:" ;;
		esac
		printed=
		while IFS=$'\t' read -r n kind change reason; do
			[ "$n" = "$name" ] || continue
			case $k in
			incompatible) [ "$kind" = incompatible ] && [ "$reason" = - ] || continue ;;
			acknowledged) [ "$kind" = incompatible ] && [ "$reason" != - ] || continue ;;
			*) [ "$kind" = "$k" ] || continue ;;
			esac
			[ -n "$printed" ] || echo "  $header"
			printed=1
			if [ $k = acknowledged ]; then
				echo "  - $change (reason: $reason)"
			else
				echo "  - $change"
			fi
		done <"$list"
	done
done
if [ ! -s "$list" ]; then
	echo "no change"
fi
if [ -n "${API_DIFF_LIST:-}" ]; then
	cp "$list" "$API_DIFF_LIST"
fi

incompatible=0 compatible=0 expected=0 acked=0 unacked=()
while IFS=$'\t' read -r name kind change reason; do
	case $kind in
	compatible | expected)
		compatible=$((compatible + 1))
		[ "$kind" = compatible ] || expected=$((expected + 1))
		continue
		;;
	broken) continue ;;
	esac
	incompatible=$((incompatible + 1))
	if [ "$reason" = - ]; then
		unacked+=("$name $change")
	else
		acked=$((acked + 1))
	fi
done <"$list"

if [ "$incompatible" -gt 0 ]; then
	bump=major
elif [ "$compatible" -gt 0 ]; then
	bump=minor
else
	bump='patch'
fi
note=
if [ "$bump" = major ] && ! git tag --list 'v[1-9]*' | grep -q .; then
	note=" (the module is v0: an incompatible change is released as a MINOR bump, v0.x.y -> v0.(x+1).0)"
fi
if [ "$incompatible" -gt 0 ] && [ "$acked" = "$incompatible" ]; then
	note+="; each incompatible change is acknowledged: nothing to fix"
fi
summary="info: api-diff: $incompatible incompatible ($acked acknowledged), $compatible compatible change(s) ($expected of them expected with new operations) since $base_arg: on its own, the Go API change implies a $bump version bump$note"

echo "== Incompatible changes not acknowledged in $ack"
if [ ${#unacked[@]} -gt 0 ] || [ ${#broken[@]} -gt 0 ]; then
	if [ ${#unacked[@]} -gt 0 ]; then
		printf '%s\n' "${unacked[@]}"
	fi
	echo "$summary"
	if [ ${#broken[@]} -gt 0 ]; then
		echo >&2 "api-diff: FAIL: ${broken[*]} no longer build(s) against the working tree (above): its API cannot be compared, and code like it that imports gen breaks the same way."
	fi
	if [ ${#unacked[@]} -eq 0 ]; then
		exit 1
	fi
	echo >&2 "api-diff: FAIL: ${#unacked[@]} incompatible Go API change(s) above break code that imports these packages. If that is intended, acknowledge each in $ack (one line each: the package, the change as printed, 'reason: <why>'); otherwise keep the old names (an x-go-name on the schema or property, in scripts/specprep's projectEdits) or change the code."
	exit 1
fi
echo "(none)"
echo "$summary"
echo "api-diff: OK: no unacknowledged incompatible change."

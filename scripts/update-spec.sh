#!/usr/bin/env bash
# Refreshes openapi.json from upstream (or any URL or file):
#
#   SPEC=<url or file> scripts/update-spec.sh      (make update-spec SPEC=...)
#
# 1. fetch SPEC and format it like the vendored file (scripts/specfetch);
# 2. print the changes against the vendored openapi.json, breaking ones
#    first-class (scripts/spec-diff.sh, oasdiff pinned in tools/oasdiff);
# 3. write openapi.json and regenerate gen/ (make generate);
# 4. run the checks: `make $SPEC_CHECKS` (default: check; empty: none).
#
# Unacknowledged breaking changes do not stop the update (you need the new
# files to judge them), but they make it exit 1 after a summary, and `make
# check` (its spec-diff step) keeps failing until they are acknowledged or the
# old spec is restored.
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
REV="$tmp/openapi.json" REV_LABEL="$spec" ./scripts/spec-diff.sh openapi.json || breaking=$?
if [ "$breaking" -gt 1 ]; then
	exit "$breaking" # the diff itself failed (bad acknowledgement file, unreadable spec)
fi

echo "== Writing openapi.json and regenerating gen/"
cp "$tmp/openapi.json" openapi.json
if ! $MAKE generate; then
	echo >&2 "update-spec: openapi.json is written but gen/ cannot be generated from it (above). A strict overlay action whose target is gone means oapi-codegen.overlay.yaml needs updating; 'git checkout openapi.json gen' restores the old spec."
	exit 1
fi

checked=0
if [ -n "$checks" ]; then
	echo "== make $checks"
	$MAKE -k $checks || checked=$? # -k: one failing check does not hide the others
fi

echo "== Summary"
if [ "$breaking" -ne 0 ]; then
	echo "update-spec: openapi.json and gen/ are updated, with breaking changes (above) that openapi.acknowledged-breaking.txt does not acknowledge; CI fails until each is acknowledged with a reason, or the old spec is restored (git checkout openapi.json gen)."
fi
if [ "$checked" -ne 0 ]; then
	echo "update-spec: 'make $checks' fails on the new spec (above)."
fi
if [ "$breaking" -ne 0 ] || [ "$checked" -ne 0 ]; then
	exit 1
fi
echo "update-spec: openapi.json and gen/ are updated and the checks pass. Review 'git diff', add contract tests for new operations, commit."

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
# files to judge them), but they are repeated at the end and `make check`
# (spec-diff step) keeps failing until they are acknowledged or reverted.
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
$MAKE generate

if [ -n "$checks" ]; then
	echo "== make $checks"
	$MAKE $checks
fi

if [ "$breaking" -ne 0 ]; then
	echo "update-spec: openapi.json is updated, but it has breaking changes (listed above) that openapi.acknowledged-breaking.txt does not acknowledge; CI will fail until it does."
else
	echo "update-spec: openapi.json and gen/ are updated. Review 'git diff', add contract tests for new operations, commit."
fi

#!/usr/bin/env bash
# Fails when gofmt would change a Go file of the checkout (tracked or untracked,
# not ignored), or when there is no file list to check (not a git checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! files=$(git ls-files --cached --others --exclude-standard '*.go') || [ -z "$files" ]; then
	echo >&2 "check-format: 'git ls-files' lists no Go file: run it in a git checkout of tensorpool-go."
	exit 1
fi
existing=()
while IFS= read -r f; do
	if [ -f "$f" ]; then existing+=("$f"); fi # not if deleted in the work tree
done <<<"$files"
out=$(gofmt -l "${existing[@]}")
if [ -n "$out" ]; then
	echo >&2 "gofmt would change:"
	echo >&2 "$out"
	exit 1
fi
echo "check-format: ${#existing[@]} Go files are gofmt-clean"

#!/usr/bin/env bash
# Fails when gen/ is not exactly what the pinned generators produce from
# openapi.json (oapi-codegen, then scripts/genops into gen/operations): a
# changed, missing or extra file (tracked, untracked or ignored;
# gen/generate.go excepted). It regenerates in a scratch copy of the
# checkout whose gen/ holds only generate.go and compares the two
# directories; the working tree is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! git ls-files -z --cached --others --exclude-standard >"$tmp/files" || [ ! -s "$tmp/files" ]; then
	echo >&2 "check-generated: 'git ls-files' lists nothing: run it in a git checkout of tensorpool-go."
	exit 1
fi
if [ ! -f gen/generate.go ]; then
	echo >&2 "check-generated: gen/generate.go (the package doc and //go:generate directive) is missing."
	exit 1
fi
while IFS= read -r -d '' f; do
	case $f in gen/*) continue ;; esac
	if [ -f "$f" ]; then printf '%s\0' "$f"; fi # not if deleted in the work tree
done <"$tmp/files" >"$tmp/inputs"
printf '%s\0' gen/generate.go >>"$tmp/inputs"
copy=$tmp/clean
mkdir "$copy"
tar --null -T "$tmp/inputs" -cf - | tar -xf - -C "$copy"
(cd "$copy" && ${GO:-go} generate ./gen)
if ! diff -ru gen "$copy/gen" >"$tmp/diff"; then
	sed "s|$copy/gen|regenerated|g" "$tmp/diff"
	echo >&2 "check-generated: gen/ is not what the pinned generators produce from openapi.json (a 'regenerated' file differs, or 'Only in gen' names a file the generators do not write): run 'make generate', delete any extra file, and commit the result."
	exit 1
fi
echo "check-generated: gen/ is exactly what the pinned generators produce"

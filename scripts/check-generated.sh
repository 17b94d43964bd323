#!/usr/bin/env bash
# Fails when the generated code is not exactly what the pinned generators
# produce from openapi.json: gen/ (oapi-codegen; gen/generate.go excepted)
# and internal/operations/operations.gen.go (scripts/genops). A changed,
# missing or extra file in gen/ (tracked, untracked or ignored) fails. It
# regenerates in a scratch copy of the checkout without them and compares;
# the working tree is never touched.
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
	case $f in gen/* | internal/operations/operations.gen.go) continue ;; esac
	if [ -f "$f" ]; then printf '%s\0' "$f"; fi # not if deleted in the work tree
done <"$tmp/files" >"$tmp/inputs"
printf '%s\0' gen/generate.go >>"$tmp/inputs"
copy=$tmp/clean
mkdir "$copy"
tar --null -T "$tmp/inputs" -cf - | tar -xf - -C "$copy"
(cd "$copy" && ${GO:-go} generate ./gen)
ops=internal/operations/operations.gen.go
if ! diff -ru gen "$copy/gen" >"$tmp/diff" || ! diff -u "$ops" "$copy/$ops" >>"$tmp/diff"; then
	sed "s|$copy/|regenerated/|g" "$tmp/diff"
	echo >&2 "check-generated: gen/ or $ops is not what the pinned generators produce from openapi.json (a 'regenerated' file differs, or 'Only in gen' names a file the generators do not write): run 'make generate', delete any extra file, and commit the result."
	exit 1
fi
echo "check-generated: gen/ and $ops are exactly what the pinned generators produce"

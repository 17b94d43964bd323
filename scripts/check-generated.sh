#!/usr/bin/env bash
# Fails when regenerating gen/ from openapi.json would change anything in it
# (modified, added or removed files). gen/ is restored afterwards, so the check
# keeps failing until `make generate` is run and its output kept.
set -euo pipefail
cd "$(dirname "$0")/.."
saved=$(mktemp -d)
trap 'rm -rf gen && mv "$saved/gen" gen && rm -rf "$saved"' EXIT
cp -a gen "$saved/gen"
go generate ./gen
if ! diff -ru "$saved/gen" gen; then
	echo >&2 "gen/ is not what the pinned generator produces from openapi.json: run 'make generate' and commit the result."
	exit 1
fi

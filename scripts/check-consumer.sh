#!/usr/bin/env bash
# A program that imports the library must not inherit the generator or its
# dependencies. internal/testdata/consumer is such a program (it replaces the
# library with this checkout); its module graph is checked here.
set -euo pipefail
cd "$(dirname "$0")/../internal/testdata/consumer"
go mod tidy -diff
go build -o /dev/null ./...
graph=$(go list -m all)
if bad=$(grep -E 'oapi-codegen/oapi-codegen/v2|golang\.org/x/tools|speakeasy' <<<"$graph"); then
	echo >&2 "a consumer of tensorpool-go inherits development tools in its module graph:"
	echo >&2 "$bad"
	exit 1
fi
echo "consumer module graph ($(wc -l <<<"$graph") modules) holds no generator, x/tools or speakeasy module"

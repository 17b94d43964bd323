#!/usr/bin/env bash
# go vet in every module of MODULES (the Makefile's list) that has Go packages;
# the tools modules hold only build-tagged tool pins.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
: "${MODULES:?set MODULES to the module directories (make check-vet does)}"
for m in $MODULES; do
	if ! pkgs=$(cd "$m" && $GO list ./... 2>/dev/null); then
		(cd "$m" && $GO list ./... >/dev/null) || true # show why
		echo >&2 "check-vet: cannot list the packages of $m"
		exit 1
	fi
	if [ -z "$pkgs" ]; then
		echo "go vet ($m): no Go packages"
		continue
	fi
	echo "go vet ./... ($m)"
	(cd "$m" && $GO vet ./...)
done

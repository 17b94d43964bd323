//go:build tools

// Package benchstat pins golang.org/x/perf/cmd/benchstat, which compares the
// client-overhead benchmarks in `make bench` (scripts/bench.sh), in a module
// of its own: golang.org/x/perf at this version needs go 1.26 and newer
// golang.org/x/{mod,sync,sys,text,tools} than oapi-codegen's in tools/go.mod,
// so sharing that module would rebuild the generator against them. Run it with
// `go -C tools/benchstat run golang.org/x/perf/cmd/benchstat` (paths absolute).
//
// golang.org/x/perf has no releases; the pseudo-version in go.mod is the pin.
package benchstat

import (
	_ "golang.org/x/perf/cmd/benchstat"
)

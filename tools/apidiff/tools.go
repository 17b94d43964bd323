//go:build tools

// Package apidiff pins golang.org/x/exp/cmd/apidiff, the Go API checker
// behind `make api-diff` (scripts/api-diff.sh), in a module of its own:
// golang.org/x/exp at this version needs go 1.26, which neither the library
// module nor the generator's tools module should be forced to. Build it with
// `go build -modfile=tools/apidiff/go.mod golang.org/x/exp/cmd/apidiff`.
//
// golang.org/x/exp has no releases; the pseudo-version in go.mod is the pin.
package apidiff

import (
	_ "golang.org/x/exp/cmd/apidiff"
)

//go:build tools

// Package oasdiff pins github.com/oasdiff/oasdiff, the breaking-change
// checker behind `make spec-diff` and `make update-spec`, in a module of its
// own. It is not in tools/go.mod because oasdiff requires a newer kin-openapi
// (v0.149) than oapi-codegen v2.8.2 (v0.142): sharing a module would silently
// rebuild the generator against oasdiff's kin-openapi. Run it with
// `go -C tools/oasdiff run github.com/oasdiff/oasdiff` (paths absolute).
//
// It needs Go 1.26, newer than the library's floor (go.mod: 1.25). Its
// go.mod's toolchain line names the Go it builds with when the local one is
// older and GOTOOLCHAIN allows switching (`make check-floor` runs with
// GOTOOLCHAIN=go1.25.14+auto); `go -C` makes the go command read this
// go.mod, which `go run -modfile=...` would not.
//
// v1.33.0 is the newest release that builds from the Go module proxy:
// v1.34.0 and later need github.com/pb33f/go-yaml v0.1.1, which the proxy
// refuses (403 "not available").
package oasdiff

import (
	_ "github.com/oasdiff/oasdiff"
)

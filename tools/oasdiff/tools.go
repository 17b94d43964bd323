//go:build tools

// Package oasdiff pins github.com/oasdiff/oasdiff, the breaking-change
// checker behind `make spec-diff` and `make update-spec`, in a module of its
// own. It is not in tools/go.mod because oasdiff requires a newer kin-openapi
// (v0.149) than oapi-codegen v2.8.2 (v0.142): sharing a module would silently
// rebuild the generator against oasdiff's kin-openapi. Run it with
// `go run -modfile=tools/oasdiff/go.mod github.com/oasdiff/oasdiff`.
//
// v1.33.0 is the newest release that builds from the Go module proxy:
// v1.34.0 and later need github.com/pb33f/go-yaml v0.1.1, which the proxy
// refuses (403 "not available").
package oasdiff

import (
	_ "github.com/oasdiff/oasdiff"
)

//go:build tools

// Package tools pins the development tools of tensorpool-go in a module of
// their own, so that programs importing the library never see them in their
// module graph. Run them with `go run -modfile=tools/go.mod <package>`.
package tools

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)

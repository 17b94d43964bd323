//go:build tools

// Package tools pins the development tools of tensorpool-go in a module of
// their own, so that programs importing the library never see them in their
// module graph. Run them with `go run -modfile=tools/go.mod <package>`.
//
// actionlint (make check-actions) shares this module: it needs only Go 1.25
// and raises none of the generator's dependencies (checked when it was
// added: the versions of every module already here stayed the same).
package tools

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
	_ "github.com/rhysd/actionlint/cmd/actionlint"
)

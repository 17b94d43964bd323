package tensorpool

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns a copy of the vendored OpenAPI document
// (openapi.json) that package gen was generated from.
func OpenAPIDocument() []byte { return bytes.Clone(openAPIDocument) }

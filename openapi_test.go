package tensorpool_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tensorpool/tensorpool-go"
)

// loadSpec parses the vendored spec with kin-openapi, refusing external refs.
func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(tensorpool.OpenAPIDocument())
	if err != nil {
		t.Fatalf("openapi.json does not load: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentIsValid31(t *testing.T) {
	doc := loadSpec(t)
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi.json declares %q; the vendored upstream spec is OpenAPI 3.1", doc.OpenAPI)
	}
	// Validate switches to the JSON Schema 2020-12 rules for 3.1 documents
	// (kin-openapi >= v0.150.0 no longer falls back to the 3.0 validator).
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.1 document:\n%v", err)
	}
}

func TestOpenAPIDocumentIsAValidatorInput(t *testing.T) {
	// A document that loads must also be rejected when it is broken, or the
	// test above proves nothing.
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData([]byte(`{"openapi":"3.1.0","info":{"title":"x","version":"1"},
		"paths":{"/a/{id}":{"get":{"responses":{"200":{"description":"ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err == nil {
		t.Fatal("a path parameter without a declaration validated; the validity check is toothless")
	}
}

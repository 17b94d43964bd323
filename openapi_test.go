package tensorpool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
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

// TestOpenAPIDocumentIsValid: openapi.json is an OpenAPI 3.0 or 3.1
// document that loads, and the operations tensorpooltest's engine models
// are valid; anything else validation finds is logged, as the engine
// tolerates it (a real upstream document may hold it), never a failure.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadSpec(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.0.") && !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi.json declares %q; want OpenAPI 3.0 or 3.1", doc.OpenAPI)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("tensorpooltest refuses openapi.json: %v", r)
		}
	}()
	for _, p := range tensorpooltest.New().SpecProblems() {
		t.Logf("tolerated: %v", p)
	}
}

// validate is how the tests validate a document. Validate switches to the
// 3.1 rules for 3.1 documents (kin-openapi >= v0.150.0; older versions fall
// back to the 3.0 validator, which TestOpenAPIValidatorApplies31Rules catches).
func validate(doc *openapi3.T) error {
	return doc.Validate(context.Background(), openapi3.EnableMultiError())
}

// Schemas on which the 3.0 and 3.1 rules disagree: the validator must judge
// a 3.1 document by 3.1 rules, or TestOpenAPIDocumentIsValid31 proves less
// than it says (kin-openapi v0.142.0 fails the first case, and a 3.0
// validator the others).
func TestOpenAPIValidatorApplies31Rules(t *testing.T) {
	for _, c := range []struct {
		schema string
		valid  bool
	}{
		{`{"type":"integer","minimum":5,"exclusiveMinimum":true}`, false}, // 3.0's boolean form
		{`{"type":"integer","exclusiveMinimum":5}`, true},
		{`{"type":["string","null"]}`, true},
	} {
		for _, version := range []string{"3.1.0", "3.0.3"} {
			valid := c.valid == (version == "3.1.0") // every case flips under 3.0
			doc, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"` + version + `",
				"info":{"title":"x","version":"1"},"paths":{},"components":{"schemas":{"S":` + c.schema + `}}}`))
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(doc); (err == nil) != valid {
				t.Errorf("OpenAPI %s schema %s: valid=%v, want %v (err: %v)", version, c.schema, err == nil, valid, err)
			}
		}
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

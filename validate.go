package tensorpool

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tensorpool/tensorpool-go/gen/operations"
)

//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns a copy of the vendored OpenAPI document
// (openapi.json) that package gen was generated from.
func OpenAPIDocument() []byte { return bytes.Clone(openAPIDocument) }

// maxValidatedBody bounds what validation holds of a request body.
const maxValidatedBody = 1 << 20

// schema holds the constraints of a JSON Schema that the client checks
// before sending. The rest (types, formats, anyOf) is left to the server.
type schema struct {
	Ref        string             `json:"$ref"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	Enum       []any              `json:"enum"`
	Pattern    pattern            `json:"pattern"`
	MinItems   *int               `json:"minItems"`
	MaxItems   *int               `json:"maxItems"`
}

// pattern is a schema's pattern, compiled as the document loads; nil,
// and not checked, if it does not compile.
type pattern struct{ *regexp.Regexp }

func (p *pattern) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		p.Regexp, _ = regexp.Compile(s)
	}
	return nil
}

// constraints are the schemas of one operation that validation checks.
type constraints struct {
	params map[string]*schema // the path parameters', by name
	body   *schema            // the application/json request body's
}

// document is what validation reads of the embedded openapi.json.
type document struct {
	schemas map[string]*schema                    // the components' schemas, by name
	ops     map[*operations.Operation]constraints // each operation's
}

// constraintsOfSpec is the embedded document, read once, at the first NewClient.
var constraintsOfSpec = sync.OnceValue(func() *document { return loadDocument(openAPIDocument, operations.All) })

// loadDocument reads the constraints of ops in the OpenAPI document data.
// What does not decode is not checked.
func loadDocument(data []byte, ops []operations.Operation) *document {
	var raw struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]*schema }
	}
	_ = json.Unmarshal(data, &raw)
	d := &document{schemas: raw.Components.Schemas, ops: map[*operations.Operation]constraints{}}
	type parameters []struct {
		Name, In string
		Schema   *schema
	}
	for i := range ops {
		op, item := &ops[i], raw.Paths[ops[i].Path]
		var shared parameters // the path item's, for each of its operations
		_ = json.Unmarshal(item["parameters"], &shared)
		var o struct {
			Parameters  parameters
			RequestBody struct {
				Content map[string]struct{ Schema *schema }
			}
		}
		_ = json.Unmarshal(item[strings.ToLower(op.Method)], &o)
		c := constraints{params: map[string]*schema{}, body: o.RequestBody.Content["application/json"].Schema}
		for _, p := range append(shared, o.Parameters...) {
			if s := p.Schema; p.In == "path" && s != nil && (s.Ref != "" || len(s.Enum) > 0 || s.Pattern.Regexp != nil) {
				c.params[p.Name] = s // one that constrains a value
			}
		}
		d.ops[op] = c
	}
	return d
}

// checkBody returns an ErrInvalidRequest error for the first constraint of
// op that req's JSON body breaks. Malformed JSON is sent: the server's 422
// says more than the client could.
func (d *document) checkBody(op *operations.Operation, req *http.Request) error {
	s := d.ops[op].body
	if s == nil {
		return nil
	}
	b, err := requestBody(req)
	var v any
	if err != nil || json.Unmarshal(b, &v) != nil {
		return err
	}
	if field, why := d.broken(v, s, ""); why != "" {
		return &invalidRequest{op.Method, op.Path, field, why}
	}
	return nil
}

// broken returns the field of v that breaks a constraint of s, and why.
func (d *document) broken(v any, s *schema, field string) (string, string) {
	for s != nil && s.Ref != "" {
		s = d.schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
	}
	if s == nil {
		return "", ""
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range s.Required {
			if _, ok := v[k]; !ok {
				return strings.TrimPrefix(field+"."+k, "."), "is required"
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			if pv, ok := v[k]; ok {
				if f, reason := d.broken(pv, s.Properties[k], strings.TrimPrefix(field+"."+k, ".")); reason != "" {
					return f, reason
				}
			}
		}
	case []any, nil: // null: no elements
		a, _ := v.([]any)
		lo, hi, n := s.MinItems, s.MaxItems, len(a)
		switch {
		case lo != nil && hi != nil && *lo == *hi && n != *lo:
			return field, fmt.Sprintf("must have exactly %s, got %d", elements(*lo), n)
		case lo != nil && n < *lo:
			return field, fmt.Sprintf("must have at least %s, got %d", elements(*lo), n)
		case hi != nil && n > *hi:
			return field, fmt.Sprintf("must have at most %s, got %d", elements(*hi), n)
		}
		for i, item := range a {
			if f, reason := d.broken(item, s.Items, fmt.Sprintf("%s[%d]", field, i)); reason != "" {
				return f, reason
			}
		}
	default: // a string, number or boolean
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
			return field, fmt.Sprintf("must be one of %v, got %v", s.Enum, v)
		}
		if str, ok := v.(string); ok && s.Pattern.Regexp != nil && !s.Pattern.MatchString(str) {
			return field, fmt.Sprintf("must match %q, got %q", s.Pattern, str)
		}
	}
	return "", ""
}

func elements(n int) string {
	if n == 1 {
		return "one element"
	}
	return fmt.Sprintf("%d elements", n)
}

// requestBody returns a copy of req's body, leaving req able to send it. A
// streamed body past maxValidatedBody is sent as it comes: nil.
func requestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("tensorpool: reading the request body to validate it: %w", err)
		}
		defer rc.Close()
		return io.ReadAll(io.LimitReader(rc, maxValidatedBody))
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, maxValidatedBody+1))
	switch {
	case err != nil:
		_ = req.Body.Close()
		return nil, fmt.Errorf("tensorpool: reading the request body to validate it: %w", err)
	case len(b) > maxValidatedBody:
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), req.Body), req.Body}
		return nil, nil
	}
	_ = req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	req.ContentLength = int64(len(b))
	return b, nil
}

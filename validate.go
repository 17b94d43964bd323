package tensorpool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// maxValidatedBody bounds what validation holds of a request body.
const maxValidatedBody = 1 << 20

// schema holds the constraints of a JSON Schema that the client checks
// before sending; the rest (types, formats, anyOf) is left to the server.
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

// pattern is a schema's pattern, compiled once as the document loads; nil
// if it does not compile (then it is not checked).
type pattern struct{ *regexp.Regexp }

func (p *pattern) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		p.Regexp, _ = regexp.Compile(s)
	}
	return nil
}

// operation is what validation reads of an OpenAPI operation.
type operation struct {
	Parameters []struct {
		Name, In string
		Schema   *schema
	}
	RequestBody struct {
		Content map[string]struct{ Schema *schema }
	}
}

// document is what validation reads of the embedded openapi.json: the
// operations by path and method (upper case, as net/http's), and the component schemas.
type document struct {
	paths   map[string]map[string]*operation
	schemas map[string]*schema
}

// spec is the embedded document, read once.
var spec = sync.OnceValue(func() *document { return loadDocument(openAPIDocument) })

// loadDocument reads an OpenAPI document. An operation that does not decode
// (a shape this reader does not know) is simply not checked.
func loadDocument(b []byte) *document {
	var raw struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]*schema }
	}
	_ = json.Unmarshal(b, &raw)
	d := &document{paths: map[string]map[string]*operation{}, schemas: raw.Components.Schemas}
	for p, item := range raw.Paths {
		d.paths[p] = map[string]*operation{}
		for method, rawOp := range item {
			if op := new(operation); json.Unmarshal(rawOp, op) == nil {
				d.paths[p][strings.ToUpper(method)] = op
			}
		}
	}
	return d
}

// validate returns an ErrInvalidRequest error for the first constraint of
// the document (see schema) that req's path parameters or JSON body break;
// basePath is the base URL's path. A body without GetBody is read into
// memory and made replayable.
func (doc *document) validate(req *http.Request, basePath string) error {
	p, ok := strings.CutPrefix(req.URL.EscapedPath(), basePath)
	if !ok {
		return nil
	}
	op, params := doc.find(req.Method, p)
	if op == nil {
		return nil
	}
	var field, reason string
	for _, prm := range op.Parameters {
		if v, ok := params[prm.Name]; ok && prm.In == "path" && reason == "" {
			field, reason = doc.check(v, prm.Schema, prm.Name)
		}
	}
	if s := op.RequestBody.Content["application/json"].Schema; s != nil && reason == "" {
		body, err := requestBody(req)
		var v any
		if err != nil || json.Unmarshal(body, &v) != nil {
			return err // malformed JSON: the server's 422 says more than we could
		}
		field, reason = doc.check(v, s, "")
	}
	if reason == "" {
		return nil
	}
	return &invalidRequest{req.Method, req.URL.Path, field, reason}
}

// find returns the operation for method and escaped path p, preferring the
// template with the most literal segments, and its path parameters.
func (d *document) find(method, p string) (op *operation, params map[string]string) {
	segs, best := strings.Split(p, "/"), -1
	for tmpl, ops := range d.paths {
		t, vals, lit := strings.Split(tmpl, "/"), map[string]string{}, 0
		if ops[method] == nil || len(t) != len(segs) {
			continue
		}
		for i, s := range t {
			if name, ok := strings.CutPrefix(s, "{"); ok && strings.HasSuffix(name, "}") && segs[i] != "" {
				vals[strings.TrimSuffix(name, "}")], _ = url.PathUnescape(segs[i])
			} else if s == segs[i] {
				lit++
			} else {
				lit = -1
				break
			}
		}
		if lit > best {
			op, params, best = ops[method], vals, lit
		}
	}
	return op, params
}

// check returns the field of v that breaks a constraint of s, and why.
func (d *document) check(v any, s *schema, field string) (string, string) {
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
				if f, reason := d.check(pv, s.Properties[k], strings.TrimPrefix(field+"."+k, ".")); reason != "" {
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
			if f, reason := d.check(item, s.Items, fmt.Sprintf("%s[%d]", field, i)); reason != "" {
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

// requestBody returns a copy of req's body, leaving req able to send it; a
// streamed body past maxValidatedBody is sent as it comes, unvalidated (nil).
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

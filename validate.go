package tensorpool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
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

// request returns the route of req (see find) and, if constraints, the
// ErrInvalidRequest error for the first constraint of the document (see
// schema) that its path parameters or JSON body break; basePath is the base
// URL's path. A body without GetBody is read into memory and made
// replayable.
func (d *document) request(req *http.Request, basePath string, constraints bool) (*route, error) {
	rt, vals, err := d.find(req, basePath)
	if rt == nil || err != nil || !constraints {
		return rt, err
	}
	var field, reason string
	for _, prm := range rt.op.Parameters {
		if i := rt.param(prm.Name); i >= 0 && prm.In == "path" && reason == "" {
			field, reason = d.check(vals[i], prm.Schema, prm.Name)
		}
	}
	if s := rt.op.RequestBody.Content["application/json"].Schema; s != nil && reason == "" {
		body, err := requestBody(req)
		var v any
		if err != nil || json.Unmarshal(body, &v) != nil {
			return rt, err // malformed JSON: the server's 422 says more than we could
		}
		field, reason = d.check(v, s, "")
	}
	if reason == "" {
		return rt, nil
	}
	return rt, &invalidRequest{req.Method, req.URL.EscapedPath(), field, reason}
}

// param returns the index of the path parameter name among the template's
// parameters, or -1.
func (rt *route) param(name string) int {
	i := 0
	for _, sg := range rt.segs {
		if sg.name == name && !sg.multi {
			return i
		}
		if sg.name != "" {
			i++
		}
	}
	return -1
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

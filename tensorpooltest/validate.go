package tensorpooltest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// validateRequest checks a request against its operation in the spec: the
// security requirement (the API key), parameters and body. It reports
// whether the request is authenticated and, if so, what is invalid in it.
func (e *Engine) validateRequest(r *http.Request, rt *route, params map[string]string, body []byte) (authed bool, invalid []validationItem) {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt.kr, Options: &openapi3filter.Options{
		MultiError: true,
		// Guess: FastAPI ignores a body on an operation that declares none.
		// The engine answers 422, so that a client sending what the spec
		// does not allow is caught.
		RejectWhenRequestBodyNotSpecified: true,
		// Security comes from the spec, so an operation upstream declares
		// public needs no key here either.
		AuthenticationFunc: e.authenticate,
	}}
	err := openapi3filter.ValidateRequest(r.Context(), in)
	var sre *openapi3filter.SecurityRequirementsError
	if errors.As(err, &sre) {
		return false, nil // no alternative of the security requirements held
	}
	if err != nil {
		invalid = validationDetail(err)
	}
	return true, append(invalid, undeclaredQuery(req, rt.kr)...)
}

// authenticate accepts the engine's key where the operation's security
// scheme puts it: a bearer token (http bearer, oauth2, openIdConnect), a
// basic password, or an apiKey's header, query parameter or cookie (after
// a scheme word such as "Token" too). Guess: it also accepts the key as a
// bearer token whatever the scheme, since the production client sends it
// so. Its error never contains what the client sent.
func (e *Engine) authenticate(_ context.Context, ai *openapi3filter.AuthenticationInput) error {
	r, ss := ai.RequestValidationInput.Request, ai.SecurityScheme
	// Guess: FastAPI's HTTPBearer splits the header at its first space and
	// compares the scheme case-insensitively (RFC 9110 §11.1); the
	// credentials must match exactly.
	scheme, bearer, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	got := []string{map[bool]string{true: bearer}[strings.EqualFold(scheme, "bearer")]}
	switch {
	case ss.Type == "http" && strings.EqualFold(ss.Scheme, "basic"):
		_, password, _ := r.BasicAuth()
		got = append(got, password)
	case ss.Type == "apiKey" && ss.In == "header":
		v := r.Header.Get(ss.Name)
		got = append(got, v, v[strings.LastIndexByte(v, ' ')+1:])
	case ss.Type == "apiKey" && ss.In == "query":
		got = append(got, r.URL.Query().Get(ss.Name))
	case ss.Type == "apiKey" && ss.In == "cookie":
		if c, err := r.Cookie(ss.Name); err == nil {
			got = append(got, c.Value)
		}
	}
	for _, g := range got {
		if subtle.ConstantTimeCompare([]byte(g), []byte(e.apiKey)) == 1 {
			return nil
		}
	}
	return errors.New("missing or invalid API key")
}

// undeclaredQuery lists the query parameters the operation (or its path
// item) does not declare, in the order of their names.
//
// Guess: FastAPI ignores undeclared query parameters. The engine answers
// 422, so that a client sending what the spec does not allow is caught.
func undeclaredQuery(r *http.Request, kr *routers.Route) []validationItem {
	var items []validationItem
	declared := slices.Concat(kr.PathItem.Parameters, kr.Operation.Parameters)
	for _, name := range slices.Sorted(maps.Keys(r.URL.Query())) {
		if !slices.ContainsFunc(declared, func(p *openapi3.ParameterRef) bool {
			return p.Value != nil && p.Value.In == openapi3.ParameterInQuery && p.Value.Name == name
		}) {
			// "extra_forbidden" is pydantic's name for an unexpected field.
			items = append(items, validationItem{Loc: []any{"query", name}, Msg: "query parameter " + name + " is not declared by the operation", Type: "extra_forbidden"})
		}
	}
	return items
}

// validationItem is one item of an HTTPValidationError body.
//
// Guess: upstream is FastAPI, whose 422 items look like
// {"loc": ["body", "cluster_ids"], "msg": "Field required", "type": "missing"}.
// The engine keeps that shape: loc starts with "body", "path", "query" or
// "header" and, for the body, continues with the path to the failing value
// (and the name of a missing property). msg is kin-openapi's wording, not
// pydantic's; type is "missing" for an absent required value, "content_type"
// for a media type the operation does not accept, "json_invalid" for a body
// that does not decode, else the failing JSON Schema keyword ("maxItems",
// "type", ...) or "value_error".
type validationItem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// validationDetail converts openapi3filter's errors into validation items,
// at least one.
func validationDetail(err error) []validationItem {
	// Only a MultiError at this level: errors.As would find the ones nested
	// inside a schema error and lose their location.
	if me, ok := err.(openapi3.MultiError); ok {
		var items []validationItem
		for _, e := range me {
			items = append(items, validationDetail(e)...)
		}
		return items
	}
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return []validationItem{{Loc: []any{"body"}, Msg: err.Error(), Type: "value_error"}}
	}
	loc := []any{"body"}
	if re.Parameter != nil {
		loc = []any{re.Parameter.In, re.Parameter.Name}
	}
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		return schemaItems(loc, se)
	}
	item := validationItem{Loc: loc, Msg: re.Error(), Type: "value_error"}
	var pe *openapi3filter.ParseError
	switch {
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired), errors.Is(re.Err, openapi3filter.ErrInvalidEmptyValue):
		item.Type = "missing"
	case strings.Contains(re.Reason, "header Content-Type"):
		item.Type = "content_type"
	case errors.As(re.Err, &pe):
		item.Type = "json_invalid"
	}
	return []validationItem{item}
}

// schemaItems flattens a schema error into one item per failing value.
func schemaItems(loc []any, se *openapi3.SchemaError) []validationItem {
	var items []validationItem
	var subs openapi3.MultiError
	if se.Origin != nil && errors.As(se.Origin, &subs) {
		for _, sub := range subs {
			var sse *openapi3.SchemaError
			if errors.As(sub, &sse) {
				items = append(items, schemaItems(loc, sse)...)
			}
		}
		if len(items) > 0 {
			return items
		}
	}
	at := slices.Clone(loc)
	for _, p := range se.JSONPointer() {
		at = append(at, p)
	}
	// JSON Schema 2020-12 (3.1) names the missing properties.
	var ve *jsonschema.ValidationError
	if errors.As(se, &ve) {
		if req, ok := ve.ErrorKind.(*kind.Required); ok && len(req.Missing) > 0 {
			for _, name := range req.Missing {
				items = append(items, validationItem{Loc: append(slices.Clone(at), name), Msg: "Field required", Type: "missing"})
			}
			return items
		}
	}
	switch se.SchemaField {
	case "required": // 3.0's validator: the missing property is at the end of the pointer
		return []validationItem{{Loc: at, Msg: "Field required", Type: "missing"}}
	case "":
		return []validationItem{{Loc: at, Msg: se.Reason, Type: "value_error"}}
	}
	return []validationItem{{Loc: at, Msg: se.Reason, Type: se.SchemaField}}
}

// A Violation is a response the engine wrote that does not conform to its
// OpenAPI document. The engine reports it (see WithViolationHandler) and
// still sends the response, so the test sees both.
type Violation struct {
	Operation string // "METHOD /path" key of the operation
	Status    int    // the response's status code
	Err       error  // what kin-openapi objected to
}

// Error implements error.
func (v Violation) Error() string {
	return fmt.Sprintf("tensorpooltest: response %d to %s does not conform to the OpenAPI document: %v", v.Status, v.Operation, v.Err)
}

// validateResponse checks what the engine is about to send against the spec
// and reports any violation.
func (e *Engine) validateResponse(r *http.Request, rt *route, res *result) {
	if res.unchecked {
		return
	}
	kr := rt.kr
	if res.anyRetryAfter {
		kr = withoutHeader(kr, res.status, "Retry-After")
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, Route: kr},
		Status:                 res.status,
		Header:                 res.header,
		// A status the operation does not declare is a violation, unless the
		// engine answers it on purpose.
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: !res.undeclared, ExcludeResponseBody: exclude(res.header.Get("Content-Type"))},
	}
	in.SetBodyBytes(res.body)
	if err := openapi3filter.ValidateResponse(r.Context(), in); err != nil {
		v := Violation{Operation: rt.key, Status: res.status, Err: err}
		e.mu.Lock()
		e.violations = append(e.violations, v)
		e.mu.Unlock()
		if e.onViolation != nil {
			e.onViolation(v)
		}
	}
}

// withoutHeader returns a copy of kr whose response for status declares no
// header name, so that neither its value nor its absence is checked.
func withoutHeader(kr *routers.Route, status int, name string) *routers.Route {
	responses := kr.Operation.Responses
	ref := cmp.Or(responses.Status(status), responses.Default())
	if ref == nil || ref.Value == nil {
		return kr
	}
	resp := *ref.Value
	resp.Headers = maps.Clone(resp.Headers)
	maps.DeleteFunc(resp.Headers, func(h string, _ *openapi3.HeaderRef) bool { return strings.EqualFold(h, name) })
	op := *kr.Operation
	op.Responses = openapi3.NewResponses(openapi3.WithStatus(status, &openapi3.ResponseRef{Value: &resp}))
	out := *kr
	out.Operation = &op
	return &out
}

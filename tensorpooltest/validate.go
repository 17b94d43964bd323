package tensorpooltest

import (
	"bytes"
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
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// errUnauthorized is what the authentication func returns; the key the
// client sent is never part of it.
var errUnauthorized = errors.New("missing or invalid API key")

// validateRequest checks a request against its operation in the spec: the
// security requirement (the API key), path parameters and the body. It
// returns the input (which response validation needs too), whether the
// request was authenticated, and the validation errors.
func (e *Engine) validateRequest(ctx context.Context, r *http.Request, rt *route, params map[string]string, body []byte) (*openapi3filter.RequestValidationInput, bool, error) {
	req := r.Clone(ctx)
	req.Body = io.NopCloser(bytes.NewReader(body))
	key := []byte(e.apiKey)
	in := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      rt.kr,
		Options: &openapi3filter.Options{
			MultiError: true,
			// Guess: FastAPI ignores a body on an operation that declares
			// none; the engine answers 422, so that a client sending what
			// the spec does not allow is caught.
			RejectWhenRequestBodyNotSpecified: true,
			// Security comes from the spec, so an operation upstream declares
			// public (e.g. /healthz) needs no key here either.
			AuthenticationFunc: func(_ context.Context, ai *openapi3filter.AuthenticationInput) error {
				if ai.SecurityScheme.Type != "http" || !strings.EqualFold(ai.SecurityScheme.Scheme, "bearer") {
					return errUnauthorized
				}
				// Guess: FastAPI's HTTPBearer splits the header at its first
				// space and compares the scheme case-insensitively (RFC 9110
				// §11.1); the credentials must match exactly.
				scheme, credentials, _ := strings.Cut(r.Header.Get("Authorization"), " ")
				if strings.EqualFold(scheme, "bearer") && subtle.ConstantTimeCompare([]byte(credentials), key) == 1 {
					return nil
				}
				return errUnauthorized
			},
		},
	}
	err := openapi3filter.ValidateRequest(ctx, in)
	if extra := undeclaredQuery(in); len(extra) > 0 {
		var all openapi3.MultiError
		if !errors.As(err, &all) && err != nil {
			all = openapi3.MultiError{err}
		}
		err = append(all, extra...)
	}
	// Not authenticated: no alternative of the security requirements held.
	var sre *openapi3filter.SecurityRequirementsError
	return in, !errors.As(err, &sre), err
}

// errUndeclaredParam marks a query parameter the operation does not declare.
var errUndeclaredParam = errors.New("not declared by the operation")

// undeclaredQuery returns an error per query parameter the operation (or
// its path item) does not declare, in the order of the names.
//
// Guess: FastAPI ignores undeclared query parameters; the engine answers
// 422, so that a client sending what the spec does not allow is caught, as
// for a body on an operation that declares none.
func undeclaredQuery(in *openapi3filter.RequestValidationInput) openapi3.MultiError {
	q := in.Request.URL.Query()
	if len(q) == 0 {
		return nil
	}
	declared := map[string]bool{}
	for _, ps := range []openapi3.Parameters{in.Route.PathItem.Parameters, in.Route.Operation.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
			}
		}
	}
	var errs openapi3.MultiError
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !declared[name] {
			errs = append(errs, &openapi3filter.RequestError{
				Input:     in,
				Parameter: &openapi3.Parameter{In: openapi3.ParameterInQuery, Name: name},
				Reason:    "query parameter " + name + " is not declared by the operation",
				Err:       errUndeclaredParam,
			})
		}
	}
	return errs
}

// validationDetail converts openapi3filter's errors into the items of an
// HTTPValidationError body.
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
func validationDetail(err error) []validationItem {
	var items []validationItem
	var walk func(error)
	walk = func(err error) {
		// Only a MultiError at this level: errors.As would find the ones
		// nested inside a schema error and lose their location.
		if me, ok := err.(openapi3.MultiError); ok {
			for _, e := range me {
				walk(e)
			}
			return
		}
		var sre *openapi3filter.SecurityRequirementsError
		if errors.As(err, &sre) {
			return // answered with 403, not 422
		}
		var re *openapi3filter.RequestError
		if !errors.As(err, &re) {
			items = append(items, validationItem{Loc: []any{"body"}, Msg: err.Error(), Type: "value_error"})
			return
		}
		loc := []any{"body"}
		if re.Parameter != nil {
			loc = []any{re.Parameter.In, re.Parameter.Name}
		}
		var se *openapi3.SchemaError
		if errors.As(re.Err, &se) {
			items = append(items, schemaItems(loc, se)...)
			return
		}
		item := validationItem{Loc: loc, Msg: re.Error(), Type: "value_error"}
		var pe *openapi3filter.ParseError
		switch {
		case errors.Is(re.Err, openapi3filter.ErrInvalidRequired), errors.Is(re.Err, openapi3filter.ErrInvalidEmptyValue):
			item.Type = "missing"
		case errors.Is(re.Err, errUndeclaredParam):
			item.Type = "extra_forbidden" // pydantic's name for an unexpected field
		case strings.Contains(re.Reason, "header Content-Type"):
			item.Type = "content_type"
		case errors.As(re.Err, &pe):
			item.Type = "json_invalid"
		}
		items = append(items, item)
	}
	walk(err)
	if len(items) == 0 {
		items = append(items, validationItem{Loc: []any{"body"}, Msg: err.Error(), Type: "value_error"})
	}
	return items
}

// schemaItems flattens a schema error into one item per failing value.
func schemaItems(loc []any, se *openapi3.SchemaError) []validationItem {
	var subs openapi3.MultiError
	if se.Origin != nil && errors.As(se.Origin, &subs) {
		var items []validationItem
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
	var ve *jsonschema.ValidationError
	if req, ok := errorKind[*kind.Required](se, &ve); ok {
		var items []validationItem
		for _, name := range req.Missing {
			items = append(items, validationItem{Loc: append(slices.Clone(at), name), Msg: "Field required", Type: "missing"})
		}
		return items
	}
	switch se.SchemaField {
	case "required": // 3.0's validator: the missing property is at the end of the pointer
		return []validationItem{{Loc: at, Msg: "Field required", Type: "missing"}}
	case "":
		return []validationItem{{Loc: at, Msg: se.Reason, Type: "value_error"}}
	}
	return []validationItem{{Loc: at, Msg: se.Reason, Type: se.SchemaField}}
}

// errorKind finds the JSON Schema 2020-12 error behind a schema error, if it
// is of kind K.
func errorKind[K jsonschema.ErrorKind](se *openapi3.SchemaError, ve **jsonschema.ValidationError) (K, bool) {
	var zero K
	if !errors.As(se, ve) {
		return zero, false
	}
	k, ok := (*ve).ErrorKind.(K)
	return k, ok
}

type validationItem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
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

// withoutResponseHeader returns in with a copy of its operation whose
// responses do not declare the header name, so that neither its value nor
// its absence is checked.
func withoutResponseHeader(in *openapi3filter.RequestValidationInput, name string) *openapi3filter.RequestValidationInput {
	op := *in.Route.Operation
	op.Responses = openapi3.NewResponsesWithCapacity(in.Route.Operation.Responses.Len())
	for status, ref := range in.Route.Operation.Responses.Map() {
		if ref != nil && ref.Value != nil {
			for h := range ref.Value.Headers {
				if strings.EqualFold(h, name) {
					resp := *ref.Value
					resp.Headers = maps.Clone(resp.Headers)
					delete(resp.Headers, h)
					ref = &openapi3.ResponseRef{Value: &resp}
					break
				}
			}
		}
		op.Responses.Set(status, ref)
	}
	route := *in.Route
	route.Operation = &op
	out := *in
	out.Route = &route
	return &out
}

// validateResponse checks what the engine is about to send against the spec
// and reports any violation.
func (e *Engine) validateResponse(ctx context.Context, rt *route, in *openapi3filter.RequestValidationInput, res *result) {
	if res.skipValidation != "" {
		return
	}
	header := res.header
	if res.retryAfterDate {
		// Deliberate deviation, only when WithRetryAfter(_, RetryAfterHTTPDate)
		// is configured: the spec declares Retry-After an integer (seconds),
		// but RFC 9110 section 10.2.3 also allows an HTTP-date, and clients
		// (package wait) must be tested against both forms. The header is
		// checked to be a valid HTTP-date here instead, and the rest of the
		// response is validated as usual.
		if _, err := http.ParseTime(header.Get("Retry-After")); err != nil {
			e.report(Violation{Operation: rt.key, Status: res.status, Err: fmt.Errorf("Retry-After %q is not an HTTP-date: %w", header.Get("Retry-After"), err)})
		}
	}
	if res.retryAfterDate || res.exemptRetryAfter {
		header = header.Clone()
		header.Del("Retry-After")
		in = withoutResponseHeader(in, "Retry-After")
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 res.status,
		Header:                 header,
		Options: &openapi3filter.Options{
			MultiError: true,
			// A status the operation does not declare is a violation, unless
			// the engine answers it on purpose (res.undeclared says why).
			IncludeResponseStatus: res.undeclared == "",
		},
	}
	out.SetBodyBytes(res.body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		e.report(Violation{Operation: rt.key, Status: res.status, Err: err})
	}
}

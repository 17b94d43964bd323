package tensorpooltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/operations"
	"github.com/tensorpool/tensorpool-go/internal/synth"
)

// TestEveryOperationAnswers covers every operation of openapi.json
// generically, whatever a spec sync brought: called through NewClient and
// through a raw generated client with what its schema allows (its path
// parameters, and a JSON body where it takes one), it answers a status it
// declares, with a body that validates (but where SpecProblems says no
// value was found for its schema); and each status it declares, once
// scripted (Respond), reaches the caller: a declared success as a nil error
// with its typed field set, any other as an *APIError with that status, and
// through the raw client as the typed field of that status. It logs one
// summary line, which make check-specs reports per document. An operation
// that needs more than its path parameters and a JSON body is counted, not
// called; a modelled one answers from its state, which its contract test
// covers.
func TestEveryOperationAnswers(t *testing.T) {
	e := New()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey(e.APIKey()), tensorpool.WithBaseURL(InProcessURL), tensorpool.WithInsecureHTTP(),
		tensorpool.WithHTTPClient(e.HTTPClient()), tensorpool.WithRetryPolicy(tensorpool.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := gen.NewClientWithResponses(InProcessURL, gen.WithHTTPClient(e.HTTPClient()), gen.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+e.APIKey())
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	var answered, success, statuses int
	skipped := map[string]int{}
	for _, op := range operations.All() {
		i := slices.IndexFunc(e.spec.routes, func(r *route) bool { return r.key == op.Method+" "+op.Path })
		rt := (*route)(nil)
		if i >= 0 {
			rt = e.spec.routes[i]
		}
		if rt == nil {
			t.Errorf("%s %s: gen sends it, the engine does not route it", op.Method, op.Path)
			continue
		}
		call, why := callOf(t, e, rt, op)
		if why != "" {
			skipped[why]++
			continue
		}
		t.Run(rt.key, func(t *testing.T) {
			for name, client := range map[string]*gen.ClientWithResponses{"NewClient": c, "raw": raw} {
				if handlers[rt.key] != nil {
					break // a modelled operation answers from its state: its contract test covers it
				}
				before := len(e.Violations())
				resp, err := call(client)
				status := statusOf(resp, err)
				switch {
				case status == 0:
					t.Errorf("%s: no answer: %v", name, err)
				case rt.response(status) == nil:
					t.Errorf("%s: status %d, which the operation does not declare", name, status)
				case len(e.Violations()) > before && !strings.Contains(fmt.Sprint(e.SpecProblems()), rt.key+": no value found"):
					t.Errorf("%s: %v", name, e.Violations()[before:])
				case name == "raw":
					answered++
					if status < 300 {
						success++
					}
				}
			}
			for _, key := range slices.Sorted(maps.Keys(rt.canned)) {
				status, _ := strconv.Atoi(strings.NewReplacer("XX", "00", "default", "599").Replace(key))
				if status < 200 || rt.kr.Method == http.MethodHead && status >= 300 {
					continue
				}
				statuses++
				e.Respond(rt.key, Answer{Status: status}, Answer{Status: status})
				resp, err := call(c)
				var apiErr *tensorpool.APIError
				switch {
				case status < 300 && (err != nil || strings.Contains(rt.canned[key].header.Get("Content-Type"), "json") && rt.canned[key].schema != nil && !typedField(resp, status)):
					t.Errorf("NewClient, a declared %d: %v, its typed field unset", status, err)
				case status >= 300 && (!errors.As(err, &apiErr) || apiErr.StatusCode != status):
					t.Errorf("NewClient, a declared %d: %v, want an *APIError with that status", status, err)
				}
				if resp, err := call(raw); err != nil || statusOf(resp, err) != status ||
					strings.Contains(rt.canned[key].header.Get("Content-Type"), "json") && rt.canned[key].schema != nil && key != "default" && !typedField(resp, status) {
					t.Errorf("raw client, a declared %d: %v, status %d, its typed field unset", status, err, statusOf(resp, err))
				}
			}
		})
	}
	t.Logf("every operation: %d operations, %d answered as the document says (%d with a success), %d declared statuses reached; not called: %v",
		len(operations.All()), answered, success, statuses, skipped)
}

// callOf returns a call of op through a client, with arguments its
// schemas allow, or why it cannot build one.
func callOf(t *testing.T, e *Engine, rt *route, op operations.Operation) (func(*gen.ClientWithResponses) (any, error), string) {
	name := op.Name + "WithResponse"
	var body []byte
	var contentType string
	if rb := rt.kr.Operation.RequestBody; rb != nil && rb.Value != nil {
		name = op.Name + "WithBodyWithResponse"
		for _, mt := range slices.Sorted(maps.Keys(rb.Value.Content)) {
			m := rb.Value.Content[mt]
			form := mt == "application/x-www-form-urlencoded"
			if !strings.Contains(mt, "json") && !form || m.Schema == nil || contentType != "" {
				continue
			}
			v, err := synth.Builder{Opts: e.spec.synth.Opts, Request: true}.Value(m.Schema.Value, m.Example)
			if err != nil {
				return nil, "no request body found for its schema"
			}
			if body, contentType = formOf(v), mt; !form {
				body, _ = json.Marshal(v)
			}
		}
		if contentType == "" || body == nil {
			return nil, "its body is neither JSON nor a flat form"
		}
	}
	for _, p := range slices.Concat(rt.kr.PathItem.Parameters, rt.kr.Operation.Parameters) {
		if p.Value != nil && p.Value.Required && p.Value.In != openapi3.ParameterInPath {
			return nil, "it needs a query, header or cookie parameter"
		}
	}
	m, ok := reflect.TypeFor[*gen.ClientWithResponses]().MethodByName(name)
	if !ok {
		t.Errorf("%s: no method %s", rt.key, name)
		return nil, "no method"
	}
	args := []reflect.Value{reflect.ValueOf(context.Background())}
	for i, p := range op.Params {
		var schema *openapi3.Schema
		for _, ref := range slices.Concat(rt.kr.PathItem.Parameters, rt.kr.Operation.Parameters) {
			if ref.Value != nil && ref.Value.In == openapi3.ParameterInPath && ref.Value.Name == p.Name && ref.Value.Schema != nil {
				schema = ref.Value.Schema.Value
			}
		}
		v, _ := synth.Builder{Opts: e.spec.synth.Opts, Request: true}.Value(cmpSchema(schema))
		arg := reflect.New(m.Type.In(2 + i))
		if b, _ := json.Marshal(v); json.Unmarshal(b, arg.Interface()) != nil && arg.Elem().Kind() == reflect.String {
			arg.Elem().SetString(fmt.Sprint(v))
		}
		args = append(args, arg.Elem())
	}
	for j := 2 + len(op.Params); j < m.Type.NumIn(); j++ {
		switch in := m.Type.In(j); {
		case m.Type.IsVariadic() && j == m.Type.NumIn()-1:
		case in.Kind() == reflect.Pointer: // the query parameters: none required
			args = append(args, reflect.New(in.Elem()))
		case in.Kind() == reflect.String:
			args = append(args, reflect.ValueOf(contentType))
		case in == reflect.TypeFor[io.Reader]():
			args = append(args, reflect.ValueOf(io.Reader(nil)))
		default:
			return nil, "an argument of type " + in.String()
		}
	}
	return func(c *gen.ClientWithResponses) (any, error) {
		in := slices.Clone(args)
		for j := range in {
			if m.Type.In(j+1) == reflect.TypeFor[io.Reader]() {
				in[j] = reflect.ValueOf(io.Reader(bytes.NewReader(body)))
			}
		}
		out := m.Func.Call(append([]reflect.Value{reflect.ValueOf(c)}, in...))
		err, _ := out[1].Interface().(error)
		return out[0].Interface(), err
	}, ""
}

// formOf encodes v, an object of scalars and lists of scalars, as a form;
// nil for any other value.
func formOf(v any) []byte {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	form := url.Values{}
	for k, v := range m {
		items, ok := v.([]any)
		if !ok {
			items = []any{v}
		}
		for _, item := range items {
			switch item.(type) {
			case map[string]any, []any, nil:
				return nil
			}
			form.Add(k, fmt.Sprint(item))
		}
	}
	return []byte(form.Encode())
}

func cmpSchema(s *openapi3.Schema) *openapi3.Schema {
	if s == nil {
		return openapi3.NewStringSchema()
	}
	return s
}

// statusOf is the status of a generated response, or of an error's
// *APIError, or 0.
func statusOf(resp any, err error) int {
	var apiErr *tensorpool.APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	if r, ok := resp.(interface{ StatusCode() int }); ok && !reflect.ValueOf(resp).IsNil() {
		return r.StatusCode()
	}
	return 0
}

// typedField reports whether resp's typed field of status (JSON200,
// JSONDefault) is set, or it has none.
func typedField(resp any, status int) bool {
	v := reflect.Indirect(reflect.ValueOf(resp))
	if !v.IsValid() {
		return false
	}
	f := v.FieldByName(fmt.Sprint("JSON", status))
	if !f.IsValid() {
		f = v.FieldByName(fmt.Sprintf("JSON%cXX", strconv.Itoa(status)[0]))
	}
	if !f.IsValid() {
		f = v.FieldByName("JSONDefault")
	}
	return !f.IsValid() || !f.IsZero()
}

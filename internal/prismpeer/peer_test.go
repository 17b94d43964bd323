package prismpeer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tensorpool/tensorpool-go/gen"
)

func prismURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("PRISM_URL")
	if u == "" {
		t.Skip("PRISM_URL is not set: run `make prism`")
	}
	return u
}

func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromFile("../../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// call is one operation of the spec bound to a generated method.
type call struct {
	method, path string
	op           *openapi3.Operation
	goName       string // method of gen.Client; <goName>WithResponse on gen.ClientWithResponses
}

type recordingDoer struct{ method, path string }

func (d *recordingDoer) Do(r *http.Request) (*http.Response, error) {
	d.method, d.path = r.Method, r.URL.EscapedPath()
	return &http.Response{StatusCode: http.StatusTeapot, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

var (
	ctxType    = reflect.TypeFor[context.Context]()
	readerType = reflect.TypeFor[io.Reader]()
	respType   = reflect.TypeFor[*http.Response]()
	pathParam  = regexp.MustCompile(`\{[^}/]+\}`)
)

// calls binds every operation of doc to the generated method that sends its
// route, found by calling each method against a recorder (names play no part,
// so a spec with other operationIds works unchanged). For an operation with
// a body, the typed method is preferred over its ...WithBody twin so that the
// generated request types are what Prism sees.
func calls(t *testing.T, doc *openapi3.T) []call {
	t.Helper()
	doer := &recordingDoer{}
	c, err := gen.NewClient("http://engine.invalid", gen.WithHTTPClient(doer))
	if err != nil {
		t.Fatal(err)
	}
	type route struct{ method, path string }
	sent := map[string]route{}
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumMethod(); i++ {
		m := v.Type().Method(i)
		ft := v.Method(i).Type() // without the receiver
		if !isClientMethod(ft) {
			continue
		}
		doer.method = ""
		args, err := arguments(ft, nil, []byte("{}"))
		if err != nil {
			continue // a body type that "{}" does not fit: the WithBody twin covers the route
		}
		v.Method(i).Call(args)
		if doer.method != "" {
			sent[m.Name] = route{doer.method, doer.path}
		}
	}
	var out []call
	for p, item := range doc.Paths.Map() {
		re := regexp.MustCompile("^" + pathParam.ReplaceAllString(p, `[^/]+`) + "$")
		for method, op := range item.Operations() {
			var names []string
			for name, r := range sent {
				if r.method == method && re.MatchString(r.path) {
					names = append(names, name)
				}
			}
			if len(names) == 0 {
				t.Errorf("%s %s: no generated method sends it", method, p)
				continue
			}
			sort.Slice(names, func(i, j int) bool { // typed method first
				return !hasReader(v.MethodByName(names[i]).Type()) && hasReader(v.MethodByName(names[j]).Type())
			})
			out = append(out, call{method: method, path: p, op: op, goName: names[0]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

func isClientMethod(ft reflect.Type) bool {
	return ft.NumIn() >= 1 && ft.In(0) == ctxType && ft.NumOut() == 2 && ft.Out(0) == respType
}

func hasReader(ft reflect.Type) bool {
	for i := 0; i < ft.NumIn(); i++ {
		if ft.In(i) == readerType {
			return true
		}
	}
	return false
}

// arguments builds the arguments of a generated method (without receiver):
// path parameters get placeholder IDs, a params struct its zero value, a
// typed body is decoded from body, and a raw body is body itself.
func arguments(ft reflect.Type, editors []gen.RequestEditorFn, body []byte) ([]reflect.Value, error) {
	args := []reflect.Value{reflect.ValueOf(context.Background())}
	last := ft.NumIn()
	if ft.IsVariadic() {
		last--
	}
	for j := 1; j < last; j++ {
		in := ft.In(j)
		switch {
		case in == readerType:
			args = append(args, reflect.ValueOf(io.Reader(bytes.NewReader(body))))
		case in.Kind() == reflect.String && j+1 < last && ft.In(j+1) == readerType:
			args = append(args, reflect.ValueOf("application/json").Convert(in))
		case in.Kind() == reflect.String:
			s := reflect.New(in).Elem()
			s.SetString(fmt.Sprintf("id-%d", j))
			args = append(args, s)
		case in.Kind() == reflect.Pointer && in.Elem().Kind() == reflect.Struct:
			args = append(args, reflect.New(in.Elem()))
		case in.Kind() == reflect.Struct:
			p := reflect.New(in)
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(p.Interface()); err != nil {
				return nil, fmt.Errorf("the example body does not fit %s: %w", in, err)
			}
			args = append(args, p.Elem())
		default:
			args = append(args, reflect.Zero(in))
		}
	}
	for _, e := range editors {
		args = append(args, reflect.ValueOf(e))
	}
	return args, nil
}

// formatSamples are valid strings for the formats a FastAPI spec carries
// (pydantic's EmailStr, UUID, datetime, date, AnyUrl, ...); Prism checks them.
var formatSamples = map[string]string{
	"date-time": "2026-01-02T03:04:05Z",
	"date":      "2026-01-02",
	"time":      "03:04:05Z",
	"duration":  "P1DT2H",
	"email":     "someone@example.com",
	"uuid":      "123e4567-e89b-42d3-a456-426614174000",
	"uri":       "https://example.com/",
	"hostname":  "example.com",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
}

// example builds a JSON value valid against s, with every property (so the
// generated types' handling of optional and nullable fields is exercised).
func example(s *openapi3.SchemaRef) any {
	if s == nil || s.Value == nil {
		return "x"
	}
	v := s.Value
	switch {
	case v.Const != nil:
		return v.Const
	case len(v.Enum) > 0:
		return v.Enum[0]
	case len(v.Examples) > 0:
		return v.Examples[0]
	case v.Example != nil:
		return v.Example
	}
	for _, alts := range []openapi3.SchemaRefs{v.AnyOf, v.OneOf, v.AllOf} {
		for _, alt := range alts {
			if alt.Value != nil && !(alt.Value.Type != nil && alt.Value.Type.Is("null")) {
				return example(alt)
			}
		}
	}
	if v.Default != nil {
		return v.Default
	}
	typ := "object"
	if v.Type != nil {
		for _, t := range v.Type.Slice() {
			if t != "null" {
				typ = t
				break
			}
		}
	}
	switch typ {
	case "array":
		n := max(int(v.MinItems), 1)
		items := make([]any, n)
		for i := range items {
			items[i] = example(v.Items)
		}
		return items
	case "string":
		if sample, ok := formatSamples[v.Format]; ok {
			return sample
		}
		return strings.Repeat("x", max(int(v.MinLength), 1))
	case "integer":
		if v.Min != nil {
			return int64(*v.Min) + 1
		}
		return 1
	case "number":
		if v.Min != nil {
			return *v.Min + 1
		}
		return 1.5
	case "boolean":
		return true
	default:
		obj := map[string]any{}
		for name, p := range v.Properties {
			obj[name] = example(p)
		}
		return obj
	}
}

func requestBody(t *testing.T, op *openapi3.Operation) []byte {
	t.Helper()
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil {
		t.Fatalf("only JSON request bodies are supported here")
	}
	b, err := json.Marshal(example(mt.Schema))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bearer(ctx context.Context, r *http.Request) error {
	r.Header.Set("Authorization", "Bearer prism-test-key")
	return nil
}

// TestEveryOperationAgainstPrism sends every operation twice, for Prism's
// static example and for a dynamically generated one (Prefer: dynamic=true).
func TestEveryOperationAgainstPrism(t *testing.T) {
	base := prismURL(t)
	doc := loadSpec(t)
	cw, err := gen.NewClientWithResponses(base)
	if err != nil {
		t.Fatal(err)
	}
	cv := reflect.ValueOf(cw)
	for _, c := range calls(t, doc) {
		for _, mode := range []string{"static", "dynamic"} {
			t.Run(c.method+" "+c.path+" "+mode, func(t *testing.T) {
				m := cv.MethodByName(c.goName + "WithResponse")
				if !m.IsValid() {
					t.Fatalf("gen.ClientWithResponses has no %sWithResponse", c.goName)
				}
				editors := []gen.RequestEditorFn{bearer}
				if mode == "dynamic" {
					editors = append(editors, func(ctx context.Context, r *http.Request) error {
						r.Header.Set("Prefer", "dynamic=true")
						return nil
					})
				}
				body := requestBody(t, c.op)
				args, err := arguments(m.Type(), editors, body)
				if err != nil {
					t.Fatal(err)
				}
				out := m.Call(args)
				if err, _ := out[1].Interface().(error); err != nil {
					t.Fatalf("%s: the client cannot decode Prism's response: %v", c.goName, err)
				}
				checkResponse(t, c, out[0], body)
			})
		}
	}
}

func checkResponse(t *testing.T, c call, resp reflect.Value, sentBody []byte) {
	t.Helper()
	r := resp.Elem()
	hr := r.FieldByName("HTTPResponse").Interface().(*http.Response)
	raw := r.FieldByName("Body").Bytes()
	if v := hr.Header.Get("sl-violations"); v != "" || hr.StatusCode >= 300 {
		t.Fatalf("Prism rejects %s %s (sent body %s): %s\nsl-violations: %s\n%s", c.method, c.path, sentBody, hr.Status, v, raw)
	}
	code := strconv.Itoa(hr.StatusCode)
	spec := c.op.Responses.Value(code)
	if spec == nil || spec.Value == nil || spec.Value.Content.Get("application/json") == nil {
		return
	}
	field := r.FieldByName("JSON" + code)
	if !field.IsValid() || field.IsNil() {
		t.Fatalf("%s: a %s JSON response was not decoded into JSON%s: %s", c.goName, code, code, raw)
	}
}

// The peer must actually check something: Prism rejects an unauthenticated
// request and an invalid body, and the check above sees it.
func TestPrismRejectsBadRequests(t *testing.T) {
	base := prismURL(t)
	doc := loadSpec(t)
	for _, c := range calls(t, doc) {
		if c.op.RequestBody == nil {
			continue
		}
		u := base + pathParam.ReplaceAllString(c.path, "id-1")
		for name, tc := range map[string]struct {
			auth bool
			body string
		}{
			"no auth":    {false, string(requestBody(t, c.op))},
			"wrong type": {true, `{"storage_id": 5, "instance_type": 5}`},
		} {
			req, _ := http.NewRequest(c.method, u, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if tc.auth {
				req.Header.Set("Authorization", "Bearer prism-test-key")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode < 400 && resp.Header.Get("sl-violations") == "" {
				t.Errorf("%s %s, %s: Prism answers %s without a violation; the peer checks nothing", c.method, c.path, name, resp.Status)
			}
		}
		return // one operation with a body is enough
	}
	t.Skip("no operation with a request body")
}

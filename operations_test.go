package tensorpool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/tensorpool/tensorpool-go/gen"
)

// sentRequest is what one generated method put on the wire.
type sentRequest struct{ method, path string }

type recordingDoer struct{ last *sentRequest }

func (d *recordingDoer) Do(r *http.Request) (*http.Response, error) {
	d.last = &sentRequest{method: r.Method, path: r.URL.EscapedPath()}
	return &http.Response{StatusCode: http.StatusTeapot, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

// clientRoutes calls every method of *gen.Client with placeholder arguments
// and returns the route each one sends, keyed by Go method name. It relies on
// the shape of generated methods (ctx first, returns (*http.Response, error)),
// not on their names, so it keeps working whatever operationIds a bigger spec
// or scripts/specprep brings.
func clientRoutes(t *testing.T) map[string]sentRequest {
	t.Helper()
	doer := &recordingDoer{}
	c, err := gen.NewClient("http://engine.invalid", gen.WithHTTPClient(doer))
	if err != nil {
		t.Fatal(err)
	}
	ctxType := reflect.TypeFor[context.Context]()
	readerType := reflect.TypeFor[io.Reader]()
	respType := reflect.TypeFor[*http.Response]()
	routes := map[string]sentRequest{}
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumMethod(); i++ {
		m := v.Type().Method(i)
		ft := m.Type // receiver is In(0)
		if ft.NumIn() < 2 || ft.In(1) != ctxType || ft.NumOut() != 2 || ft.Out(0) != respType {
			continue
		}
		args := []reflect.Value{reflect.ValueOf(context.Background())}
		last := ft.NumIn()
		if ft.IsVariadic() {
			last-- // no request editors
		}
		for j := 2; j < last; j++ {
			switch in := ft.In(j); {
			case in == readerType:
				args = append(args, reflect.ValueOf(io.Reader(strings.NewReader("{}"))))
			case in.Kind() == reflect.String:
				s := reflect.New(in).Elem()
				s.SetString(fmt.Sprintf("placeholder-%d", j)) // unlike any literal segment
				args = append(args, s)
			default:
				args = append(args, sendable(in))
			}
		}
		t.Run(m.Name, func(t *testing.T) { // a method that panics fails here, named, and only here
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("gen.Client.%s panics on placeholder arguments: %v", m.Name, r)
				}
			}()
			doer.last = nil
			out := v.Method(i).Call(args)
			if errv := out[1]; !errv.IsNil() && doer.last == nil {
				t.Errorf("gen.Client.%s failed before sending: %v", m.Name, errv.Interface())
				return
			}
			if doer.last != nil {
				routes[m.Name] = *doer.last
			}
		})
	}
	return routes
}

// formatSamples are valid values of the generated format types whose zero
// value the client refuses to send: openapi_types.Email's MarshalJSON
// rejects "" (a `format: email` property, common in FastAPI specs). The
// other format types (uuid, date, date-time, binary) marshal their zero.
var formatSamples = map[reflect.Type]reflect.Value{
	reflect.TypeFor[openapi_types.Email](): reflect.ValueOf(openapi_types.Email("someone@example.com")),
}

// sendable returns a value of type t that the generated client can send:
// the zero value, with a valid sample in every field of a format type that
// refuses its zero (see formatSamples), in structs at any depth, and text
// for an untyped value. Pointers, slices and maps stay nil: optional values
// are left out.
func sendable(t reflect.Type) reflect.Value {
	if v, ok := formatSamples[t]; ok {
		return v
	}
	v := reflect.New(t).Elem()
	if t.Kind() == reflect.Interface && t.NumMethod() == 0 { // an untyped body, text/plain's say: it takes a fmt.Stringer
		v.Set(reflect.ValueOf(text("placeholder")))
	}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			if f := v.Field(i); f.CanSet() {
				f.Set(sendable(t.Field(i).Type))
			}
		}
	}
	return v
}

// text is a string the generated text/plain builders take (a fmt.Stringer).
type text string

func (s text) String() string { return string(s) }

var pathParam = regexp.MustCompile(`\{[^}/]+\}`)

// routePattern matches the paths a path template stands for: its literal
// text exactly, each {param} as one non-empty segment (or part of one),
// anchored at both ends.
func routePattern(template string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, loc := range pathParam.FindAllStringIndex(template, -1) {
		b.WriteString(regexp.QuoteMeta(template[last:loc[0]]))
		b.WriteString(`[^/]+`)
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(template[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// implementations maps each operation of doc ("METHOD /template") to the
// client methods that send its route. Like a router, a route that several
// templates match counts for the one with the fewest parameters only, so
// GET /x/list never stands in for a missing GET /x/{id}.
func implementations(doc *openapi3.T, routes map[string]sentRequest) map[string][]string {
	type template struct {
		op     string
		method string
		re     *regexp.Regexp
		params int
	}
	var templates []template
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			templates = append(templates, template{method + " " + path, method, routePattern(path), len(pathParam.FindAllString(path, -1))})
		}
	}
	sort.Slice(templates, func(i, j int) bool {
		if templates[i].params != templates[j].params {
			return templates[i].params < templates[j].params
		}
		return templates[i].op < templates[j].op
	})
	impl := map[string][]string{}
	for name, r := range routes {
		for _, tm := range templates {
			if tm.method == r.method && tm.re.MatchString(r.path) {
				impl[tm.op] = append(impl[tm.op], name)
				break
			}
		}
	}
	return impl
}

// missingOperations lists the operations of doc that no generated method
// sends, and those whose ClientWithResponses twin is absent.
func missingOperations(doc *openapi3.T, routes map[string]sentRequest) []string {
	withResponses := reflect.TypeFor[*gen.ClientWithResponses]()
	impl := implementations(doc, routes)
	var missing []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			names := impl[method+" "+path]
			if len(names) == 0 {
				missing = append(missing, fmt.Sprintf("%s %s (operationId %q)", method, path, op.OperationID))
				continue
			}
			for _, name := range names {
				if _, ok := withResponses.MethodByName(name + "WithResponse"); !ok {
					missing = append(missing, fmt.Sprintf("%s %s: gen.ClientWithResponses has no %sWithResponse", method, path, name))
				}
			}
		}
	}
	sort.Strings(missing)
	return missing
}

// The placeholder values must be valid for every format a FastAPI spec
// carries, or a bigger spec fails the coverage test before sending.
func TestSendableValuesMarshal(t *testing.T) {
	type params struct {
		Email      openapi_types.Email `json:"email"`
		ID         openapi_types.UUID  `json:"id"`
		Day        openapi_types.Date  `json:"day"`
		At         time.Time           `json:"at"`
		Upload     openapi_types.File  `json:"-"`
		Nested     struct{ To openapi_types.Email }
		Optional   *openapi_types.Email `json:"optional,omitempty"`
		unexported openapi_types.Email
	}
	if _, err := json.Marshal(reflect.Zero(reflect.TypeFor[params]()).Interface()); err == nil {
		t.Fatal("the zero value marshals: this test no longer proves anything")
	}
	b, err := json.Marshal(sendable(reflect.TypeFor[params]()).Interface())
	if err != nil {
		t.Fatalf("sendable's value does not marshal: %v", err)
	}
	if !strings.Contains(string(b), `"email":"someone@example.com"`) || !strings.Contains(string(b), `"To":"someone@example.com"`) {
		t.Errorf("sendable's value: %s", b)
	}
}

// TestEveryOperationHasAClientMethod fails, naming the operation, when an
// operation in openapi.json has no method on the generated client.
func TestEveryOperationHasAClientMethod(t *testing.T) {
	routes := clientRoutes(t)
	if len(routes) == 0 {
		t.Fatal("found no generated client methods at all")
	}
	for _, m := range missingOperations(loadSpec(t), routes) {
		t.Errorf("operation without a generated client method: %s", m)
	}
}

func TestCoverageCheckNamesAnUncoveredOperation(t *testing.T) {
	doc := loadSpec(t)
	doc.AddOperation("/storage/{storage_id}/detach", http.MethodPost, &openapi3.Operation{
		OperationID: "storage_detach", Responses: openapi3.NewResponses(),
	})
	got := missingOperations(doc, clientRoutes(t))
	want := `POST /storage/{storage_id}/detach (operationId "storage_detach")`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("missingOperations = %q, want [%q]", got, want)
	}
}

// A route counts only for the operation whose template it matches exactly
// and most specifically.
func TestCoverageMatchesRoutesExactly(t *testing.T) {
	doc := &openapi3.T{}
	for _, p := range []string{"/x/list", "/x/{id}", "/a.b/{id}", "/files/{name}.json", "/y/{id}"} {
		doc.AddOperation(p, http.MethodGet, &openapi3.Operation{Responses: openapi3.NewResponses()})
	}
	routes := map[string]sentRequest{
		"ListX":    {http.MethodGet, "/x/list"},        // not GET /x/{id}
		"Dotted":   {http.MethodGet, "/axb/p1"},        // not /a.b/{id}: the dot is literal
		"File":     {http.MethodGet, "/files/p1.json"}, // a parameter inside a segment
		"EmptyY":   {http.MethodGet, "/y/"},            // a parameter is never empty
		"DeeperY":  {http.MethodGet, "/y/p1/extra"},    // anchored at the end
		"PrefixY":  {http.MethodGet, "/v1/y/p1"},       // and at the start
		"PostList": {http.MethodPost, "/x/list"},       // the method counts
	}
	got := implementations(doc, routes)
	want := map[string][]string{"GET /x/list": {"ListX"}, "GET /files/{name}.json": {"File"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("implementations = %v, want %v", got, want)
	}
	routes["X"] = sentRequest{http.MethodGet, "/x/p1"}
	if got := implementations(doc, routes)["GET /x/{id}"]; !reflect.DeepEqual(got, []string{"X"}) {
		t.Errorf("GET /x/p1 implements GET /x/{id} through %v, want [X]", got)
	}
}

package tensorpool_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

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
// or the overlay brings.
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
				s.SetString(fmt.Sprintf("p%d", j))
				args = append(args, s)
			default:
				args = append(args, reflect.Zero(in))
			}
		}
		doer.last = nil
		out := v.Method(i).Call(args)
		if errv := out[1]; !errv.IsNil() && doer.last == nil {
			t.Errorf("gen.Client.%s failed before sending: %v", m.Name, errv.Interface())
			continue
		}
		if doer.last != nil {
			routes[m.Name] = *doer.last
		}
	}
	return routes
}

var pathParam = regexp.MustCompile(`\{[^}/]+\}`)

// missingOperations lists the operations of doc that no generated method
// sends, and those whose ClientWithResponses twin is absent.
func missingOperations(doc *openapi3.T, routes map[string]sentRequest) []string {
	withResponses := reflect.TypeFor[*gen.ClientWithResponses]()
	var missing []string
	for path, item := range doc.Paths.Map() {
		re := regexp.MustCompile("^" + pathParam.ReplaceAllString(path, `[^/]+`) + "$")
		for method, op := range item.Operations() {
			var impl []string
			for name, r := range routes {
				if r.method == method && re.MatchString(r.path) {
					impl = append(impl, name)
				}
			}
			if len(impl) == 0 {
				missing = append(missing, fmt.Sprintf("%s %s (operationId %q)", method, path, op.OperationID))
				continue
			}
			for _, name := range impl {
				if _, ok := withResponses.MethodByName(name + "WithResponse"); !ok {
					missing = append(missing, fmt.Sprintf("%s %s: gen.ClientWithResponses has no %sWithResponse", method, path, name))
				}
			}
		}
	}
	sort.Strings(missing)
	return missing
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

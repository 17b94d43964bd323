package tensorpooltest_test

import (
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestOperationsAreTheSpecs(t *testing.T) {
	got := tensorpooltest.New().Operations()
	slices.Sort(got)
	var want []string
	for path, item := range loadDoc(t, tensorpool.OpenAPIDocument()).Paths.Map() {
		for method := range item.Operations() {
			want = append(want, method+" "+path)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Operations() = %q, want %q", got, want)
	}
}

func TestRoutingOutsideTheSpec(t *testing.T) {
	s := seeded(t)
	if status, _ := raw(t, s, "GET", "/nothing/here", "", ""); status != 404 {
		t.Fatalf("unknown path: %d, want 404", status)
	}
	if status, _ := raw(t, s, "PUT", "/storage/attach", "", ""); status != 405 {
		t.Fatalf("PUT /storage/attach: %d, want 405", status)
	}
}

// The methods of one path come in a fixed order, whatever the order of Go's
// map iteration: in Operations() and in a 405's Allow header. Each
// iteration loads a different document (the engine caches by content).
func TestMethodsOfAPathInAFixedOrder(t *testing.T) {
	for i := range 20 {
		doc := specWith(t, func(doc map[string]any) {
			obj(doc["info"])["title"] = fmt.Sprintf("methods %d", i)
			item := obj(obj(doc["paths"])["/storage/{storage_id}"])
			for _, m := range []string{"get", "put", "post", "patch", "options"} {
				op := maps.Clone(obj(item["delete"]))
				op["operationId"] = "storage_" + m
				item[m] = op
			}
		})
		e := tensorpooltest.New(tensorpooltest.WithSpec(doc))
		var got []string
		for _, op := range e.Operations() {
			if strings.HasSuffix(op, " /storage/{storage_id}") {
				got = append(got, strings.Fields(op)[0])
			}
		}
		want := []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "PATCH"}
		if !slices.Equal(got, want) {
			t.Fatalf("methods of /storage/{storage_id} in Operations(): %q, want %q", got, want)
		}
		req := httptest.NewRequest("HEAD", "/storage/s-1", nil)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != 405 || !slices.Equal(w.Header().Values("Allow"), want) {
			t.Fatalf("HEAD: %d, Allow %q, want 405 and %q", w.Code, w.Header().Values("Allow"), want)
		}
	}
}

// FastAPI writes paths that differ only in their template names (GET
// /x/{id} beside PATCH /x/{attempt_id}), which kin-openapi rejects as
// conflicting. The engine loads such a document: it keeps each operation's
// key as the document writes it, validates requests to both twins with
// their own parameter schemas, and still serves the seed operations.
func TestTemplateTwinsLoad(t *testing.T) {
	doc := specWith(t, func(doc map[string]any) {
		paths := obj(doc["paths"])
		destroy := obj(obj(paths["/storage/{storage_id}"])["delete"])
		twin := func(method, param string) map[string]any {
			op := maps.Clone(destroy)
			op["operationId"] = "twin_" + method
			op["parameters"] = []any{map[string]any{"name": param, "in": "path", "required": true,
				"schema": map[string]any{"type": "string", "minLength": 5}}}
			return map[string]any{method: op}
		}
		paths["/twins/{id}"] = twin("get", "id")
		paths["/twins/{attempt_id}"] = twin("patch", "attempt_id")
	})
	s := seeded(t, tensorpooltest.WithSpec(doc))
	ops := s.Engine.Operations()
	for _, want := range []string{"GET /twins/{id}", "PATCH /twins/{attempt_id}", "DELETE /storage/{storage_id}"} {
		if !slices.Contains(ops, want) {
			t.Errorf("Operations() = %q, lacks %q", ops, want)
		}
	}
	for _, method := range []string{"GET", "PATCH"} {
		if status, body := raw(t, s, method, "/twins/abc", "", ""); status != 422 {
			t.Errorf("%s /twins/abc (too short for either twin): %d %s, want 422", method, status, body)
		}
		if status, body := raw(t, s, method, "/twins/abcdef", "", ""); status != 501 {
			t.Errorf("%s /twins/abcdef: %d %s, want 501 (in the document, not modelled)", method, status, body)
		}
	}
	if n := s.Engine.Calls("PATCH /twins/{attempt_id}"); n != 2 {
		t.Errorf("Calls(PATCH /twins/{attempt_id}) = %d, want 2", n)
	}
	if status, body := raw(t, s, "DELETE", "/storage/s-1", "", ""); status != 202 {
		t.Errorf("the seed operation DELETE /storage/{storage_id}: %d %s, want 202", status, body)
	}
}

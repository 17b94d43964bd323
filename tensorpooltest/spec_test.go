package tensorpooltest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
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
	for i := range 20 { // a small document: any synced openapi.json would be loaded 20 times
		item := map[string]any{}
		for _, m := range []string{"get", "put", "post", "delete", "patch", "options"} {
			item[m] = map[string]any{"operationId": "storage_" + m, "parameters": []any{map[string]any{"name": "storage_id", "in": "path", "required": true,
				"schema": map[string]any{"type": "string"}}}, "responses": map[string]any{"202": map[string]any{"description": "accepted"}}}
		}
		doc, err := json.Marshal(map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": fmt.Sprintf("methods %d", i), "version": "1"},
			"paths": map[string]any{"/storage/{storage_id}": item}})
		if err != nil {
			t.Fatal(err)
		}
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
// /x/{id} beside PATCH /x/{attempt_id}), which kin-openapi calls
// conflicting. The engine loads such a document without a problem: it keeps
// each operation's key as the document writes it, validates requests to
// both twins with their own parameter schemas, answers 405 with the methods
// of every twin, and still serves the seed operations.
func TestTemplateTwinsLoad(t *testing.T) {
	doc := specWith(t, func(doc map[string]any) {
		paths := obj(doc["paths"])
		destroy := obj(obj(paths["/storage/{storage_id}"])["delete"])
		twin := func(method, param string) map[string]any {
			op := maps.Clone(destroy)
			op["operationId"] = "twin_" + method + "_" + param
			op["parameters"] = []any{map[string]any{"name": param, "in": "path", "required": true,
				"schema": map[string]any{"type": "string", "minLength": 5}}}
			return map[string]any{method: op}
		}
		paths["/twins/{id}"] = twin("get", "id")
		paths["/twins/{attempt_id}"] = twin("patch", "attempt_id")
		paths["/twins/{other}"] = twin("get", "other") // a GET no request reaches
	})
	s := seeded(t, tensorpooltest.WithSpec(doc))
	base := tensorpooltest.New().SpecProblems() // the vendored document's own: a synced spec may have some
	if problems := s.Engine.SpecProblems(); len(problems) != len(base) {
		t.Errorf("SpecProblems() = %v, want the vendored document's %v: twins are no problem", problems, base)
	}
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
		if status, body := raw(t, s, method, "/twins/abcdef", "", ""); status != 202 || !strings.Contains(body, `"storage_id"`) {
			t.Errorf("%s /twins/abcdef: %d %s, want the 202 the document declares (not modelled)", method, status, body)
		}
	}
	if n := s.Engine.Calls("PATCH /twins/{attempt_id}"); n != 2 {
		t.Errorf("Calls(PATCH /twins/{attempt_id}) = %d, want 2", n)
	}
	w := httptest.NewRecorder()
	s.Engine.ServeHTTP(w, httptest.NewRequest("PUT", "/twins/abcdef", nil))
	if allow := w.Header().Values("Allow"); w.Code != 405 || !slices.Equal(allow, []string{"GET", "PATCH"}) {
		t.Errorf("PUT /twins/abcdef: %d, Allow %q; want 405 and [GET PATCH]", w.Code, allow)
	}
	if status, body := raw(t, s, "DELETE", "/storage/s-1", "", ""); status != 202 {
		t.Errorf("the seed operation DELETE /storage/{storage_id}: %d %s, want 202", status, body)
	}
}

// TestDocumentProblemsOutsideTheModelAreTolerated: what real documents hold
// outside the operations the engine models (vendor keywords beside schema
// keywords, as pydantic writes them; a default off its schema; summary in a
// schema; description on a media type; an undefined security scheme; an
// empty info.version) is reported, never a panic; the seed flow still runs.
// A default and an example off their schema in a modelled operation are
// tolerated too (the engine reads neither; kin-openapi words and groups
// them differently in 3.0 and 3.1); any other problem there is New's
// panic, naming the operation.
func TestDocumentProblemsOutsideTheModelAreTolerated(t *testing.T) {
	doc := specWith(t, func(doc map[string]any) {
		obj(doc["info"])["version"] = ""
		// in a modelled operation too: a default and an example off their schema, which the engine never reads
		id := obj(obj(obj(obj(doc["components"])["schemas"])["StorageAttachRestRequest"])["properties"])["storage_id"]
		obj(id)["default"], obj(id)["example"] = 7, 8
		obj(doc["paths"])["/other/{id}"] = map[string]any{"get": map[string]any{
			"operationId": "other",
			"security":    []any{map[string]any{"Undefined": []any{}}},
			"parameters":  []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}},
			"responses": map[string]any{"200": map[string]any{"description": "ok", "content": map[string]any{"application/json": map[string]any{
				"description": "on a media type",
				"schema": map[string]any{"type": "object", "summary": "in a schema", "pydanticVendorKeyword": true,
					"properties": map[string]any{"n": map[string]any{"type": "integer", "default": "not a number"}}},
			}}}},
		}}
	})
	s := seeded(t, tensorpooltest.WithSpec(doc))
	problems := fmt.Sprint(s.Engine.SpecProblems())
	for _, want := range []string{"version", "Undefined", "not a number"} { // kin-openapi names the first problem of a part
		if !strings.Contains(problems, want) {
			t.Errorf("SpecProblems() = %s, lacks %q", problems, want)
		}
	}
	wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
	if status, _ := raw(t, s, "GET", "/other/x", "", ""); status != 403 { // its scheme is unknown: no key passes
		t.Errorf("GET /other/x: %d, want 403", status)
	}

	broken := specWith(t, func(doc map[string]any) {
		obj(obj(obj(doc["paths"])["/storage/attach"])["post"])["responses"] = map[string]any{"202": map[string]any{"description": "ok",
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object", "oddKeyword": 1}}}}}
	})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "POST /storage/attach") {
			t.Errorf("a problem in a modelled operation: %v, want New's panic naming it", r)
		}
	}()
	tensorpooltest.New(tensorpooltest.WithSpec(broken))
}

// TestOpenAPI30Loads: a 3.0 document (nullable: true, no null type), as
// many real ones are, serves the seed flow: here openapi.json in 3.0's
// words.
func TestOpenAPI30Loads(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(tensorpool.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	doc["openapi"] = "3.0.3"
	jsondoc.Nullable30(doc) // anyOf [X, {type: null}] is X, nullable
	b, _ := json.Marshal(doc)
	s := seeded(t, tensorpooltest.WithSpec(b))
	resp := destroy(t, s, "s-1")
	wantStatus(t, resp, 202)
	wantStatus(t, info(t, s, *resp.JSON202.RequestID), 200)
	if v := s.Engine.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

package specgrowth

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestHostileDocument: a valid document that is hostile to a client that
// learns its operations from text (issue 40): GetRequestInfo's description
// quotes attach's "Corresponds with" line, another quotes a path the spec
// lacks; constraints hide behind a $ref, a renamed parameter and a media
// type with parameters; a path parameter is an integer enum, another
// format: byte, another is named path_text; HEAD and a 204 under a JSON
// default; a date and a date-time that may hold the key. Generation builds,
// and testdata/hostile/client_test.go passes through NewClient and wait.
func TestHostileDocument(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	var hostile map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "testdata", "hostile", "operations.json")), &hostile); err != nil {
		t.Fatal(err)
	}
	spec := editSpec(t, dir, func(doc map[string]any) {
		paths, components := doc["paths"].(map[string]any), doc["components"].(map[string]any)
		info := paths["/request/info/{request_id}"].(map[string]any)["get"].(map[string]any)
		info["description"] = "Poll it. Corresponds with POST /storage/attach (the `StorageAttach` operationId)."
		schema(doc, "RequestInfoResponse")["properties"].(map[string]any)["created_at"].(map[string]any)["format"] = "date-time"
		for p, item := range hostile["paths"].(map[string]any) {
			paths[p] = item
		}
		for kind, m := range hostile["components"].(map[string]any) {
			if components[kind] == nil {
				components[kind] = map[string]any{}
			}
			for name, v := range m.(map[string]any) {
				components[kind].(map[string]any)[name] = v
			}
		}
	})
	writeFile(t, filepath.Join(dir, "openapi.json"), string(spec))
	mustRun(t, dir, nil, "go", "generate", "./gen")
	// A package of its own: the root package's tests are written against the
	// vendored RequestInfoResponse, whose created_at the edit above retypes.
	writeFile(t, filepath.Join(dir, "hostile", "client_test.go"), string(readFile(t, filepath.Join(dir, "testdata", "hostile", "client_test.go"))))
	mustRun(t, dir, nil, "go", "build", "./...")
	mustRun(t, dir, nil, "go", "vet", "./gen", "./internal/operations", "./hostile")
	mustRun(t, dir, nil, "go", "test", "-count=1", "-run", "^TestHostile$", "./hostile")
}

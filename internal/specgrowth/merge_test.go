package specgrowth

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/oasdiff/yaml"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

// merge merges the operations of the seed (openapi.json, TensorPool's)
// into another OpenAPI document, JSON or YAML, and returns the result as
// JSON: TestRealSpecs runs the whole pipeline on each real document of
// testdata/specs merged so. The seed's paths are added (a path the
// document has already is an error); its components (schemas, security
// schemes) win over the document's of the same name, which the seed
// operations and this module's code rely on. Into a 3.0 document, the
// seed's 3.1 nullables (anyOf [X, {type: null}]) are written as 3.0's
// nullable: true.
func merge(docFile, seedFile string) ([]byte, error) {
	var doc, seed map[string]any
	for _, in := range []struct {
		file string
		v    *map[string]any
	}{{docFile, &doc}, {seedFile, &seed}} {
		file, v := in.file, in.v
		b, err := os.ReadFile(file)
		if err == nil {
			b, err = yaml.YAMLToJSON(b) // JSON is YAML too
		}
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	version, _ := doc["openapi"].(string)
	if !strings.HasPrefix(version, "3.") {
		return nil, fmt.Errorf("%s: openapi %q, want 3.x", docFile, version)
	}
	add := func(from, to map[string]any, clash func(string) error) error {
		for _, name := range slices.Sorted(maps.Keys(from)) {
			if old, ok := to[name]; ok && !reflect.DeepEqual(old, from[name]) {
				if err := clash(name); err != nil {
					return err
				}
			}
			to[name] = from[name]
		}
		return nil
	}
	err := add(jsondoc.Obj(seed, "paths"), jsondoc.Obj(doc, "paths"), func(p string) error {
		return fmt.Errorf("%s has %s already", docFile, p)
	})
	for _, section := range []string{"schemas", "securitySchemes"} {
		if err == nil {
			err = add(jsondoc.Obj(seed, "components", section), jsondoc.Obj(doc, "components", section), func(name string) error {
				fmt.Fprintf(os.Stderr, "merge: %s: the seed's components.%s.%s replaces the document's\n", docFile, section, name)
				return nil
			})
		}
	}
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(version, "3.0") {
		for _, p := range slices.Collect(maps.Keys(jsondoc.Obj(seed, "paths"))) {
			jsondoc.Nullable30(jsondoc.Obj(doc, "paths")[p])
		}
		for _, name := range slices.Collect(maps.Keys(jsondoc.Obj(seed, "components", "schemas"))) {
			jsondoc.Nullable30(jsondoc.Obj(doc, "components", "schemas")[name])
		}
	}
	return json.MarshalIndent(doc, "", "  ")
}

// A YAML 3.0 document gains the seed's paths and components, the seed's
// nullables in 3.0's words; a path it has already is an error.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.yaml")
	if err := os.WriteFile(doc, []byte("openapi: 3.0.3\ninfo: {title: d, version: '1'}\npaths:\n  /items:\n    get:\n      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n    HTTPValidationError: {type: string}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(repoRoot(t), "openapi.json")
	b, err := merge(doc, seed)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	paths := got["paths"].(map[string]any)
	for _, p := range []string{"/items", "/storage/attach", "/storage/{storage_id}", "/request/info/{request_id}"} {
		if paths[p] == nil {
			t.Errorf("the merged document lacks %s", p)
		}
	}
	schemas := got["components"].(map[string]any)["schemas"].(map[string]any)
	if got["openapi"] != "3.0.3" || schemas["HTTPValidationError"].(map[string]any)["type"] != "object" {
		t.Errorf("openapi %v, HTTPValidationError %v: want 3.0.3 and the seed's", got["openapi"], schemas["HTTPValidationError"])
	}
	if id := schemas["StorageDestroyRestResponse"].(map[string]any)["properties"].(map[string]any)["request_id"].(map[string]any); id["nullable"] != true || id["type"] != "string" || id["anyOf"] != nil {
		t.Errorf("request_id in 3.0's words: %v", id)
	}
	clash := filepath.Join(dir, "clash.json")
	if err := os.WriteFile(clash, []byte(`{"openapi":"3.1.0","paths":{"/storage/attach":{"get":{}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := merge(clash, seed); err == nil || !strings.Contains(err.Error(), "has /storage/attach already") {
		t.Errorf("merging a document that has a seed path of its own: %v", err)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A YAML 3.0 document gains the seed's paths and components, the seed's
// nullables in 3.0's words; a path it has already is an error.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.yaml")
	if err := os.WriteFile(doc, []byte("openapi: 3.0.3\ninfo: {title: d, version: '1'}\npaths:\n  /items:\n    get:\n      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n    HTTPValidationError: {type: string}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join("..", "..", "openapi.json")
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

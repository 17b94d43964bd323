package jsondoc

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestPointersAndObjects(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(`{"paths":{"/a/{id}":{"get":{"tags":["x","y"]}}},"a~b":1}`), &doc); err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string]any{
		"/paths/~1a~1{id}/get/tags/1": "y",
		"/a~0b":                       1.0,
		"/paths/~1a~1{id}/get/tags/":  nil, // not an index
		"/paths/~1a~1{id}/get/tags/2": nil,
		"/paths/none/get":             nil,
		"":                            doc,
	} {
		if got := At(doc, ptr); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("At(%q) = %v, want %v", ptr, got, want)
		}
	}
	if Get(doc, "components", "schemas") != nil || doc["components"] != nil {
		t.Error("Get made something")
	}
	Obj(doc, "components", "schemas")["S"] = 1
	if Get(doc, "components", "schemas")["S"] != 1 {
		t.Error("Obj did not make the path")
	}
}

func TestNullable30(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"a":{"anyOf":[{"type":"string","minLength":1},{"type":"null"}],"title":"A"},
		"b":[{"anyOf":[{"$ref":"#/components/schemas/B"},{"type":"null"}]}],
		"c":{"properties":{"d":{"anyOf":[{"type":"integer"},{"type":"null"}]}}},
		"e":{"anyOf":[{"type":"string"},{"type":"integer"}]}}`), &doc); err != nil {
		t.Fatal(err)
	}
	Nullable30(doc)
	want := `{"a":{"minLength":1,"nullable":true,"title":"A","type":"string"},` + // X's keywords beside the others
		`"b":[{"anyOf":[{"$ref":"#/components/schemas/B"},{"type":"null"}]}],` + // a $ref stays: 3.0 ignores keywords beside one
		`"c":{"properties":{"d":{"nullable":true,"type":"integer"}}},` +
		`"e":{"anyOf":[{"type":"string"},{"type":"integer"}]}}`
	if got, _ := json.Marshal(doc); string(got) != want {
		t.Errorf("Nullable30:\n got %s\nwant %s", got, want)
	}
}

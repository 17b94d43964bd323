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
		"/paths/" + Escape("/a/{id}") + "/get/tags/1": "y",
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

// Package jsondoc walks a JSON document decoded into maps and slices (an
// OpenAPI document, for the scripts and tests that edit one): objects by
// key, values by JSON pointer; and writes 3.1's nullables in 3.0's words.
package jsondoc

import (
	"maps"
	"reflect"

	"github.com/go-openapi/jsonpointer"
)

// Obj returns the object at keys below m, made where missing.
func Obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, _ := m[k].(map[string]any)
		if next == nil {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// Get returns the object at keys below m, or nil; it makes nothing.
func Get(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

// At returns the value at the JSON pointer ptr (RFC 6901) in doc, or nil.
func At(doc map[string]any, ptr string) any {
	p, _ := jsonpointer.New(ptr)
	v, _, _ := p.Get(doc)
	return v
}

// Nullable30 rewrites, everywhere in v, {anyOf: [X, {type: null}], ...}
// (X inline, not a $ref) as X's keywords beside the others, plus
// nullable: true: OpenAPI 3.0 has no null type.
func Nullable30(v any) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			Nullable30(e)
		}
	case map[string]any:
		if alts, ok := v["anyOf"].([]any); ok && len(alts) == 2 && reflect.DeepEqual(alts[1], map[string]any{"type": "null"}) {
			if x, ok := alts[0].(map[string]any); ok && x["$ref"] == nil {
				delete(v, "anyOf")
				maps.Copy(v, x)
				v["nullable"] = true
			}
		}
		for _, e := range v {
			Nullable30(e)
		}
	}
}

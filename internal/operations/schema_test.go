package operations

import (
	"encoding/json"
	"strings"
	"testing"
)

// item is the table genops writes for this schema, of a body:
//
//	{"required": ["id"], "properties": {
//	  "id": {"pattern": "^i-"}, "size": {"enum": [1, 2]},
//	  "tags": {"maxItems": 2, "items": {"pattern": "^[a-z]+$"}},
//	  "nested": {"allOf": [{"properties": {"mode": {"enum": ["on", "off"]}}}]}}}
var item = Schemas{
	{},
	{Required: []string{"id"}, Props: []Prop{{"id", 2}, {"nested", 6}, {"size", 3}, {"tags", 4}}},
	{Pattern: "^i-"},
	{Enum: []string{"1", "2"}},
	{Items: 5, MaxItems: atMost(2)},
	{Pattern: "^[a-z]+$"},
	{AllOf: []int{7}},
	{Props: []Prop{{"mode", 8}}},
	{Enum: []string{`"on"`, `"off"`}},
}

// TestCheck: required properties, patterns, enums of numbers and strings,
// bounds and items, nested through allOf; wrong types are the server's to
// judge.
func TestCheck(t *testing.T) {
	for body, want := range map[string]string{
		`{"id":"i-1","size":2,"tags":["x","y"],"nested":{"mode":"on"}}`: "",
		`{"size":1}`:                             `id: is required`,
		`{"id":"x-1"}`:                           `id: must match "^i-", got "x-1"`,
		`{"id":"i-1","size":3}`:                  `size: must be one of [1 2], got 3`,
		`{"id":"i-1","size":2.0}`:                "",
		`{"id":"i-1","tags":["a","b","c"]}`:      `tags: must have at most 2 elements, got 3`,
		`{"id":"i-1","tags":["a","B"]}`:          `tags[1]: must match "^[a-z]+$", got "B"`,
		`{"id":"i-1","nested":{"mode":"auto"}}`:  `nested.mode: must be one of [on off], got auto`,
		`{"id":"i-1","size":{"x":1},"tags":"a"}`: "",
		`{"id":7}`:                               "", // a pattern applies to strings only
		`{"id":"i-1","size":"1"}`:                `size: must be one of [1 2], got 1`,
	} {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		field, why := item.Check(1, v, "")
		if got := strings.TrimPrefix(field+": "+why, ": "); why == "" && want != "" || why != "" && got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}

// TestCheckLength: exactly, at least and at most, and null as no
// elements (Go sends a nil slice as null).
func TestCheckLength(t *testing.T) {
	one := Schemas{{}, {MinItems: 1, MaxItems: atMost(1)}, {MinItems: 2}}
	for _, tc := range []struct {
		i    int
		v    any
		want string
	}{
		{1, []any{"a"}, ""},
		{1, []any{"a", "b"}, "must have exactly one element, got 2"},
		{1, nil, "must have exactly one element, got 0"},
		{2, []any{"a"}, "must have at least 2 elements, got 1"},
		{0, nil, ""},
	} {
		if _, why := one.Check(tc.i, tc.v, "x"); why != tc.want {
			t.Errorf("schema %d, %v: %q, want %q", tc.i, tc.v, why, tc.want)
		}
	}
}

// TestCheckText: a path parameter's enum and pattern apply to the text gen
// sends, so an integer enum takes "1".
func TestCheckText(t *testing.T) {
	params := Schemas{{}, {Enum: []string{"1", "2"}}, {Pattern: "^s-[0-9]+$"}, {AllOf: []int{2}}}
	for _, tc := range []struct {
		i          int
		text, want string
	}{
		{1, "1", ""},
		{1, "3", "must be one of [1 2], got 3"},
		{2, "s-12", ""},
		{2, "BAD", `must match "^s-[0-9]+$", got "BAD"`},
		{3, "BAD", `must match "^s-[0-9]+$", got "BAD"`},
	} {
		if why := params.CheckText(tc.i, tc.text); why != tc.want {
			t.Errorf("schema %d, %q: %q, want %q", tc.i, tc.text, why, tc.want)
		}
	}
}

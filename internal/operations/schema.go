package operations

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Schema holds the constraints of one JSON Schema that the client checks
// before sending: required properties, enums, patterns and the length of
// arrays, with every $ref and allOf resolved at generate time. Types,
// formats and the other keywords are the server's to check.
type Schema struct {
	Required []string
	Props    []Prop // the properties that have constraints, by name
	Items    int    // the items' constraints in Schemas; 0: none
	AllOf    []int  // the constraints of the allOf branches that have any
	// Enum lists the allowed values: a body's as JSON text (`"on"`, `1`),
	// a path parameter's as the text gen sends (`on`, `1`).
	Enum     []string
	Pattern  string // a pattern a string must match (RE2); "" for none
	MinItems int
	MaxItems *int // nil for none
}

// Prop is a property that has constraints.
type Prop struct {
	Name   string
	Schema int // its constraints in Schemas
}

// Schemas is a table of constraints, where a schema names another by its
// index. Index 0 holds none.
type Schemas []Schema

// atMost is a MaxItems value, for the generated table.
func atMost(n int) *int { return &n }

// compiled holds each pattern once compiled, by its text.
var compiled sync.Map

func pattern(p string) *regexp.Regexp {
	if re, ok := compiled.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(p) // genops keeps only patterns that compile
	compiled.Store(p, re)
	return re
}

// Check returns the field of v, a decoded JSON value at field, that breaks
// a constraint of schema i, and why; why is "" if none does.
func (t Schemas) Check(i int, v any, field string) (string, string) {
	s := &t[i]
	for _, j := range s.AllOf {
		if f, why := t.Check(j, v, field); why != "" {
			return f, why
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range s.Required {
			if _, ok := v[k]; !ok {
				return join(field, k), "is required"
			}
		}
		for _, p := range s.Props {
			if pv, ok := v[p.Name]; ok {
				if f, why := t.Check(p.Schema, pv, join(field, p.Name)); why != "" {
					return f, why
				}
			}
		}
	case []any, nil: // null, as Go sends a nil slice: no elements
		a, _ := v.([]any)
		if why := s.length(len(a)); why != "" {
			return field, why
		}
		for i, item := range a {
			if f, why := t.Check(s.Items, item, fmt.Sprintf("%s[%d]", field, i)); why != "" {
				return f, why
			}
		}
	default: // a string, number or boolean
		var text []byte
		if len(s.Enum) > 0 { // only an enum compares the JSON text
			text, _ = json.Marshal(v)
		}
		str, isString := v.(string)
		return field, s.value(string(text), str, isString, v)
	}
	return "", ""
}

// CheckText returns why text, a path parameter as gen sends it, breaks
// schema i, or "".
func (t Schemas) CheckText(i int, text string) string {
	for _, j := range t[i].AllOf {
		if why := t.CheckText(j, text); why != "" {
			return why
		}
	}
	return t[i].value(text, text, true, text)
}

// value applies the enum to text and, if the value is a string, the
// pattern to str; v is the value for messages.
func (s *Schema) value(text, str string, isString bool, v any) string {
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, text) {
		shown := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			if json.Unmarshal([]byte(e), &shown[i]) != nil {
				shown[i] = e
			}
		}
		return fmt.Sprintf("must be one of [%s], got %v", strings.Join(shown, " "), v)
	}
	if s.Pattern != "" && isString && !pattern(s.Pattern).MatchString(str) {
		return fmt.Sprintf("must match %q, got %q", s.Pattern, str)
	}
	return ""
}

// length applies the bounds on the number of items to n.
func (s *Schema) length(n int) string {
	lo, hi := s.MinItems, s.MaxItems
	switch {
	case hi != nil && lo == *hi && n != lo:
		return fmt.Sprintf("must have exactly %s, got %d", elements(lo), n)
	case n < lo:
		return fmt.Sprintf("must have at least %s, got %d", elements(lo), n)
	case hi != nil && n > *hi:
		return fmt.Sprintf("must have at most %s, got %d", elements(*hi), n)
	}
	return ""
}

func elements(n int) string {
	if n == 1 {
		return "one element"
	}
	return fmt.Sprintf("%d elements", n)
}

// join names property k of field.
func join(field, k string) string { return strings.TrimPrefix(field+"."+k, ".") }

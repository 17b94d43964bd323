// Package synth builds JSON values that an OpenAPI schema accepts, for the
// answers tensorpooltest's engine does not model and for the requests of
// the tests that cover them. kin-openapi has resolved every $ref. A value
// is the schema's own example where it has a valid one, else one built
// from its constraints: required properties, enums and const, formats,
// patterns, bounds, allOf, oneOf and anyOf with their discriminators,
// nullable; recursion is cut short. Every value is checked with
// kin-openapi before it is returned.
package synth

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oapi-codegen/runtime/types"
)

// Builder builds the values of one document's schemas.
type Builder struct {
	Opts    []openapi3.SchemaValidationOption // how kin-openapi validates the document's values
	Request bool                              // a request's body: no readOnly property (else no writeOnly one)
	full    bool                              // every property an object declares, to tell oneOf's branches apart
}

// Formats are the string formats that gen decodes into a type of
// oapi-codegen/runtime, which refuses what its format does not allow: the
// engine holds a value to that type (kin-openapi checks only byte, date and
// date-time), so the generated parser never fails on the engine's answer.
var Formats = map[string]openapi3.StringFormatValidator{
	"duration": formatOf[types.Duration](), "email": formatOf[types.Email](), "uuid": formatOf[types.UUID](),
}

// format is a format validator: the JSON decoding of a type.
type format func(string) error

func (f format) Validate(s string) error { return f(s) }

func formatOf[T any]() format {
	return func(s string) error {
		b, _ := json.Marshal(s)
		return json.Unmarshal(b, new(T))
	}
}

// maxDepth cuts recursion: deeper, only what a schema requires is built.
const maxDepth = 8

// Value returns a value s accepts, as decoded JSON: the first valid one of
// examples and s's own, else one built from s. Where it finds none, it
// returns the closest it can build and why s refuses it.
func (g Builder) Value(s *openapi3.Schema, examples ...any) (any, error) {
	for _, e := range append(examples, examplesOf(s)...) {
		if v, err := g.Check(s, e); err == nil {
			return v, nil
		}
	}
	return g.Check(s, g.build(s, 0))
}

// Check returns v as decoded JSON, and why s refuses it, if it does.
func (g Builder) Check(s *openapi3.Schema, v any) (any, error) {
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err == nil {
		err = s.VisitJSON(v, g.Opts...)
	}
	return v, err
}

func examplesOf(s *openapi3.Schema) []any {
	if s == nil {
		return nil
	}
	if s.Example == nil {
		return s.Examples
	}
	return append([]any{s.Example}, s.Examples...)
}

// build builds a value from s's constraints, at depth in the value.
func (g Builder) build(s *openapi3.Schema, depth int) any {
	switch {
	case s == nil:
		return map[string]any{}
	case s.Const != nil:
		return s.Const
	case len(s.Enum) > 0:
		if i := slices.IndexFunc(s.Enum, func(v any) bool { return v != nil }); i >= 0 {
			return s.Enum[i]
		}
		return nil
	case len(s.AllOf) > 0: // each branch built with the properties every branch declares
		all, props := append(slices.Clone(s.AllOf), &openapi3.SchemaRef{Value: s}), openapi3.Schemas{}
		for _, b := range all {
			maps.Copy(props, b.Value.Properties)
		}
		merged := map[string]any{}
		for _, b := range all {
			bs := *b.Value
			if b.Value == s {
				bs.AllOf = nil
			}
			bs.Properties = maps.Clone(props)
			maps.Copy(bs.Properties, b.Value.Properties)
			m, ok := g.build(&bs, depth).(map[string]any)
			if !ok {
				return g.build(b.Value, depth)
			}
			for k, v := range m { // one value a property, the first
				if _, ok := merged[k]; !ok {
					merged[k] = v
				}
			}
		}
		return merged
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		return g.branch(s, depth)
	}
	typ := ""
	if s.Type != nil {
		for _, t := range *s.Type {
			if t != openapi3.TypeNull {
				typ = t
				break
			}
		}
	}
	switch {
	case typ == "" && (len(s.Properties) > 0 || len(s.Required) > 0):
		typ = openapi3.TypeObject
	case typ == "" && s.Items != nil:
		typ = openapi3.TypeArray
	case typ == "" && s.Type.IncludesNull():
		return nil
	}
	switch typ {
	case openapi3.TypeObject, "":
		return g.object(s, depth)
	case openapi3.TypeArray:
		items := make([]any, max(s.MinItems, uint64(boolInt(g.full && depth < 3))))
		for i := range items {
			items[i] = g.build(itemsOf(s), depth+1)
			if str, ok := items[i].(string); ok && s.UniqueItems {
				items[i] = fmt.Sprint(str, i)
			} else if f, ok := items[i].(float64); ok && s.UniqueItems {
				items[i] = f + float64(i)
			}
		}
		return items
	case openapi3.TypeString:
		return text(s)
	case openapi3.TypeInteger, openapi3.TypeNumber:
		return number(s, typ == openapi3.TypeInteger)
	case openapi3.TypeBoolean:
		return true
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func itemsOf(s *openapi3.Schema) *openapi3.Schema {
	if s.Items == nil {
		return nil
	}
	return s.Items.Value
}

// object builds the properties s requires, then optional ones up to its
// minProperties, in name order.
func (g Builder) object(s *openapi3.Schema, depth int) any {
	m := map[string]any{}
	add := func(name string) {
		p := s.Properties[name]
		var ps *openapi3.Schema
		if p != nil {
			ps = p.Value
		} else if ap := s.AdditionalProperties.Schema; ap != nil {
			ps = ap.Value
		}
		if ps != nil && (g.Request && ps.ReadOnly || !g.Request && ps.WriteOnly) {
			return
		}
		if depth >= maxDepth && ps != nil && ps.Type.IncludesNull() {
			m[name] = nil
			return
		}
		m[name] = g.build(ps, depth+1)
	}
	for _, name := range s.Required {
		if depth <= 2*maxDepth {
			add(name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if uint64(len(m)) >= s.MinProps && !g.full {
			break
		}
		if _, ok := m[name]; !ok {
			add(name)
		}
	}
	return m
}

// branch builds a value of the first branch of s's oneOf or anyOf that s
// accepts, null last; a discriminator names its branch.
func (g Builder) branch(s *openapi3.Schema, depth int) any {
	branches := slices.Concat(s.OneOf, s.AnyOf)
	slices.SortStableFunc(branches, func(a, b *openapi3.SchemaRef) int {
		return boolInt(a.Value != nil && a.Value.Type.Is(openapi3.TypeNull)) - boolInt(b.Value != nil && b.Value.Type.Is(openapi3.TypeNull))
	})
	own := *s // the properties s has beside its branches
	own.OneOf, own.AnyOf = nil, nil
	var first any
	for _, full := range []bool{g.full, true} { // then with every property, where no branch stood out
		g := g
		g.full = full
		for i, b := range branches {
			v := g.build(b.Value, depth)
			if m, ok := v.(map[string]any); ok {
				if o, ok := g.build(&own, depth).(map[string]any); ok && (len(own.Properties) > 0 || len(own.Required) > 0) {
					maps.Insert(o, maps.All(m))
					v, m = o, o
				}
				if s.Discriminator != nil {
					m[s.Discriminator.PropertyName] = discriminatorValue(s.Discriminator, b)
				}
			}
			if i == 0 && first == nil {
				first = v
			}
			if _, err := g.Check(s, v); err == nil {
				return v
			}
		}
	}
	return first
}

// discriminatorValue is the value of d's property that names branch b: its
// key in the mapping, else its schema's name.
func discriminatorValue(d *openapi3.Discriminator, b *openapi3.SchemaRef) string {
	for k, v := range d.Mapping {
		if v.Ref == b.Ref {
			return k
		}
	}
	return b.Ref[strings.LastIndex(b.Ref, "/")+1:]
}

// formats are values of the formats OpenAPI and JSON Schema name.
var formats = map[string]string{
	"date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "00:00:00Z", "email": "user@example.com",
	"uuid": "00000000-0000-4000-8000-000000000000", "uri": "https://example.com/", "url": "https://example.com/",
	"uri-reference": "/", "hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "byte": "AAAA",
	"duration": "P1D", "int64": "1", "int32": "1",
}

// text builds a string: one that matches s's pattern, else s's format's,
// padded or cut to its lengths.
func text(s *openapi3.Schema) string {
	if v, ok := fromPattern(s.Pattern, int(s.MinLength)); ok {
		return v
	}
	v, ok := formats[s.Format]
	if !ok {
		v = "string"
	}
	if n := int(s.MinLength); len(v) < n {
		v += strings.Repeat("x", n-len(v))
	}
	if s.MaxLength != nil && uint64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}

// fromPattern builds a string that pattern matches, of minLen characters
// or more, with regexp/syntax: a literal as it is, a class's first
// printable character, each repetition's least count, the first
// alternative. Unbounded repetitions grow until the string is long enough.
func fromPattern(pattern string, minLen int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if pattern == "" || err != nil {
		return "", false
	}
	match := regexp.MustCompile(re.String())
	for extra := 0; extra <= max(minLen, 1); extra++ {
		var b strings.Builder
		var walk func(r *syntax.Regexp)
		walk = func(r *syntax.Regexp) {
			switch r.Op {
			case syntax.OpLiteral:
				b.WriteString(string(r.Rune))
			case syntax.OpCharClass:
				b.WriteRune(classRune(r.Rune))
			case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
				b.WriteByte('a')
			case syntax.OpCapture, syntax.OpAlternate:
				walk(r.Sub[0])
			case syntax.OpConcat:
				for _, sub := range r.Sub {
					walk(sub)
				}
			case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
				n := map[syntax.Op]int{syntax.OpPlus: 1, syntax.OpRepeat: r.Min}[r.Op]
				if r.Op != syntax.OpQuest && (r.Op != syntax.OpRepeat || r.Max == -1 || r.Min+extra <= r.Max) {
					n += extra
				}
				for range n {
					walk(r.Sub[0])
				}
			}
		}
		walk(re)
		if v := b.String(); len(v) >= minLen && match.MatchString(v) {
			return v, true
		}
	}
	return "", false
}

// classRune picks a printable character of a class given as ranges.
func classRune(ranges []rune) rune {
	for _, want := range "a0A_-. " {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if lo := max(ranges[i], ' '+1); lo <= ranges[i+1] {
			return lo
		}
	}
	return 'a'
}

// number builds a number within s's bounds, a multiple of its multipleOf.
func number(s *openapi3.Schema, integer bool) float64 {
	v, step := 1.0, 1.0
	if !integer {
		step = 0.5
	}
	if s.Min != nil {
		v = *s.Min
		if s.ExclusiveMin.IsTrue() {
			v += step
		}
	}
	if s.ExclusiveMin.Value != nil && v <= *s.ExclusiveMin.Value {
		v = *s.ExclusiveMin.Value + step
	}
	if s.Max != nil && v > *s.Max {
		v = *s.Max
		if s.ExclusiveMax.IsTrue() {
			v -= step
		}
	}
	if s.ExclusiveMax.Value != nil && v >= *s.ExclusiveMax.Value {
		v = *s.ExclusiveMax.Value - step
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
	}
	if integer {
		v = math.Ceil(v)
	}
	return v
}

package main

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-openapi/jsonpointer"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
	"github.com/tensorpool/tensorpool-go/internal/opname"
)

// rules run in this order; each works around one limitation of oapi-codegen
// v2.8.2, named after it, with the upstream issue.
var rules = []struct {
	name, issue string
	apply       func(*prep)
}{
	{projectRule, "https://github.com/oapi-codegen/oapi-codegen/issues/1927", projectEdits},
	{"webhooks-lose-their-components", "https://github.com/oapi-codegen/oapi-codegen/pull/2233", dropWebhooks},          // no issue of its own; 2233 keeps pruned schemas
	{"operation-names-only-from-operation-id", "https://github.com/oapi-codegen/oapi-codegen/issues/583", fastAPINames}, // no issue of its own; 583 is x-go-name's reach
	{"path-parameters-paired-by-name", "https://github.com/oapi-codegen/oapi-codegen/issues/704", pathParameterNames},
	{"discriminator-needs-ref-branches-and-mapping", "https://github.com/oapi-codegen/oapi-codegen/issues/712", discriminators},
	{"nullable-union-loses-its-type", "https://github.com/oapi-codegen/oapi-codegen/issues/2218", nullableUnions},
	{"parameter-union-or-untyped-not-callable", "https://github.com/oapi-codegen/oapi-codegen/issues/2560", parameters},
	{"multi-type-unhandled", "https://github.com/oapi-codegen/oapi-codegen/issues/2521", multiTypes},
	{"read-only-differs-inside-all-of", "https://github.com/oapi-codegen/oapi-codegen/issues/1883", allOfFlags},
	{"enum-constants-named-like-types", "https://github.com/oapi-codegen/oapi-codegen/issues/1226", enumConstants},
	{"any-of-branch-named-like-its-items", "https://github.com/oapi-codegen/oapi-codegen/issues/375", branchItems}, // closed by PR 442, which missed this case
	{"parameter-go-names-clash", "https://github.com/oapi-codegen/oapi-codegen/issues/1754", parameterGoNames},
	{"operation-go-names-clash", "https://github.com/oapi-codegen/oapi-codegen/issues/1248", operationGoNames},
}

// projectRule names the project's own edits (projectEdits).
const projectRule = "overlay-round-trips-through-yaml"

// prep is the document being prepared.
type prep struct {
	doc    map[string]any
	taken  map[string]bool // Go type names in use, lower case
	rule   string          // the running rule, with its issue
	report []string
	err    error // why preparation failed
}

func (p *prep) note(ptr, format string, args ...any) {
	p.report = append(p.report, p.rule+"\t"+ptr+"\t"+fmt.Sprintf(format, args...))
}

// projectEdits are this project's Go-side fixes, once an overlay (which
// makes oapi-codegen round-trip the document through YAML, breaking some
// multi-line strings). A target that is gone fails preparation, so upstream
// drift is caught. An edit is a JSON pointer, an extension and its value (an
// x-go-name here keeps an old Go name when upstream renames a schema):
//   - Retry-After may be an HTTP-date, and the generated parser fails the
//     whole response on one that the schema says is an integer: a string
//     keeps it for package wait.
//   - ValidationError.loc items: a plain any, not a union type.
func projectEdits(p *prep) {
	for _, e := range [][3]string{
		{"/paths/~1request~1info~1{request_id}/get/responses/200/headers/Retry-After/schema", "x-go-type", "string"},
		{"/components/schemas/ValidationError/properties/loc/items", "x-go-type", "any"},
	} {
		ptr, ext, value := e[0], e[1], e[2]
		s, _ := jsondoc.At(p.doc, ptr).(map[string]any)
		if s == nil {
			p.err = fmt.Errorf("%s is not in the document", ptr)
			return
		}
		if s[ext] != value {
			s[ext] = value
			p.note(ptr, "%s %s", ext, value)
		}
	}
}

// fastAPINames: oapi-codegen names a method after its operationId only (it
// reads no x-go-name there), and FastAPI's default operationId is the route
// name plus path and method (get_request_info_request_info__request_id__get):
// such an id becomes the route name, unless another operation has it or
// one the generator prints as the same Go name: names are compared by
// opname.Key, without case or separators, so list_items_items_get stays
// beside a listItems (both would be the method ListItems).
func fastAPINames(p *prep) {
	ids := map[string]int{}
	forOperations(p.doc, func(op map[string]any, method, path string) {
		id, _ := op["operationId"].(string)
		ids[opname.Key(id)]++
		if name := opname.FastAPI(id, method, path); name != id {
			ids[opname.Key(name)]++
		}
	})
	forOperations(p.doc, func(op map[string]any, method, path string) {
		id, _ := op["operationId"].(string)
		if name := opname.FastAPI(id, method, path); name != id && ids[opname.Key(name)] == 1 {
			op["operationId"] = name
			p.note("/paths/"+jsonpointer.Escape(path)+"/"+method+"/operationId", "%s -> %s", id, name)
		}
	})
}

// pathParameterNames: oapi-codegen pairs a path template's parameters with
// an operation's path parameters by name, and fails on a template parameter
// declared under another name ({certificate_id} and cert_id) or not at all
// ("has 1 positional parameters, but spec has 0 declared"; "refers to
// parameter 'a_id', which doesn't exist"). A path parameter's name is not on
// the wire: a declared one that the template lacks takes, in order, the name
// of an undeclared template parameter (a $ref'd one is copied first); one
// still undeclared is declared, a required string.
func pathParameterNames(p *prep) {
	forOperations(p.doc, func(op map[string]any, method, path string) {
		item := jsondoc.Get(p.doc, "paths", path)
		var names, missing []string
		for _, m := range templateParam.FindAllStringSubmatch(path, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
		for _, name := range names {
			if !slices.ContainsFunc(slices.Concat(list(item["parameters"]), list(op["parameters"])), func(v any) bool {
				prm := deref(p.doc, v)
				return prm["in"] == "path" && prm["name"] == name
			}) {
				missing = append(missing, name)
			}
		}
		base := "/paths/" + jsonpointer.Escape(path)
		ptrs := []string{base + "/parameters", base + "/" + method + "/parameters"} // the path item's, then the operation's
		for k, owner := range []map[string]any{item, op} {
			for i, v := range list(owner["parameters"]) {
				prm := deref(p.doc, v)
				if name, _ := prm["name"].(string); len(missing) == 0 || prm["in"] != "path" || slices.Contains(names, name) {
					continue
				}
				renamed := maps.Clone(prm)
				renamed["name"], missing = missing[0], missing[1:]
				list(owner["parameters"])[i] = renamed
				p.note(ptrs[k]+"/"+strconv.Itoa(i), "name %s -> %s, as in the template", prm["name"], renamed["name"])
			}
		}
		for _, name := range missing {
			op["parameters"] = append(list(op["parameters"]), map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
			p.note(ptrs[1], "%s declared, a required string, as in the template", name)
		}
	})
}

// templateParam matches a parameter of a path template.
var templateParam = regexp.MustCompile(`\{([^{}]+)\}`)

// discriminators: oapi-codegen v2.8.2 gives an inline branch of a
// discriminated union the value "" ("discriminator: not all schemas were
// mapped"; "ambiguous discriminator.mapping: please replace inlined object
// with $ref"), matches a mapping value against a branch's $ref literally
// ("cat: Cat" matches nothing), and takes an unmapped branch's component
// name for its value even where the branch requires another. Where every
// branch requires one value of the property (const, or an enum of one,
// through $ref and allOf): an inline branch moves to components (a $ref in
// its place), and the mapping names every branch by its full $ref. Where
// one does not, the discriminator goes: a plain union, which still decodes.
func discriminators(p *prep) {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		d, _ := s["discriminator"].(map[string]any)
		prop, _ := d["propertyName"].(string)
		if prop == "" || len(list(s["oneOf"]))+len(list(s["anyOf"])) == 0 {
			return // an allOf hierarchy's base: its mapping names the subtypes
		}
		old, _ := d["mapping"].(map[string]any)
		mapping, byRef := map[string]any{}, map[string]string{}
		for v, ref := range old { // "cat: Cat" is "cat: #/components/schemas/Cat"
			if r, _ := ref.(string); r != "" && !strings.Contains(r, "/") {
				ref = "#/components/schemas/" + r
			}
			mapping[v] = ref
			byRef[fmt.Sprint(ref)] = v
		}
		seen := map[string]bool{}
		for _, key := range []string{"oneOf", "anyOf"} {
			for i, b := range list(s[key]) {
				branch, _ := b.(map[string]any)
				if branch == nil || isNull(p.doc, branch) {
					continue
				}
				ref, _ := branch["$ref"].(string)
				v, ok := pinned(p.doc, branch, prop, 0)
				if !ok && ref != "" { // named by the mapping, or implicitly: the component's name
					v, ok = cmp.Or(byRef[ref], ref[strings.LastIndex(ref, "/")+1:]), true
				}
				if !ok || seen[v] || mapping[v] != nil && ref != "" && mapping[v] != ref {
					delete(s, "discriminator")
					p.note(ptr+"/discriminator", "removed: its branches do not each require a value of their own for %q", prop)
					return
				}
				seen[v] = true
				if ref == "" {
					name := p.unique(nameAt(p.doc, ptr) + goName(v))
					jsondoc.Obj(p.doc, "components", "schemas")[name] = branch
					ref = "#/components/schemas/" + name
					list(s[key])[i] = map[string]any{"$ref": ref}
					p.note(ptr+"/"+key+"/"+strconv.Itoa(i), "moved to %s", ref)
				}
				mapping[v] = ref
			}
		}
		if !reflect.DeepEqual(old, mapping) {
			d["mapping"] = mapping
			p.note(ptr+"/discriminator/mapping", "%v", mapping)
		}
	})
}

// nullableUnions: a nullable union (anyOf [{oneOf [...]}, {type: null}])
// collapses to an anonymous struct{ union json.RawMessage } with no methods,
// which loses the value. The inner union is named (x-go-type-name), so it
// gets its type and methods.
func nullableUnions(p *prep) {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		var inner map[string]any
		if bs := branches(p.doc, s); len(bs) == 1 && len(list(s["anyOf"]))+len(list(s["oneOf"])) > 1 {
			inner, _ = bs[0].(map[string]any)
		}
		if inner == nil || inner["$ref"] != nil || inner["x-go-type-name"] != nil || len(list(inner["oneOf"]))+len(list(inner["anyOf"])) < 2 {
			return
		}
		inner["x-go-type-name"] = p.unique(nameAt(p.doc, ptr))
		p.note(ptr, "x-go-type-name %s on the inner union", inner["x-go-type-name"])
	})
}

// parameters: a parameter whose schema is a union (two or more non-null
// anyOf/oneOf members or types) becomes struct{ union json.RawMessage },
// which a caller cannot build; an untyped one becomes interface{}, which
// the runtime cannot style when nil. A parameter is text on the wire either
// way: it becomes a string (x-go-type, on its own schema, never on a shared
// component), an array of such items []string.
func parameters(p *prep) {
	walk(p.doc, "", func(prm map[string]any, ptr string) {
		s, _ := prm["schema"].(map[string]any)
		if _, named := prm["name"].(string); !named || s == nil || s["x-go-type"] != nil || !slices.Contains([]any{"path", "query", "header", "cookie"}, prm["in"]) {
			return
		}
		switch t := deref(p.doc, s); {
		case textual(p.doc, t, 0):
			s["x-go-type"] = "string"
		case nonNull(t) == 1 && slices.Contains(types(t), "array") && textual(p.doc, t["items"], 0):
			s["x-go-type"], s["x-go-type-skip-optional-pointer"] = "[]string", true // a nil slice, as other optional arrays
		default:
			return
		}
		p.note(ptr+"/schema", "x-go-type %s", s["x-go-type"])
	})
}

// textual reports whether a parameter schema has no one Go type: a union,
// a type list of two or more non-null types, or no type at all.
func textual(doc map[string]any, v any, depth int) bool {
	t := deref(doc, v)
	switch bs := branches(doc, t); {
	case t == nil || depth > 8:
		return false
	case len(bs) == 1:
		return textual(doc, bs[0], depth+1)
	case len(bs) > 1 || nonNull(t) > 1:
		return true
	}
	return t["type"] == nil && t["$ref"] == nil && t["allOf"] == nil && t["x-go-type"] == nil && len(list(t["anyOf"])) == 0
}

// branches are the anyOf and oneOf members of s but {type: null}.
func branches(doc, s map[string]any) (bs []any) {
	for _, b := range slices.Concat(list(s["anyOf"]), list(s["oneOf"])) {
		if !isNull(doc, b) {
			bs = append(bs, b)
		}
	}
	return bs
}

// multiTypes: a type list of two or more non-null types ("type": ["string",
// "integer"]) fails generation ("unhandled Schema type"); it becomes any,
// as upstream's unreleased fix (PR 2522) generates it.
func multiTypes(p *prep) {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		if _, isList := s["type"].([]any); isList && nonNull(s) > 1 && s["x-go-type"] == nil {
			s["x-go-type"], s["x-go-type-skip-optional-pointer"] = "any", true
			p.note(ptr, "x-go-type any")
		}
	})
}

// walk calls f on every object of v, parents first, keys in order, with its
// JSON pointer.
func walk(v any, ptr string, f func(map[string]any, string)) {
	switch v := v.(type) {
	case map[string]any:
		f(v, ptr)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walk(v[k], ptr+"/"+jsonpointer.Escape(k), f)
		}
	case []any:
		for i, e := range v {
			walk(e, ptr+"/"+strconv.Itoa(i), f)
		}
	}
}

// forOperations calls f on every operation of the document, with its method
// in lower case and its path.
func forOperations(doc map[string]any, f func(op map[string]any, method, path string)) {
	paths := jsondoc.Get(doc, "paths")
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, _ := paths[path].(map[string]any)
		for _, m := range []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"} {
			if op, _ := item[m].(map[string]any); op != nil {
				f(op, m, path)
			}
		}
	}
}

// nameAt is a Go type name for the schema at ptr: its component, property,
// operation and response, as oapi-codegen would join them.
func nameAt(doc map[string]any, ptr string) string {
	toks := strings.Split(ptr, "/")[1:]
	var parts []string
	for i := 0; i < len(toks); i++ {
		switch t := jsonpointer.Unescape(toks[i]); {
		case t == "paths" && i+2 < len(toks):
			id, _ := jsondoc.Get(doc, "paths", jsonpointer.Unescape(toks[i+1]), toks[i+2])["operationId"].(string)
			parts, i = append(parts, cmp.Or(id, toks[i+2]+jsonpointer.Unescape(toks[i+1]))), i+2
		case t == "responses" && i+1 < len(toks):
			parts, i = append(parts, "Response"+toks[i+1]), i+1
		case t == "content" || t == "anyOf" || t == "oneOf":
			i++ // and the media type, or the index
		case t == "components" || t == "schemas" || t == "properties" || t == "parameters" || t == "schema":
		case t == "items":
			parts = append(parts, "Item")
		case t == "requestBody":
			parts = append(parts, "Body")
		default:
			parts = append(parts, t)
		}
	}
	return goName(strings.Join(parts, " "))
}

// unique returns name, or name2, name3, ...: one no Go type has yet.
func (p *prep) unique(name string) string {
	n := name
	for i := 2; p.taken[strings.ToLower(n)]; i++ {
		n = name + strconv.Itoa(i)
	}
	p.taken[strings.ToLower(n)] = true
	return n
}

// pinned returns the one value a branch requires of prop: its const, or an
// enum of one, through $ref and allOf.
func pinned(doc map[string]any, v any, prop string, depth int) (string, bool) {
	s := deref(doc, v)
	if s == nil || depth > 8 {
		return "", false
	}
	ps := deref(doc, jsondoc.Get(s, "properties")[prop])
	if c, ok := ps["const"].(string); ok {
		return c, true
	}
	if e := list(ps["enum"]); len(e) == 1 {
		c, ok := e[0].(string)
		return c, ok
	}
	for _, m := range list(s["allOf"]) {
		if v, ok := pinned(doc, m, prop, depth+1); ok {
			return v, true
		}
	}
	return "", false
}

// deref follows a chain of local $refs from v; a schema that is not one is
// itself, and what is no object nil.
func deref(doc map[string]any, v any) map[string]any {
	s, _ := v.(map[string]any)
	for i := 0; i < 32 && s != nil; i++ {
		ref, ok := s["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return s
		}
		s, _ = jsondoc.At(doc, ref[1:]).(map[string]any)
	}
	return s
}

func isNull(doc map[string]any, v any) bool {
	t := types(deref(doc, v))
	return len(t) == 1 && t[0] == "null"
}

// types is a schema's type as a list.
func types(s map[string]any) []any {
	if t, ok := s["type"].(string); ok {
		return []any{t}
	}
	return list(s["type"])
}

func nonNull(s map[string]any) (n int) {
	for _, t := range types(s) {
		if t != "null" {
			n++
		}
	}
	return n
}

func list(v any) []any { l, _ := v.([]any); return l }

// goName joins the words of s (ASCII letters and digits) as an exported name.
func goName(s string) string {
	name := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		name += strings.ToUpper(w[:1]) + w[1:]
	}
	if name == "" || unicode.IsDigit(rune(name[0])) {
		return "T" + name
	}
	return name
}

// dropWebhooks: oapi-codegen v2.8.2 generates a webhook initiator for a
// 3.1 document's webhooks (a client that sends them), but its pruning of
// unused components does not walk webhooks, so a schema or parameter only a
// webhook uses is deleted and the build fails ("undefined: SomeEvent").
// A client of the API sends no webhook, and a webhook is not on its wire:
// the webhooks go from the prepared copy (oasdiff: webhook-removed), and
// with them the initiator and what only they use.
func dropWebhooks(p *prep) {
	if hooks, _ := p.doc["webhooks"].(map[string]any); len(hooks) > 0 {
		p.note("/webhooks", "removed: %d webhooks, which a client never sends", len(hooks))
	}
	delete(p.doc, "webhooks")
}

// allOfFlags: oapi-codegen merges an allOf's members and stops where two
// disagree on readOnly or writeOnly ("merging two schemas with different
// ReadOnly"), even where the allOf itself is readOnly. An annotation of a
// member applies to the whole instance, which must match every member: an
// inline member gets the flag its allOf or another member has (a shared
// component is never edited).
func allOfFlags(p *prep) {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		members := list(s["allOf"])
		if len(members) < 2 {
			return
		}
		for _, flag := range []string{"readOnly", "writeOnly"} {
			set := s[flag] == true
			for _, m := range members {
				set = set || deref(p.doc, m)[flag] == true
			}
			for i, m := range members {
				if m, _ := m.(map[string]any); set && m != nil && m["$ref"] == nil && m[flag] != true {
					m[flag] = true
					p.note(ptr+"/allOf/"+strconv.Itoa(i), "%s: true, as its allOf", flag)
				}
			}
		}
	})
}

// enumConstants: with always-prefix-enum-values (oapi-codegen.yaml), an
// enum's constants are its type name and each value's name (ThingTypeAB for
// value a_b of property type of schema thing), and oapi-codegen does not
// check them against the type names of other schemas (thing_type_a_b is
// ThingTypeAB too): "redeclared in this block". Where a constant of an enum
// of a component or of its properties would have a component's name, the
// enum gets x-enum-varnames: each value's own name, the clashing ones with
// "Value" after it. Names are compared without case or separators.
func enumConstants(p *prep) {
	walk(jsondoc.Get(p.doc, "components", "schemas"), "/components/schemas", func(s map[string]any, ptr string) {
		values := list(s["enum"])
		if len(values) == 0 || s["x-enum-varnames"] != nil || !enumOwner.MatchString(ptr) {
			return
		}
		typ, names, clash := nameAt(p.doc, ptr), make([]any, len(values)), false
		for i, v := range values {
			names[i] = fmt.Sprint(v)
			if p.taken[strings.ToLower(typ+goName(names[i].(string)))] {
				clash = true
				names[i] = names[i].(string) + " value"
				for n := 2; p.taken[strings.ToLower(typ+goName(names[i].(string)))]; n++ {
					names[i] = fmt.Sprintf("%v value%d", v, n)
				}
			}
		}
		if clash {
			s["x-enum-varnames"] = names
			p.note(ptr, "x-enum-varnames %v", names)
		}
	})
}

// enumOwner matches a component or a property of one, at any depth: where
// oapi-codegen names an enum type as nameAt does.
var enumOwner = regexp.MustCompile(`^/components/schemas/[^/]+(/properties/[^/]+)*$`)

// branchItems: a branch of a union gets a type named after the union and its
// index (X0), and so does the enum of an array branch's items, so the
// branch is X0 = []X0 beside X0 string: "invalid recursive type" and
// "redeclared", or at generation "duplicate typename". The items of such a
// branch (inline, a string enum) are a plain string (x-go-type), which
// names no type; their values are still checked on the wire by the server.
func branchItems(p *prep) {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		if len(branches(p.doc, s)) < 2 {
			return
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			for i, b := range list(s[key]) {
				b, _ := b.(map[string]any)
				items, _ := b["items"].(map[string]any)
				if b["$ref"] != nil || !slices.Contains(types(b), "array") || items == nil || items["$ref"] != nil ||
					items["x-go-type"] != nil || len(list(items["enum"])) == 0 || !slices.Equal(types(items), []any{"string"}) {
					continue
				}
				items["x-go-type"] = "string"
				p.note(ptr+"/"+key+"/"+strconv.Itoa(i)+"/items", "x-go-type string")
			}
		}
	})
}

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

// rule works around one limitation of oapi-codegen v2.8.2, named after it,
// with the upstream issue; they run in this order.
var rules = []struct {
	name, issue string
	apply       func(*prep) error
}{
	{projectRule, "https://github.com/oapi-codegen/oapi-codegen/issues/1927", projectEdits},
	{"operation-names-only-from-operation-id", "https://github.com/oapi-codegen/oapi-codegen/issues/583", fastAPINames}, // no issue of its own; 583 is x-go-name's reach
	{"path-parameters-paired-by-name", "https://github.com/oapi-codegen/oapi-codegen/issues/704", pathParameterNames},
	{"discriminator-needs-ref-branches-and-mapping", "https://github.com/oapi-codegen/oapi-codegen/issues/712", discriminators},
	{"nullable-union-loses-its-type", "https://github.com/oapi-codegen/oapi-codegen/issues/2218", nullableUnions},
	{"parameter-union-or-untyped-not-callable", "https://github.com/oapi-codegen/oapi-codegen/issues/2560", parameters},
	{"multi-type-unhandled", "https://github.com/oapi-codegen/oapi-codegen/issues/2521", multiTypes},
}

// projectRule names the project's own edits (projectEdits).
const projectRule = "overlay-round-trips-through-yaml"

// prep is the document being prepared.
type prep struct {
	doc             map[string]any
	taken           map[string]bool // Go type names in use, lower case
	changes, report []string
}

func (p *prep) note(ptr, format string, args ...any) {
	p.changes = append(p.changes, ptr+"\t"+fmt.Sprintf(format, args...))
}

// projectEdits are this project's Go-side fixes, once an overlay: applying
// an overlay makes oapi-codegen round-trip the document through YAML, which
// fails on some multi-line strings. A target that is gone fails
// preparation, so upstream drift is caught.
//   - Retry-After may be an HTTP-date (RFC 9110); the generated parser binds
//     a response header into the schema's Go type (integer), failing the
//     whole response on a date: a string keeps it for package wait.
//   - ValidationError.loc items (anyOf string, integer): a plain any instead
//     of a union type with As/From/Merge methods.
//
// An edit is a JSON pointer, an extension and its value: an x-go-name here
// keeps a schema's or a property's old Go name when upstream renames it.
func projectEdits(p *prep) error {
	for _, e := range [][3]string{
		{"/paths/~1request~1info~1{request_id}/get/responses/200/headers/Retry-After/schema", "x-go-type", "string"},
		{"/components/schemas/ValidationError/properties/loc/items", "x-go-type", "any"},
	} {
		ptr, ext, value := e[0], e[1], e[2]
		s, _ := jsondoc.At(p.doc, ptr).(map[string]any)
		if s == nil {
			return fmt.Errorf("%s is not in the document", ptr)
		}
		if s[ext] != value {
			s[ext] = value
			p.note(ptr, "%s %s", ext, value)
		}
	}
	return nil
}

// fastAPINames: oapi-codegen names a method after its operationId only (it
// reads no x-go-name there), and FastAPI's default operationId is the route
// name plus path and method (get_request_info_request_info__request_id__get):
// such an id becomes the route name, unless another operation has it or
// one the generator prints as the same Go name: names are compared by
// opname.Key, without case or separators, so list_items_items_get stays
// beside a listItems (both would be the method ListItems).
func fastAPINames(p *prep) error {
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
			p.note("/paths/"+jsonpointer.Escape(path)+"/"+strings.ToLower(method)+"/operationId", "%s -> %s", id, name)
		}
	})
	return nil
}

// pathParameterNames: oapi-codegen pairs the parameters of a path template
// with the path parameters an operation declares by name. A template
// parameter declared under another name ({certificate_id} in the template,
// cert_id in the operation), or not at all, fails generation: "path
// '/x/{a_id}' has 1 positional parameters, but spec has 0 declared", or
// "refers to parameter 'a_id', which doesn't exist". A path parameter's
// name is not on the wire. So a declared path parameter that the template
// lacks takes, in order, the name of a template parameter that nothing
// declares (a $ref'd one is copied first). A template parameter still
// undeclared is declared: a required string.
func pathParameterNames(p *prep) error {
	paths := jsondoc.Get(p.doc, "paths")
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, _ := paths[path].(map[string]any)
		var names []string
		for _, m := range templateParam.FindAllStringSubmatch(path, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
		base := "/paths/" + jsonpointer.Escape(path)
		forOperations(map[string]any{"paths": map[string]any{path: item}}, func(op map[string]any, method, _ string) {
			lists := []struct {
				owner map[string]any // the path item's parameters first, then the operation's
				ptr   string
			}{{item, base + "/parameters"}, {op, base + "/" + strings.ToLower(method) + "/parameters"}}
			var missing []string
			for _, name := range names {
				if !slices.ContainsFunc(append(list(item["parameters"]), list(op["parameters"])...), func(v any) bool {
					prm, _ := v.(map[string]any)
					prm = deref(p.doc, prm)
					return prm["in"] == "path" && prm["name"] == name
				}) {
					missing = append(missing, name)
				}
			}
			for _, l := range lists {
				for i, v := range list(l.owner["parameters"]) {
					prm, _ := v.(map[string]any)
					prm = deref(p.doc, prm)
					if name, _ := prm["name"].(string); len(missing) == 0 || prm["in"] != "path" || slices.Contains(names, name) {
						continue
					}
					renamed := maps.Clone(prm)
					renamed["name"], missing = missing[0], missing[1:]
					list(l.owner["parameters"])[i] = renamed
					p.note(l.ptr+"/"+strconv.Itoa(i), "name %s -> %s, as in the template", prm["name"], renamed["name"])
				}
			}
			for _, name := range missing {
				op["parameters"] = append(list(op["parameters"]), map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
				p.note(lists[1].ptr, "%s declared, a required string, as in the template", name)
			}
		})
	}
	return nil
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
func discriminators(p *prep) error {
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
				switch {
				case !ok && ref != "" && byRef[ref] != "": // named by the mapping
					v, ok = byRef[ref], true
				case !ok && ref != "": // the implicit value: the component's name
					v, ok = ref[strings.LastIndex(ref, "/")+1:], true
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
	return nil
}

// nullableUnions: a nullable union (anyOf [{oneOf [...]}, {type: null}])
// collapses to an anonymous struct{ union json.RawMessage } with no methods,
// which loses the value. The inner union is named (x-go-type-name), so it
// gets its type and methods.
func nullableUnions(p *prep) error {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		var inner map[string]any
		nulls := 0
		for _, b := range append(list(s["anyOf"]), list(s["oneOf"])...) {
			switch b, _ := b.(map[string]any); {
			case isNull(p.doc, b):
				nulls++
			case inner == nil:
				inner = b
			default:
				return // two non-null branches: a union of its own
			}
		}
		if nulls == 0 || inner == nil || inner["$ref"] != nil || inner["x-go-type-name"] != nil || len(list(inner["oneOf"]))+len(list(inner["anyOf"])) < 2 {
			return
		}
		inner["x-go-type-name"] = p.unique(nameAt(p.doc, ptr))
		p.note(ptr, "x-go-type-name %s on the inner union", inner["x-go-type-name"])
	})
	return nil
}

// parameters: a parameter whose schema is a union (two or more non-null
// anyOf/oneOf members or types) becomes struct{ union json.RawMessage },
// which a caller cannot build; an untyped one becomes interface{}, which
// the runtime cannot style when nil. A parameter is text on the wire either
// way: it becomes a string (x-go-type, on its own schema, never on a shared
// component), an array of such items []string.
func parameters(p *prep) error {
	walk(p.doc, "", func(prm map[string]any, ptr string) {
		in, _ := prm["in"].(string)
		s, _ := prm["schema"].(map[string]any)
		if _, named := prm["name"].(string); !named || s == nil || s["x-go-type"] != nil || !slices.Contains([]string{"path", "query", "header", "cookie"}, in) {
			return
		}
		t := deref(p.doc, s)
		switch items := deref(p.doc, jsondoc.Get(t, "items")); {
		case textual(p.doc, t, 0):
			s["x-go-type"] = "string"
		case nonNull(t) == 1 && slices.Contains(types(t), "array") && textual(p.doc, items, 0):
			s["x-go-type"], s["x-go-type-skip-optional-pointer"] = "[]string", true // a nil slice, as other optional arrays
		default:
			return
		}
		p.note(ptr+"/schema", "x-go-type %s", s["x-go-type"])
	})
	return nil
}

// textual reports whether a parameter schema has no one Go type: a union,
// a type list of two or more non-null types, or no type at all.
func textual(doc, t map[string]any, depth int) bool {
	var branches []map[string]any
	for _, b := range append(list(t["anyOf"]), list(t["oneOf"])...) {
		if b, _ := b.(map[string]any); !isNull(doc, b) {
			branches = append(branches, b)
		}
	}
	switch {
	case t == nil || depth > 8:
		return false
	case len(branches) == 1:
		return textual(doc, deref(doc, branches[0]), depth+1)
	case len(branches) > 1 || nonNull(t) > 1:
		return true
	}
	return t["type"] == nil && t["$ref"] == nil && t["allOf"] == nil && t["x-go-type"] == nil && len(list(t["anyOf"])) == 0
}

// multiTypes: a type list of two or more non-null types ("type": ["string",
// "integer"]) fails generation ("unhandled Schema type"); it becomes any,
// as upstream's unreleased fix (PR 2522) generates it.
func multiTypes(p *prep) error {
	walk(p.doc, "", func(s map[string]any, ptr string) {
		if _, isList := s["type"].([]any); isList && nonNull(s) > 1 && s["x-go-type"] == nil {
			s["x-go-type"], s["x-go-type-skip-optional-pointer"] = "any", true
			p.note(ptr, "x-go-type any")
		}
	})
	return nil
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

// forOperations calls f on every operation of the document.
func forOperations(doc map[string]any, f func(op map[string]any, method, path string)) {
	paths := jsondoc.Get(doc, "paths")
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, _ := paths[path].(map[string]any)
		for _, m := range []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"} {
			if op, _ := item[m].(map[string]any); op != nil {
				f(op, strings.ToUpper(m), path)
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
		case t == "content" || t == "properties" || t == "schemas" || t == "parameters" || t == "anyOf" || t == "oneOf":
			i += map[bool]int{true: 1}[t == "content" || t == "anyOf" || t == "oneOf"] // skip the media type, or the index
		case t == "components" || t == "schema":
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
func pinned(doc, s map[string]any, prop string, depth int) (string, bool) {
	if s = deref(doc, s); s == nil || depth > 8 {
		return "", false
	}
	ps := deref(doc, jsondoc.Get(s, "properties", prop))
	if c, ok := ps["const"].(string); ok {
		return c, true
	}
	if e := list(ps["enum"]); len(e) == 1 {
		c, ok := e[0].(string)
		return c, ok
	}
	for _, m := range list(s["allOf"]) {
		if m, _ := m.(map[string]any); m != nil {
			if v, ok := pinned(doc, m, prop, depth+1); ok {
				return v, true
			}
		}
	}
	return "", false
}

// deref follows a chain of local $refs; a schema that is not one is itself.
func deref(doc, s map[string]any) map[string]any {
	for i := 0; i < 32 && s != nil; i++ {
		ref, ok := s["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return s
		}
		s, _ = jsondoc.At(doc, ref[1:]).(map[string]any)
	}
	return s
}

func isNull(doc, s map[string]any) bool {
	t := types(deref(doc, s))
	return len(t) == 1 && t[0] == "null"
}

// types is a schema's type as a list.
func types(s map[string]any) []string {
	if t, ok := s["type"].(string); ok {
		return []string{t}
	}
	var out []string
	for _, t := range list(s["type"]) {
		if t, ok := t.(string); ok {
			out = append(out, t)
		}
	}
	return out
}

func nonNull(s map[string]any) int {
	return len(slices.DeleteFunc(types(s), func(t string) bool { return t == "null" }))
}

func list(v any) []any { l, _ := v.([]any); return l }

// goName joins the words of s (letters and digits) as an exported name.
func goName(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
		}
		b.WriteRune(r)
		up = false
	}
	if b.Len() == 0 || unicode.IsDigit(rune(b.String()[0])) {
		return "T" + b.String()
	}
	return b.String()
}

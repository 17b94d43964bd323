package main

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
)

// table is what genops resolves from the prepared document: the
// operations, and the schemas of their constraints.
type table struct {
	doc   *openapi3.T
	ops   []*op
	byKey map[string]int
	nodes []*node         // schema i+1 is nodes[i]: 0 is "no constraint"
	ids   map[nodeKey]int // each schema once per form
}

// op is one operation of the table.
type op struct {
	name, method, path, key string
	params                  []item // path parameters, in gen's order
	successes               map[int]string
	other                   string
	bodies                  []item // JSON media types, with their schema
}

// item is a named reference to a schema: a parameter, a body's media
// type, a property.
type item struct {
	name   string
	schema int
}

// node is one schema's constraints, with references by number.
type node struct {
	required []string
	props    []item
	items    int
	allOf    []int
	enum     []string
	pattern  string
	minItems uint64
	maxItems *uint64
}

type nodeKey struct {
	s    *openapi3.Schema
	wire bool // a path parameter's: checked on the text gen sends
}

func newTable(doc *openapi3.T) *table {
	return &table{doc: doc, byKey: map[string]int{}, ids: map[nodeKey]int{}}
}

// operation returns the index of the operation that req sends, which gen
// names name, adding it to the table the first time.
func (t *table) operation(name string, req *request) (int, error) {
	var paths []string
	for path, pi := range t.doc.Paths.Map() {
		if pi.GetOperation(req.method) != nil && pathParamRE.ReplaceAllString(path, "%s") == req.format {
			paths = append(paths, path)
		}
	}
	if len(paths) > 1 { // template twins, by their parameters' names
		paths = slices.DeleteFunc(paths, func(p string) bool {
			ms := pathParamRE.FindAllStringSubmatch(p, -1)
			return len(ms) != len(req.params) || slices.ContainsFunc(req.params, func(s *styled) bool {
				return s.name != ms[slices.Index(req.params, s)][1]
			})
		})
	}
	if len(paths) != 1 {
		return 0, fmt.Errorf("its request builder sends %s %q, which is %d operations of the spec, not one", req.method, req.format, len(paths))
	}
	key := req.method + " " + paths[0]
	if i, ok := t.byKey[key]; ok {
		return i, nil
	}
	pi := t.doc.Paths.Value(paths[0])
	o := pi.GetOperation(req.method)
	p := &op{name: name, method: req.method, path: paths[0], key: key, successes: map[int]string{}}
	p.other = successes(o.Responses, p.successes)
	declared := map[string]*openapi3.Parameter{}
	for _, ref := range slices.Concat(pi.Parameters, o.Parameters) { // the operation's win
		if ref != nil && ref.Value != nil && ref.Value.In == openapi3.ParameterInPath {
			declared[ref.Value.Name] = ref.Value
		}
	}
	for _, s := range req.params {
		it := item{name: s.name}
		if d := declared[s.name]; d != nil {
			it.schema = t.schema(d.Schema, true)
		}
		p.params = append(p.params, it)
	}
	if o.RequestBody != nil && o.RequestBody.Value != nil {
		content := o.RequestBody.Value.Content
		for _, mt := range slices.Sorted(maps.Keys(content)) {
			essence := mediatype.Essence(mt)
			if mediatype.IsJSON(essence) && content[mt] != nil {
				if id := t.schema(content[mt].Schema, false); id != 0 && !slices.ContainsFunc(p.bodies, func(b item) bool { return b.name == essence }) {
					p.bodies = append(p.bodies, item{essence, id})
				}
			}
		}
	}
	t.byKey[key] = len(t.ops)
	t.ops = append(t.ops, p)
	return len(t.ops) - 1, nil
}

// successes fills statuses with how responses declare each exact 2xx
// status, and returns the rule for any other 2xx. An exact status wins
// over "2XX", which wins over "default". "default" counts only where no
// 2xx is declared. An operation that declares no response takes any 2xx.
func successes(responses *openapi3.Responses, statuses map[int]string) string {
	m := responses.Map()
	if len(m) == 0 {
		return "SuccessMayBeJSON"
	}
	any2xx := false
	for code, r := range m {
		any2xx = any2xx || strings.HasPrefix(code, "2")
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n <= 299 {
			statuses[n] = kind(r)
		}
	}
	for _, k := range []string{"2XX", "2xx", "default"} {
		if r, ok := m[k]; ok && (k != "default" || !any2xx) {
			return kind(r)
		}
	}
	return "NotASuccess"
}

// kind is how a response declares its body: JSON and nothing else, JSON
// among other media types, or no JSON (no body at all included).
func kind(r *openapi3.ResponseRef) string {
	if r == nil || r.Value == nil {
		return "SuccessMayBeJSON"
	}
	json := 0
	for mt := range r.Value.Content {
		if mediatype.IsJSON(strings.ToLower(mt)) {
			json++
		}
	}
	switch {
	case json == 0:
		return "SuccessNoJSON"
	case json == len(r.Value.Content):
		return "SuccessJSON"
	}
	return "SuccessMayBeJSON"
}

// schema returns the number of ref's constraints, reading them once per
// form: a body's, or a path parameter's (wire), whose enum is the text gen
// sends and which has no properties or items. 0 is no schema.
func (t *table) schema(ref *openapi3.SchemaRef, wire bool) int {
	if ref == nil || ref.Value == nil {
		return 0
	}
	k := nodeKey{ref.Value, wire}
	if id, ok := t.ids[k]; ok {
		return id
	}
	n := &node{}
	t.nodes = append(t.nodes, n)
	id := len(t.nodes)
	t.ids[k] = id
	s := ref.Value
	str := s.Type == nil || len(*s.Type) == 0 || s.Type.Includes(openapi3.TypeString)
	if _, err := regexp.Compile(s.Pattern); s.Pattern != "" && str && err == nil { // RE2: a pattern Go cannot read is the server's
		n.pattern = s.Pattern
	}
	enum := s.Enum
	if len(enum) == 0 && s.Const != nil {
		enum = []any{s.Const}
	}
	for _, v := range enum {
		if !wire {
			n.enum = append(n.enum, jsonText(v))
		} else if v != nil {
			n.enum = append(n.enum, wireText(v))
		}
	}
	for _, a := range s.AllOf {
		if j := t.schema(a, wire); j != 0 {
			n.allOf = append(n.allOf, j)
		}
	}
	if !wire {
		n.required, n.minItems, n.maxItems = s.Required, s.MinItems, s.MaxItems
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if j := t.schema(s.Properties[name], false); j != 0 {
				n.props = append(n.props, item{name, j})
			}
		}
		n.items = t.schema(s.Items, false)
	}
	return id
}

// wireText is v as gen writes a path argument of that value
// (oapi-codegen/runtime's primitiveToString).
func wireText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return jsonText(v)
}

// own reports whether n constrains a value by itself.
func (n *node) own() bool {
	return len(n.required) > 0 || len(n.enum) > 0 || n.pattern != "" || n.minItems > 0 || n.maxItems != nil
}

// prune keeps the schemas that constrain a value, by themselves or through
// another, and numbers them anew (in the order first read); every other
// reference becomes 0.
func (t *table) prune() {
	live := make([]bool, len(t.nodes)+1)
	for changed := true; changed; {
		changed = false
		for i, n := range t.nodes {
			l := n.own() || live[n.items] || slices.ContainsFunc(n.props, func(p item) bool { return live[p.schema] }) ||
				slices.ContainsFunc(n.allOf, func(j int) bool { return live[j] })
			if l && !live[i+1] {
				live[i+1], changed = true, true
			}
		}
	}
	renumber := make([]int, len(t.nodes)+1)
	var kept []*node
	for i, n := range t.nodes {
		if live[i+1] {
			kept = append(kept, n)
			renumber[i+1] = len(kept)
		}
	}
	refs := func(its []item) []item { // renumbered; those that constrain nothing dropped
		for i := range its {
			its[i].schema = renumber[its[i].schema]
		}
		return slices.DeleteFunc(its, func(it item) bool { return it.schema == 0 })
	}
	for _, n := range kept {
		n.items, n.props = renumber[n.items], refs(n.props)
		n.allOf = slices.DeleteFunc(n.allOf, func(j int) bool { return renumber[j] == 0 })
		for i, j := range n.allOf {
			n.allOf[i] = renumber[j]
		}
	}
	for _, p := range t.ops {
		for i := range p.params {
			p.params[i].schema = renumber[p.params[i].schema]
		}
		p.bodies = refs(p.bodies)
	}
	t.nodes = kept
}

// write writes the table as Go: all and schemas.
func (t *table) write(b *bytes.Buffer) {
	t.prune()
	b.WriteString("// all lists the operations that gen's client methods send, in the order of\n// their first method.\nvar all = [...]Operation{\n")
	for _, p := range t.ops {
		fmt.Fprintf(b, "\t{Name: %q, Method: %q, Path: %q", p.name, p.method, p.path)
		if len(p.params) > 0 {
			b.WriteString(", Params: []Param{")
			for i, it := range p.params {
				fmt.Fprintf(b, "%s{Name: %q%s}", comma(i), it.name, field("Schema", it.schema))
			}
			b.WriteString("}")
		}
		if len(p.successes) > 0 {
			b.WriteString(", Successes: map[int]Success{")
			for i, code := range slices.Sorted(maps.Keys(p.successes)) {
				fmt.Fprintf(b, "%s%d: %s", comma(i), code, p.successes[code])
			}
			b.WriteString("}")
		}
		if p.other != "NotASuccess" {
			fmt.Fprintf(b, ", OtherSuccess: %s", p.other)
		}
		if len(p.bodies) > 0 {
			b.WriteString(", Bodies: []Body{")
			for i, it := range p.bodies {
				fmt.Fprintf(b, "%s{MediaType: %q, Schema: %d}", comma(i), it.name, it.schema)
			}
			b.WriteString("}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n// schemas holds the constraints of the operations' path parameters and\n// bodies; the first holds none.\nvar schemas = Schemas{\n\t{},\n")
	for i, n := range t.nodes {
		var fs []string
		if len(n.required) > 0 {
			fs = append(fs, fmt.Sprintf("Required: %#v", n.required))
		}
		if len(n.props) > 0 {
			var ps []string
			for _, p := range n.props {
				ps = append(ps, fmt.Sprintf("{%q, %d}", p.name, p.schema))
			}
			fs = append(fs, "Props: []Prop{"+strings.Join(ps, ", ")+"}")
		}
		if n.items != 0 {
			fs = append(fs, fmt.Sprintf("Items: %d", n.items))
		}
		if len(n.allOf) > 0 {
			fs = append(fs, fmt.Sprintf("AllOf: %#v", n.allOf))
		}
		if len(n.enum) > 0 {
			fs = append(fs, fmt.Sprintf("Enum: %#v", n.enum))
		}
		if n.pattern != "" {
			fs = append(fs, fmt.Sprintf("Pattern: %q", n.pattern))
		}
		if n.minItems > 0 {
			fs = append(fs, fmt.Sprintf("MinItems: %d", min(n.minItems, math.MaxInt32)))
		}
		if n.maxItems != nil {
			fs = append(fs, fmt.Sprintf("MaxItems: atMost(%d)", min(*n.maxItems, math.MaxInt32)))
		}
		fmt.Fprintf(b, "\t{%s}, // %d\n", strings.Join(fs, ", "), i+1)
	}
	b.WriteString("}\n\n")
}

func comma(i int) string {
	if i == 0 {
		return ""
	}
	return ", "
}

func field(name string, v int) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf(", %s: %d", name, v)
}

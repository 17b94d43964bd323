// Command genops writes package gen/operations: the table of the
// operations that gen's client methods send, and a client that hands each
// call its operation. It reads what oapi-codegen wrote, and the responses
// the spec declares. Each method of gen.ClientInterface and
// gen.ClientWithResponsesInterface gives its signature, and its doc names
// its operation: "Corresponds with METHOD PATH". `go generate ./gen` runs
// it after oapi-codegen:
//
//	go run ../scripts/genops -spec ../openapi.json -gen tensorpool.gen.go -o operations/operations.gen.go
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
)

func main() {
	spec := flag.String("spec", "", "the OpenAPI document gen was generated from (JSON)")
	genFile := flag.String("gen", "", "the Go file oapi-codegen wrote")
	out := flag.String("o", "", "the file to write")
	flag.Parse()
	if *spec == "" || *genFile == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: genops -spec openapi.json -gen tensorpool.gen.go -o operations/operations.gen.go")
		os.Exit(2)
	}
	src, err := os.ReadFile(*genFile)
	var responses map[string]map[string]*response
	if err == nil {
		responses, err = declaredResponses(*spec)
	}
	if err == nil {
		src, err = generate(src, responses)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(*out), 0o755)
	}
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genops:", err)
		os.Exit(1)
	}
}

var (
	// operationOfDoc finds the operation in a method's doc. oapi-codegen
	// writes "Corresponds with METHOD PATH (the `X` operationId)", or, for
	// an operation without a summary, "X performs a METHOD PATH (the `X`
	// operationId) request".
	operationOfDoc = regexp.MustCompile("(?:Corresponds with|performs a) ([A-Z]+) (\\S+) \\(the `")
	pathParam      = regexp.MustCompile(`\{([^{}]+)\}`)
	// typeName is an exported name that is not a package's: one of gen's.
	typeName = regexp.MustCompile(`(^|\.\.\.|[^.\w])([A-Z]\w*)`)
	pkgName  = regexp.MustCompile(`(\w+)\.`)
)

// generate returns package operations for gen's file src and the
// responses the spec declares (declaredResponses).
func generate(src []byte, responses map[string]map[string]*response) ([]byte, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "tensorpool.gen.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	imports := map[string]string{"gen": "github.com/tensorpool/tensorpool-go/gen"} // by the name gen's file uses
	for _, s := range f.Imports {
		path, _ := strconv.Unquote(s.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		imports[name] = path
	}
	used := map[string]bool{"gen": true}
	ops := map[string]int{} // "METHOD PATH" -> index in the table
	var table, methods, cases bytes.Buffer
	operation := func(m *ast.Field) (string, int, error) {
		sub := operationOfDoc.FindStringSubmatch(m.Doc.Text())
		if sub == nil {
			return "", 0, fmt.Errorf("%s: its doc names no operation (%q): has the generator's output changed?", m.Names[0].Name, "Corresponds with METHOD PATH")
		}
		key := sub[1] + " " + sub[2]
		i, ok := ops[key]
		if !ok {
			i, ops[key] = len(ops), len(ops)
			r, ok := responses[key]
			if !ok {
				return "", 0, fmt.Errorf("%s: %s is not in the spec", m.Names[0].Name, key)
			}
			statuses, other := successes(r)
			names := ""
			if p := params(sub[2]); len(p) > 0 {
				names = fmt.Sprintf("PathParams: %#v, ", p)
			}
			fmt.Fprintf(&table, "\t{Method: %q, Path: %q, %sStatuses: map[int]Body{%s}, Other2xx: %s},\n", sub[1], sub[2], names, statuses, other)
		}
		return key, i, nil
	}
	typ := func(e ast.Expr) string { // as package operations names it
		s := types.ExprString(e)
		for _, m := range pkgName.FindAllStringSubmatch(s, -1) {
			used[m[1]] = true
		}
		return typeName.ReplaceAllString(s, "${1}gen.${2}")
	}
	for _, m := range methodsOf(f, "ClientInterface") {
		key, i, err := operation(m)
		if err != nil {
			return nil, err
		}
		writeMethod(&methods, m.Names[0].Name, key, i, m.Type.(*ast.FuncType), typ)
	}
	seen := map[string]bool{}
	for _, m := range methodsOf(f, "ClientWithResponsesInterface") {
		_, i, err := operation(m)
		if err != nil {
			return nil, err
		}
		if name := typ(m.Type.(*ast.FuncType).Results.List[0].Type)[1:]; !seen[name] { // XWithBody's is X's
			seen[name] = true
			fmt.Fprintf(&cases, "\tcase *%s, %s:\n\t\treturn &All[%d]\n", name, name, i)
		}
	}
	var b bytes.Buffer
	b.WriteString(prelude)
	for name := range used { // format.Source sorts them
		path := imports[name]
		if path == "" {
			return nil, fmt.Errorf("package %s is not imported by gen's file", name)
		}
		if strings.HasSuffix("/"+path, "/"+name) {
			name = ""
		}
		fmt.Fprintf(&b, "\t%s %q\n", name, path)
	}
	fmt.Fprintf(&b, ")\n%s\n// All lists the operations that gen's client methods send, in the order of\n// their first method.\nvar All = []Operation{\n%s}\n\n%s", declarations, &table, &methods)
	fmt.Fprintf(&b, "// Of returns the operation of one of gen's response types, or nil.\nfunc Of(r any) *Operation {\n\tswitch r.(type) {\n%s\t}\n\treturn nil\n}\n", &cases)
	return format.Source(b.Bytes())
}

// prelude is the start of the file: its doc, and imports that the types
// need whatever the spec.
const prelude = `// Code generated by scripts/genops from gen's client and the spec. DO NOT EDIT.

// Package operations lists the operations of the spec that package gen's
// client methods send. Its Client implements gen.ClientInterface so that
// each call carries its operation: tensorpool.NewClient's client is one.
package operations

import (
	"fmt"
	"reflect"
	"strings"
`

// declarations are the types and helpers of package operations, whatever
// the spec.
const declarations = `
// Operation is one operation of the spec.
type Operation struct {
	Method     string       // "DELETE"
	Path       string       // the path template: "/storage/{storage_id}"
	PathParams []string     // the path parameters, in the order of the methods' arguments
	Statuses   map[int]Body // the 2xx statuses the spec declares, and their body
	Other2xx   Body         // any other 2xx: as "2XX" declares it, or "default" where no 2xx is declared
}

// Body is how an operation declares a 2xx status and its body.
type Body uint8

const (
	NotDeclared Body = iota // not a success of the operation
	AnyBody                 // a success whose body is not JSON, or that has none
	SomeJSON                // a success whose body may be JSON: JSON among other media types
	JSONBody                // a success whose body is JSON and nothing else
)

// Success returns how op declares the 2xx status code.
func (op *Operation) Success(code int) Body {
	if b, ok := op.Statuses[code]; ok {
		return b
	}
	return op.Other2xx
}

// Client implements gen.ClientInterface. Each method calls through
// Clients[i], the gen.Client of its operation All[i], once CheckPath, if
// set, has accepted each of its path arguments.
type Client struct {
	Clients []gen.Client // one per operation, by index in All
	// CheckPath checks the path argument value of op.PathParams[i] before
	// the request is built; its error is the call's.
	CheckPath func(op *Operation, i int, value string) error
}

func (c *Client) check(op *Operation, i int, value string) error {
	if c.CheckPath == nil {
		return nil
	}
	return c.CheckPath(op, i, value)
}

// pathText is the text of a path argument that is not a string, as gen's
// request builders write it: a list's items joined by commas (the
// "simple" style), anything else as fmt prints it.
func pathText(v any) string {
	rv := reflect.ValueOf(v)
	if _, ok := v.(fmt.Stringer); ok || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return fmt.Sprint(v)
	}
	items := make([]string, rv.Len())
	for i := range items {
		items[i] = pathText(rv.Index(i).Interface())
	}
	return strings.Join(items, ",")
}
`

// writeMethod writes the client method name, of the operation key (index
// i in All), with gen's signature ft: it checks the path arguments, then
// calls through the operation's gen.Client.
func writeMethod(w *bytes.Buffer, name, key string, i int, ft *ast.FuncType, typ func(ast.Expr) string) {
	var sig, args []string
	for _, p := range ft.Params.List {
		for _, n := range p.Names {
			sig = append(sig, n.Name+" "+typ(p.Type))
			args = append(args, n.Name)
		}
	}
	args[len(args)-1] += "..." // the request editors
	recv := "c"                // a name no argument has
	for slices.Contains(args, recv) {
		recv += "_"
	}
	n := len(params(strings.SplitN(key, " ", 2)[1])) // the path arguments follow the context
	fmt.Fprintf(w, "// %s sends %s.\nfunc (%s *Client) %s(%s) (%s, error) {\n", name, key, recv, name, strings.Join(sig, ", "), typ(ft.Results.List[0].Type))
	for j, a := range args[1 : 1+n] {
		if !strings.HasSuffix(sig[1+j], " string") {
			a = "pathText(" + a + ")"
		}
		fmt.Fprintf(w, "\tif err := %s.check(&All[%d], %d, %s); err != nil {\n\t\treturn nil, err\n\t}\n", recv, i, j, a)
	}
	fmt.Fprintf(w, "\treturn %s.Clients[%d].%s(%s)\n}\n\n", recv, i, name, strings.Join(args, ", "))
}

// methodsOf returns the methods of the interface type name in f.
func methodsOf(f *ast.File, name string) []*ast.Field {
	var methods []*ast.Field
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == name {
			if it, ok := ts.Type.(*ast.InterfaceType); ok {
				methods = it.Methods.List
			}
		}
		return methods == nil
	})
	return methods
}

// params returns the names of the path template's parameters, each once,
// in the order they first appear: the order of the generated method's
// path arguments.
func params(template string) []string {
	var names []string
	for _, m := range pathParam.FindAllStringSubmatch(template, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// response is what genops reads of an OpenAPI response: its media types,
// or a $ref to one.
type response struct {
	Ref     string `json:"$ref"`
	Content map[string]json.RawMessage
}

// declaredResponses returns every operation's responses, by "METHOD
// PATH", $refs resolved.
func declaredResponses(specFile string) (map[string]map[string]*response, error) {
	data, err := os.ReadFile(specFile)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Responses map[string]*response }
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", specFile, err)
	}
	out := map[string]map[string]*response{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var o struct{ Responses map[string]*response }
			if json.Unmarshal(raw, &o) != nil {
				continue // not an operation: the path's parameters, summary, servers
			}
			for code, r := range o.Responses {
				for n := 0; r != nil && r.Ref != "" && n < 8; n++ {
					r = doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
				}
				o.Responses[code] = r
			}
			out[strings.ToUpper(method)+" "+path] = o.Responses
		}
	}
	return out, nil
}

// successes returns how the responses declare each 2xx status: the exact
// statuses, as Go map entries, and the rule for any other 2xx. An exact
// status wins over "2XX", which wins over "default". "default" counts only
// where no 2xx is declared. An operation that declares no response takes
// any 2xx.
func successes(responses map[string]*response) (statuses, other string) {
	var exact []string
	any2xx := false
	for code, r := range responses {
		any2xx = any2xx || strings.HasPrefix(code, "2")
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n <= 299 {
			exact = append(exact, fmt.Sprintf("%d: %s", n, kind(r)))
		}
	}
	slices.Sort(exact)
	other = "NotDeclared"
	if len(responses) == 0 {
		other = "SomeJSON"
	}
	for _, k := range []string{"2XX", "2xx", "default"} {
		if r, ok := responses[k]; ok && (k != "default" || !any2xx) {
			other = kind(r)
			break
		}
	}
	return strings.Join(exact, ", "), other
}

// kind is how a response declares its body: JSON and nothing else, JSON
// among other media types, or no JSON (no body at all included).
func kind(r *response) string {
	if r == nil || r.Ref != "" {
		return "SomeJSON"
	}
	json := 0
	for mt := range r.Content {
		if mediatype.IsJSON(strings.ToLower(mt)) {
			json++
		}
	}
	switch {
	case json == 0:
		return "AnyBody"
	case json == len(r.Content):
		return "JSONBody"
	}
	return "SomeJSON"
}

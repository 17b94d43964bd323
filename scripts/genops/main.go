// Command genops writes internal/operations/operations.gen.go: what the
// spec says of each operation that package gen's client sends, and the
// methods of operations.Client, which put each call's operation in its
// context. Two sources, both structured, pair every Go name with its
// operation:
//
//   - gen's own code: each method of gen.ClientInterface calls its request
//     builder, which names the HTTP method (http.NewRequest), the path
//     (fmt.Sprintf of the template) and how it writes each path argument
//     (runtime.StyleParamWithOptions);
//   - the prepared document the generator saw, read with kin-openapi: the
//     operation at that method and path, its declared responses and the
//     constraints of its path parameters and JSON bodies, every $ref and
//     allOf resolved.
//
// No comment or description is read. `go generate ./gen` runs it through
// scripts/specprep, which appends the prepared document's path:
//
//	go run ../scripts/specprep ../openapi.json -- go run ../scripts/genops -gen tensorpool.gen.go -o ../internal/operations/operations.gen.go -spec
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	genFile := flag.String("gen", "", "the Go file oapi-codegen wrote")
	out := flag.String("o", "", "the file to write")
	spec := flag.String("spec", "", "the prepared OpenAPI document the generator read")
	flag.Parse()
	if *spec == "" || *genFile == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: genops -gen tensorpool.gen.go -o operations.gen.go -spec prepared.json")
		os.Exit(2)
	}
	src, err := os.ReadFile(*genFile)
	var doc *openapi3.T
	if err == nil {
		doc, err = openapi3.NewLoader().LoadFromFile(*spec)
	}
	if err == nil {
		src, err = generate(src, doc)
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

// pathParamRE is oapi-codegen's own (pkg/codegen/utils.go, pathParamRE):
// genParamFmtString writes each match of a path template as "%s".
var pathParamRE = regexp.MustCompile(`{[.;?]?([^{}*]+)\*?}`)

// typeName is an exported name that is not a package's: one of gen's.
var (
	typeName = regexp.MustCompile(`(^|\.\.\.|[^.\w])([A-Z]\w*)`)
	pkgName  = regexp.MustCompile(`(\w+)\.`)
)

// request is what a request builder of gen's sends.
type request struct {
	method, format string
	params         []*styled // in the order of pathParam0, pathParam1, ...
}

// styled is a path argument as a builder writes it:
// pathParamN, err = runtime.StyleParamWithOptions(style, explode, name, arg, options).
type styled struct {
	name, arg string
	call      *ast.CallExpr
}

// file is gen's file, parsed.
type file struct {
	fset  *token.FileSet
	f     *ast.File
	funcs map[string]*ast.FuncDecl // "NewXRequest", "Client.X", "ClientWithResponses.XWithResponse"
}

// generate returns package operations' generated file for gen's file src,
// generated from doc.
func generate(src []byte, doc *openapi3.T) ([]byte, error) {
	g := &file{fset: token.NewFileSet(), funcs: map[string]*ast.FuncDecl{}}
	var err error
	if g.f, err = parser.ParseFile(g.fset, "tensorpool.gen.go", src, parser.SkipObjectResolution); err != nil {
		return nil, err
	}
	for _, d := range g.f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				name = strings.TrimPrefix(types.ExprString(fd.Recv.List[0].Type), "*") + "." + name
			}
			g.funcs[name] = fd
		}
	}
	imports := map[string]string{"gen": "github.com/tensorpool/tensorpool-go/gen"} // by the name gen's file uses
	for _, s := range g.f.Imports {
		path, _ := strconv.Unquote(s.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		imports[name] = path
	}
	used := map[string]bool{"gen": true} // context and http too: every method takes a context.Context and returns an *http.Response
	typ := func(e ast.Expr) string {     // as package operations names it
		s := types.ExprString(e)
		for _, m := range pkgName.FindAllStringSubmatch(s, -1) {
			used[m[1]] = true
		}
		return typeName.ReplaceAllString(s, "${1}gen.${2}")
	}

	t := newTable(doc)
	index := map[string]int{} // gen's method name -> index in the table
	var methods bytes.Buffer
	for _, m := range methodsOf(g.f, "ClientInterface") {
		name := m.Names[0].Name
		req, err := g.requestOf(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: has the generator's output changed?", name, err)
		}
		i, err := t.operation(strings.TrimSuffix(name, "WithBody"), req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		index[name] = i
		if err := g.writeMethod(&methods, name, t.ops[i].key, i, req, m.Type.(*ast.FuncType), typ, used); err != nil {
			return nil, err
		}
	}
	var cases bytes.Buffer
	seen := map[string]bool{}
	for _, m := range methodsOf(g.f, "ClientWithResponsesInterface") {
		name := m.Names[0].Name
		called := g.calledMethod("ClientWithResponses." + name)
		i, ok := index[called]
		if !ok {
			return nil, fmt.Errorf("%s calls no method of gen.ClientInterface: has the generator's output changed?", name)
		}
		if rt := typ(m.Type.(*ast.FuncType).Results.List[0].Type)[1:]; !seen[rt] { // XWithBody's is X's
			seen[rt] = true
			fmt.Fprintf(&cases, "\tcase *%s, %s:\n\t\treturn &all[%d]\n", rt, rt, i)
		}
	}

	var b bytes.Buffer
	b.WriteString("// Code generated by scripts/genops from gen's client and the prepared spec. DO NOT EDIT.\n\npackage operations\n\nimport (\n")
	var std, other []string // imports, as goimports groups them
	for _, name := range slices.Sorted(maps.Keys(used)) {
		path := imports[name]
		if path == "" {
			return nil, fmt.Errorf("package %s is not imported by gen's file", name)
		}
		spec := fmt.Sprintf("%s %q", name, path)
		if strings.HasSuffix("/"+path, "/"+name) {
			spec = strconv.Quote(path)
		}
		if strings.Contains(strings.Split(path, "/")[0], ".") {
			other = append(other, spec)
		} else {
			std = append(std, spec)
		}
	}
	fmt.Fprintf(&b, "\t%s\n\n\t%s\n)\n\n", strings.Join(std, "\n\t"), strings.Join(other, "\n\t"))
	t.write(&b)
	b.Write(methods.Bytes())
	fmt.Fprintf(&b, "// Of returns the operation of one of gen's response types, or nil.\nfunc Of(r any) *Operation {\n\tswitch r.(type) {\n%s\t}\n\treturn nil\n}\n", &cases)
	return format.Source(b.Bytes())
}

// requestOf returns what gen's client method name sends: it follows the
// method's call of its request builder, and the builder's call of
// another, to the one that calls http.NewRequest.
func (g *file) requestOf(name string) (*request, error) {
	fd := g.funcs["Client."+name]
	if fd == nil {
		return nil, fmt.Errorf("no method (*Client).%s", name)
	}
	for depth := 0; depth < 4; depth++ {
		r := &request{}
		next := ""
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs, _ := n.Lhs[0].(*ast.Ident)
				call, _ := n.Rhs[0].(*ast.CallExpr)
				switch {
				case lhs == nil || call == nil:
				case lhs.Name == "operationPath" && selector(call.Fun) == "fmt.Sprintf" && len(call.Args) > 0:
					r.format = unquote(call.Args[0])
				case strings.HasPrefix(lhs.Name, "pathParam") && strings.HasSuffix(selector(call.Fun), ".StyleParamWithOptions") && len(call.Args) == 5:
					k, err := strconv.Atoi(strings.TrimPrefix(lhs.Name, "pathParam"))
					arg, _ := call.Args[3].(*ast.Ident)
					if err == nil && k == len(r.params) && arg != nil {
						r.params = append(r.params, &styled{name: unquote(call.Args[2]), arg: arg.Name, call: call})
					}
				}
			case *ast.CallExpr:
				switch f := n.Fun.(type) {
				case *ast.SelectorExpr:
					if selector(f) == "http.NewRequest" && len(n.Args) > 0 {
						r.method = unquote(n.Args[0])
						if m, ok := strings.CutPrefix(selector(n.Args[0]), "http.Method"); ok {
							r.method = strings.ToUpper(m) // net/http's constants: MethodGet is "GET"
						}
					}
				case *ast.Ident:
					if strings.HasPrefix(f.Name, "New") && strings.Contains(f.Name, "Request") && next == "" {
						next = f.Name
					}
				}
			}
			return true
		})
		switch {
		case r.method != "" && r.format != "":
			return r, nil
		case next == "" || g.funcs[next] == nil:
			return nil, fmt.Errorf("no request builder that calls http.NewRequest and fmt.Sprintf")
		}
		fd = g.funcs[next]
	}
	return nil, fmt.Errorf("request builders call each other too deep")
}

// calledMethod returns the method of gen.Client that the method fn of
// gen's calls: c.X(...).
func (g *file) calledMethod(fn string) string {
	name := ""
	if fd := g.funcs[fn]; fd != nil {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && name == "" {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "c" {
						name = sel.Sel.Name
					}
				}
			}
			return name == ""
		})
	}
	return name
}

// writeMethod writes the client method name, of operation i, with gen's
// signature ft: it puts the operation in the context, checks each path
// argument as gen writes it, then calls gen.
func (g *file) writeMethod(w *bytes.Buffer, name, key string, i int, req *request, ft *ast.FuncType, typ func(ast.Expr) string, used map[string]bool) error {
	var sig, args []string
	kinds := map[string]string{}
	for _, p := range ft.Params.List {
		for _, n := range p.Names {
			sig = append(sig, n.Name+" "+typ(p.Type))
			args = append(args, n.Name)
			kinds[n.Name] = types.ExprString(p.Type)
		}
	}
	args[len(args)-1] += "..." // the request editors
	recv := "c"                // gen's own receiver: no argument has its name, or gen would not build
	for slices.Contains(args, recv) {
		recv += "_"
	}
	fmt.Fprintf(w, "// %s sends %s.\nfunc (%s *Client) %s(%s) (%s, error) {\n\tctx = %s.with(ctx, %d)\n",
		name, key, recv, name, strings.Join(sig, ", "), typ(ft.Results.List[0].Type), recv, i)
	for k, p := range req.params {
		if _, ok := kinds[p.arg]; !ok {
			return fmt.Errorf("%s: its builder writes %s, which is not an argument", name, p.arg)
		}
		if kinds[p.arg] == "string" { // gen sends it escaped, and nothing else
			fmt.Fprintf(w, "\tif err := %s.path(%d, %d, %s); err != nil {\n\t\treturn nil, err\n\t}\n", recv, i, k, p.arg)
			continue
		}
		var call bytes.Buffer // gen's own call: the text it will send
		if err := printer.Fprint(&call, g.fset, p.call); err != nil {
			return err
		}
		for _, m := range pkgName.FindAllStringSubmatch(call.String(), -1) {
			used[m[1]] = true
		}
		fmt.Fprintf(w, "\tif pathParam%d, err := %s; err != nil {\n\t\treturn nil, err\n\t} else if err := %s.styled(%d, %d, pathParam%d); err != nil {\n\t\treturn nil, err\n\t}\n",
			k, call.String(), recv, i, k, k)
	}
	fmt.Fprintf(w, "\treturn %s.gen.%s(%s)\n}\n\n", recv, name, strings.Join(args, ", "))
	return nil
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

// selector returns "x.Sel" for a selector expression on a name, else "".
func selector(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok {
			return x.Name + "." + sel.Sel.Name
		}
	}
	return ""
}

// unquote returns the value of a string literal, else "".
func unquote(e ast.Expr) string {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		s, _ := strconv.Unquote(lit.Value)
		return s
	}
	return ""
}

// jsonText is v's JSON text, as the client compares a body's values.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

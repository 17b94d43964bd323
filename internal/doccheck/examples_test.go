package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"
	"testing"
)

// standardMethods implement a standard interface; every example using the
// type shows them, so they need no example of their own.
var standardMethods = map[string]bool{
	"Error": true, "Is": true, "Unwrap": true, "Format": true, "String": true, "GoString": true, "LogValue": true,
}

// entryPoints lists what of one package's non-test files needs a runnable
// example: exported functions, exported methods of exported types (other
// than standardMethods), and exported error types, as the Example function
// names that would cover them ("ExampleF", "ExampleT_M", "ExampleT").
func entryPoints(files []*ast.File) []string {
	var out []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || standardMethods[d.Name.Name] {
					continue
				}
				if d.Recv == nil {
					out = append(out, "Example"+d.Name.Name)
					continue
				}
				t := d.Recv.List[0].Type
				if s, ok := t.(*ast.StarExpr); ok {
					t = s.X
				}
				if id, ok := t.(*ast.Ident); ok && id.IsExported() {
					out = append(out, "Example"+id.Name+"_"+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Error") {
						out = append(out, "Example"+ts.Name.Name)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// runnableExamples lists the Example functions of test files that have an
// Output comment (go test runs only those), each also under its name
// without a lower-case _suffix.
func runnableExamples(files []*ast.File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") || !hasOutput(f, fn) {
				continue
			}
			n := fn.Name.Name
			out[n] = true
			if i := strings.LastIndexByte(n, '_'); i > 0 && i+1 < len(n) && n[i+1] >= 'a' && n[i+1] <= 'z' {
				out[n[:i]] = true
			}
		}
	}
	return out
}

// hasOutput reports whether an Example function has an Output comment.
func hasOutput(f *ast.File, fn *ast.FuncDecl) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace {
			if t := cg.Text(); strings.HasPrefix(t, "Output:") || strings.HasPrefix(t, "Unordered output:") {
				return true
			}
		}
	}
	return false
}

// goFiles is one package's parsed files: its own and its tests.
type goFiles struct{ src, tests []*ast.File }

// publicPackages returns, by directory, the parsed files of the module's
// hand-written importable packages (not gen/, internal/, commands or tools).
func publicPackages(t *testing.T) map[string]*goFiles {
	t.Helper()
	_, files := parseGo(t, "testdata", "internal", "examples", "scripts")
	pkgs := map[string]*goFiles{}
	for p, f := range files {
		g := pkgs[path.Dir(p)]
		if g == nil {
			g = &goFiles{}
			pkgs[path.Dir(p)] = g
		}
		if strings.HasSuffix(p, "_test.go") {
			g.tests = append(g.tests, f)
		} else {
			g.src = append(g.src, f)
		}
	}
	return pkgs
}

func TestEveryEntryPointHasARunnableExample(t *testing.T) {
	pkgs := publicPackages(t)
	total := 0
	for dir, g := range pkgs {
		have := runnableExamples(g.tests)
		for _, want := range entryPoints(g.src) {
			total++
			if !have[want] {
				t.Errorf("%s: no runnable example %s (an Example with an // Output: comment)", dir, want)
			}
		}
	}
	if len(pkgs) < 3 || total < 40 {
		t.Fatalf("found %d packages and %d entry points; the walk is broken", len(pkgs), total)
	}
}

func TestEntryPointsAndExamplesAreFound(t *testing.T) {
	fset := token.NewFileSet()
	src, err := parser.ParseFile(fset, "x.go", `package x
func F() {}
func f() {}
type T struct{}
func (T) M() {}
func (T) Error() string { return "" }
type t struct{}
func (t) M() {}
type BadError struct{}
type Option func()
`, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := entryPoints([]*ast.File{src})
	want := []string{"ExampleBadError", "ExampleF", "ExampleT_M"}
	if !slices.Equal(got, want) {
		t.Fatalf("entryPoints = %q, want %q", got, want)
	}
	tests, err := parser.ParseFile(fset, "x_test.go", `package x
func ExampleF() {
	// Output:
}
func ExampleT_M_second() {
	// Output: x
}
func ExampleBadError() {}
`, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	have := runnableExamples([]*ast.File{tests})
	if !have["ExampleF"] || !have["ExampleT_M"] || have["ExampleBadError"] {
		t.Fatalf("runnableExamples = %v: want ExampleF and ExampleT_M (via its suffix), not ExampleBadError (no Output)", have)
	}
}

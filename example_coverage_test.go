package tensorpool

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestEveryEntryPointHasAnExample fails when an exported function, method
// or type of this package has no runnable Example (ExampleF, ExampleT,
// ExampleT_M, or one of those with a _suffix).
func TestEveryEntryPointHasAnExample(t *testing.T) {
	// Methods that implement a standard interface, and types every example
	// shows, need none of their own.
	skip := map[string]bool{
		"Error": true, "Is": true, "Unwrap": true, "Format": true, "String": true, "GoString": true, "LogValue": true,
		"Option": true, "Response": true, "RetryPolicy": true,
	}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	examples := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if strings.HasSuffix(name, "_test.go") {
					if n := d.Name.Name; strings.HasPrefix(n, "Example") {
						examples[n] = true
						if i := strings.LastIndexByte(n, '_'); i > 0 && n[i+1] >= 'a' && n[i+1] <= 'z' {
							examples[n[:i]] = true // ExampleF_suffix
						}
					}
					continue
				}
				if !d.Name.IsExported() || skip[d.Name.Name] {
					continue
				}
				if d.Recv == nil {
					want = append(want, "Example"+d.Name.Name)
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					want = append(want, "Example"+id.Name+"_"+d.Name.Name)
				}
			case *ast.GenDecl:
				if strings.HasSuffix(name, "_test.go") || d.Tok != token.TYPE {
					continue
				}
				for _, spec := range d.Specs {
					if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() && !skip[ts.Name.Name] {
						want = append(want, "Example"+ts.Name.Name)
					}
				}
			}
		}
	}
	if len(want) < 30 {
		t.Fatalf("found only %d entry points; the scan is broken", len(want))
	}
	for _, w := range want {
		if !examples[w] {
			t.Errorf("no runnable example %s", w)
		}
	}
}

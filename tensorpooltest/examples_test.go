package tensorpooltest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every exported function and method of the package has a runnable Example
// (one with an Output comment): Example<Func>, Example<Type>_<Method>, with
// an optional _<suffix>.
func TestEveryEntryPointHasARunnableExample(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	runnable := map[string]bool{}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if strings.HasSuffix(name, "_test.go") {
				if strings.HasPrefix(fn.Name.Name, "Example") && hasOutput(f, fn) {
					runnable[fn.Name.Name] = true
				}
				continue
			}
			if !fn.Name.IsExported() {
				continue
			}
			entry := fn.Name.Name
			if fn.Recv != nil {
				typ := fn.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				entry = id.Name + "_" + entry
			}
			entries = append(entries, entry)
		}
	}
	if len(entries) < 20 {
		t.Fatalf("found only %d entry points: the scan is broken", len(entries))
	}
	for _, entry := range entries {
		found := false
		for ex := range runnable {
			rest, ok := strings.CutPrefix(ex, "Example"+entry)
			if ok && (rest == "" || (strings.HasPrefix(rest, "_") && len(rest) > 1 && rest[1] >= 'a' && rest[1] <= 'z')) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s has no runnable Example (Example%s with an // Output: comment)", strings.Replace(entry, "_", ".", 1), entry)
		}
	}
}

// hasOutput reports whether an Example function has an Output comment.
func hasOutput(f *ast.File, fn *ast.FuncDecl) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace {
			text := cg.Text()
			if strings.HasPrefix(text, "Output:") || strings.HasPrefix(text, "Unordered output:") {
				return true
			}
		}
	}
	return false
}

package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// nullableFields are the JSON fields of gen's models that are pointers:
// the spec allows them to be null or absent (request_id of a destroy,
// object_id, external_message).
func nullableFields(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "gen", "tensorpool.gen.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if fld, ok := n.(*ast.Field); ok && fld.Tag != nil && strings.Contains(fld.Tag.Value, `json:"`) {
			if _, ptr := fld.Type.(*ast.StarExpr); ptr {
				for _, name := range fld.Names {
					out[name.Name] = true
				}
			}
		}
		return true
	})
	return out
}

// unguardedDerefs returns, for each function of f that users read as
// documentation (Example functions, and every function of a file named
// example*), the dereferences of a nullable field with no nil comparison
// of the same expression in that function.
func unguardedDerefs(fset *token.FileSet, f *ast.File, nullable map[string]bool, all bool) []string {
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !all && !strings.HasPrefix(fn.Name.Name, "Example") {
			continue
		}
		guarded := map[string]bool{}
		var derefs []*ast.StarExpr
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if id, ok := n.Y.(*ast.Ident); ok && id.Name == "nil" && (n.Op == token.EQL || n.Op == token.NEQ) {
					guarded[types.ExprString(n.X)] = true
				}
			case *ast.StarExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && nullable[sel.Sel.Name] {
					derefs = append(derefs, n)
				}
			}
			return true
		})
		for _, s := range derefs {
			if e := types.ExprString(s.X); !guarded[e] {
				out = append(out, fset.Position(s.Pos()).String()+": *"+e)
			}
		}
	}
	return out
}

// TestNoExampleDereferencesANullableField: no Example, example file or
// program under examples/ (the README's Go blocks are such functions, see
// internal/readmecheck) dereferences a field the spec allows to be null
// without comparing it with nil first: copied as is, it would panic on a
// valid answer.
func TestNoExampleDereferencesANullableField(t *testing.T) {
	nullable := nullableFields(t)
	if !nullable["ExternalMessage"] || !nullable["ObjectID"] {
		t.Fatalf("nullable fields %v: the gen/ walk is broken", nullable)
	}
	fset, files := parseGo(t)
	checked := 0
	for rel, f := range files {
		all := strings.HasPrefix(path.Base(rel), "example") || strings.HasPrefix(rel, "examples/")
		for _, e := range unguardedDerefs(fset, f, nullable, all) {
			t.Errorf("%s: a nullable field dereferenced without a nil check", e)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("checked %d files: the walk is broken", checked)
	}
}

func TestUnguardedDerefsAreFound(t *testing.T) {
	const src = `package p
func ExampleBad() { println(*resp.JSON202.RequestID) }
func ExampleGood() {
	if resp.JSON202.RequestID == nil { return }
	println(*resp.JSON202.RequestID, *info.Status)
}
func helper() { println(*resp.JSON202.RequestID) }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	nullable := map[string]bool{"RequestID": true}
	if got := unguardedDerefs(fset, f, nullable, false); len(got) != 1 || !strings.Contains(got[0], ":2:") {
		t.Errorf("got %q, want only ExampleBad's", got)
	}
	if got := unguardedDerefs(fset, f, nullable, true); len(got) != 2 {
		t.Errorf("all functions: got %q, want ExampleBad's and helper's", got)
	}
}

// Package doccheck fails when an exported identifier of the module's
// hand-written packages has no doc comment, or when an exported function,
// method or error type of its importable packages has no runnable Example. gen/ is left out: oapi-codegen
// v2.8.2 emits a few undocumented identifiers (the ...Response wrappers and
// union MarshalJSON methods) and generated code is never edited by hand.
// It also fails on a fuzz seed corpus whose target is gone.
package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// undocumented lists the exported declarations of one Go file without a doc
// comment, as "file:line name".
func undocumented(fset *token.FileSet, f *ast.File) []string {
	var out []string
	miss := func(pos token.Pos, name string) {
		out = append(out, fset.Position(pos).String()+" "+name)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil { // methods of unexported types are not API
				t := d.Recv.List[0].Type
				if s, ok := t.(*ast.StarExpr); ok {
					t = s.X
				}
				if ix, ok := t.(*ast.IndexExpr); ok {
					t = ix.X
				}
				if id, ok := t.(*ast.Ident); ok && !id.IsExported() {
					continue
				}
			}
			miss(d.Pos(), d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
						miss(s.Pos(), s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						// A documented group (const ( ... ) under one comment) covers its members.
						if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
							miss(n.Pos(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func TestEveryExportedIdentifierIsDocumented(t *testing.T) {
	fset, files := parseGo(t, "testdata", "internal")
	checked := 0
	for p, f := range files {
		if strings.HasSuffix(p, "_test.go") || f.Name.Name == "main" {
			continue
		}
		checked++
		for _, m := range undocumented(fset, f) {
			t.Errorf("exported identifier without a doc comment: %s", m)
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d files; the walk is broken", checked)
	}
}

// parseGo parses, with comments, every .go file of the repository but
// those in gen, tools, node_modules, hidden directories and the
// directories named skip, by path relative to the root.
func parseGo(t *testing.T, skip ...string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset, files := token.NewFileSet(), map[string]*ast.File{}
	skip = append(skip, "gen", "tools", "node_modules")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || slices.Contains(skip, d.Name())):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go"):
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)], err = parser.ParseFile(fset, p, nil, parser.ParseComments)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fset, files
}

func TestUndocumentedIsFound(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", `package x
// Doc is documented.
func Doc() {}
func Bare() {}
type t struct{}
func (t) Hidden() {}
// Group is documented.
const (
	A = 1
)
var V int
`, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := undocumented(fset, f)
	if len(got) != 2 || !strings.HasSuffix(got[0], "Bare") || !strings.HasSuffix(got[1], "V") {
		t.Fatalf("undocumented = %q, want Bare and V", got)
	}
}

package doccheck

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// genPath is the package whose models' pointer fields are nullable: the
// spec allows them to be null or absent (request_id of a destroy,
// object_id, external_message).
const genPath = "github.com/tensorpool/tensorpool-go/gen"

// typeCheck type-checks the files of each package (a directory and a
// package name) against the export data go list builds, and returns what
// it learnt of every expression. Type errors are tolerated: an expression
// left untyped is not judged.
func typeCheck(t *testing.T, fset *token.FileSet, files map[string]*ast.File) *types.Info {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Export", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkgs := map[string][]*ast.File{}
	for rel, f := range files {
		key := path.Dir(rel) + " " + f.Name.Name
		pkgs[key] = append(pkgs[key], f)
	}
	for key, group := range pkgs {
		sort.Slice(group, func(i, j int) bool { return group[i].Pos() < group[j].Pos() })
		conf := types.Config{Importer: imp, Error: func(error) {}}
		_, _ = conf.Check(key, fset, group, info)
	}
	return info
}

// nullable reports whether sel selects a pointer field of one of gen's types.
func nullable(info *types.Info, sel *ast.SelectorExpr) bool {
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal || s.Obj().Pkg() == nil || s.Obj().Pkg().Path() != genPath {
		return false
	}
	_, ptr := s.Obj().Type().Underlying().(*types.Pointer)
	return ptr
}

// unguardedDerefs returns, for each function of f that users read as
// documentation (Example functions, and every function of a file named
// example*), the dereferences of a nullable field (by its type: see
// nullable) with no nil comparison of the same expression in that function.
func unguardedDerefs(fset *token.FileSet, f *ast.File, info *types.Info, all bool) []string {
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
				if sel, ok := n.X.(*ast.SelectorExpr); ok && nullable(info, sel) {
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
// valid answer. Fields are known by their type, a pointer field of gen's,
// not by name: *wait.Error's fields, say, are not gen's.
func TestNoExampleDereferencesANullableField(t *testing.T) {
	fset, files := parseGo(t)
	info := typeCheck(t, fset, files)
	checked, judged := 0, 0
	for rel, f := range files {
		all := strings.HasPrefix(path.Base(rel), "example") || strings.HasPrefix(rel, "examples/")
		for _, e := range unguardedDerefs(fset, f, info, all) {
			t.Errorf("%s: a nullable field dereferenced without a nil check", e)
		}
		checked++
	}
	for sel := range info.Selections {
		if nullable(info, sel) {
			judged++
		}
	}
	if checked < 50 || judged < 5 {
		t.Fatalf("checked %d files, %d selections of gen's pointer fields: the walk or the type check is broken", checked, judged)
	}
}

func TestUnguardedDerefsAreFound(t *testing.T) {
	dir := t.TempDir()
	src := `package x_test

import (
	"errors"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/wait"
)

var resp gen.StorageDestroyResponse

func ExampleBad() { println(*resp.JSON202.RequestID) }
func ExampleGood() {
	if resp.JSON202.RequestID == nil { return }
	println(*resp.JSON202.RequestID)
}
func ExampleNotGens() {
	var we *wait.Error
	if errors.As(nil, &we) { println(*we.Info, *we) } // a pointer field, but wait's
	var mine struct{ ObjectID *string }               // the name of a nullable field of gen's
	println(*mine.ObjectID)
}
func helper() { println(*resp.JSON202.RequestID) }
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "x_test.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := typeCheck(t, fset, map[string]*ast.File{"x_test.go": f})
	if got := unguardedDerefs(fset, f, info, false); len(got) != 1 || !strings.Contains(got[0], ":12:") {
		t.Errorf("got %q, want only ExampleBad's", got)
	}
	if got := unguardedDerefs(fset, f, info, true); len(got) != 2 {
		t.Errorf("all functions: got %q, want ExampleBad's and helper's", got)
	}
}

// Package readmecheck keeps the Go code in README.md compiled, run and true.
// Every ```go block must be, line for line (indentation and blank lines
// aside), one of these in a _test.go file of the module:
//
//   - with an "// Output:" comment: the whole body of an Example function,
//     Output comment included, so `go test` checks the output the README
//     shows;
//   - whole function declarations (signature to closing brace): each one a
//     Test or Example, or called from one in its package;
//   - otherwise: the whole body of a Test or Example function.
//
// A block can therefore not use a name it does not declare, unless it shows
// a whole function whose parameters declare it.
package readmecheck

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// normalize drops indentation and blank lines, so a README block matches a
// function whatever its nesting.
func normalize(s string) string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// fn is a function declared in a _test.go file.
type fn struct {
	pkg      string // directory and package name: a package of its own
	name     string
	where    string // file:line
	decl     string // normalized source, signature to closing brace
	body     string // normalized source between the braces
	runs     bool   // go test runs it: TestXxx(t *testing.T) or ExampleXxx() with an output comment
	example  bool   // an Example function
	calledBy []string
}

// functions parses the named Go sources (file name -> source) and returns
// their top-level functions.
func functions(srcs map[string]string) ([]*fn, error) {
	var fns []*fn
	byPkg := map[string]map[string]*fn{}
	calls := map[*fn][]string{} // the identifiers each function calls
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		src := srcs[name]
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		pkg := filepath.Dir(name) + " " + f.Name.Name
		if byPkg[pkg] == nil {
			byPkg[pkg] = map[string]*fn{}
		}
		text := func(from, to token.Pos) string {
			return src[fset.Position(from).Offset:fset.Position(to).Offset]
		}
		for _, d := range f.Decls {
			d, ok := d.(*ast.FuncDecl)
			if !ok || d.Body == nil || d.Recv != nil {
				continue
			}
			body := normalize(text(d.Body.Lbrace+1, d.Body.Rbrace))
			nparams := d.Type.Params.NumFields()
			f := &fn{
				pkg:     pkg,
				name:    d.Name.Name,
				where:   fmt.Sprintf("%s:%d", name, fset.Position(d.Pos()).Line),
				decl:    normalize(text(d.Pos(), d.End())),
				body:    body,
				example: strings.HasPrefix(d.Name.Name, "Example") && nparams == 0,
			}
			f.runs = strings.HasPrefix(d.Name.Name, "Test") && nparams == 1 ||
				f.example && regexp.MustCompile(`(?m)^// (Unordered output|Output):`).MatchString(body)
			fns = append(fns, f)
			byPkg[pkg][f.name] = f
			ast.Inspect(d.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok {
						calls[f] = append(calls[f], id.Name)
					}
				}
				return true
			})
		}
	}
	for caller, names := range calls {
		for _, n := range names {
			if callee := byPkg[caller.pkg][n]; callee != nil && caller.runs {
				callee.calledBy = append(callee.calledBy, caller.name)
			}
		}
	}
	return fns, nil
}

// check says what is wrong with a README block, or "" if it is one of the
// three forms the package documentation lists.
func check(block string, fns []*fn) string {
	want := normalize(block)
	if strings.Contains(block, "// Output:") {
		for _, f := range fns {
			if f.example && f.runs && f.body == want {
				return ""
			}
		}
		return "it shows an // Output: but is not the whole body of an Example function with that output"
	}
	if decls, ok := parseDecls(block); ok {
		for _, d := range decls {
			found := false
			for _, f := range fns {
				if f.name == d.name && f.decl == d.decl {
					found = true
					if !f.runs && len(f.calledBy) == 0 {
						return fmt.Sprintf("function %s (%s) is neither a Test or Example nor called from one", f.name, f.where)
					}
				}
			}
			if !found {
				return fmt.Sprintf("function %s is not declared so in any _test.go file", d.name)
			}
		}
		return ""
	}
	for _, f := range fns {
		if f.runs && f.body == want {
			return ""
		}
	}
	return "it is neither whole functions of a _test.go file nor the whole body of a Test or Example function"
}

// parseDecls parses a block as top-level function declarations and returns
// them; ok is false unless it parses and holds functions alone.
func parseDecls(block string) (decls []*fn, ok bool) {
	const header = "package readme\n"
	src := header + block
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "README.md", src, parser.ParseComments)
	if err != nil || len(f.Decls) == 0 {
		return nil, false
	}
	for _, d := range f.Decls {
		d, isFunc := d.(*ast.FuncDecl)
		if !isFunc {
			return nil, false
		}
		text := src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset]
		decls = append(decls, &fn{name: d.Name.Name, decl: normalize(text)})
	}
	return decls, true
}

// testSources returns every _test.go file of the module (nested modules,
// testdata and this package excluded), by path.
func testSources(t *testing.T) map[string]string {
	t.Helper()
	srcs := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || n == "tools" || n == "node_modules" || n == "readmecheck") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			srcs[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

func TestReadmeGoBlocksAreCompiledAndRun(t *testing.T) {
	readme := []byte(readRepo(t, "README.md"))
	blocks := goBlock.FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block; this check would pass vacuously")
	}
	fns, err := functions(testSources(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if why := check(string(b[1]), fns); why != "" {
			first, _, _ := strings.Cut(string(b[1]), "\n")
			t.Errorf("README block starting %q: %s", first, why)
		}
	}
}

// The check itself, on a small package: what it accepts, and that a drift
// in any form fails it.
func TestCheck(t *testing.T) {
	fns, err := functions(map[string]string{"p/x_test.go": `package p_test

func helper(n int) int { return n + 1 }

func unused() {}

func TestHelper(t *testing.T) {
	if helper(1) != 2 {
		t.Fatal("no")
	}
}

func Example() {
	fmt.Println(helper(1))
	// Output: 2
}

func Example_noOutput() {
	fmt.Println(helper(1))
}
`})
	if err != nil {
		t.Fatal(err)
	}
	for block, ok := range map[string]bool{
		"fmt.Println(helper(1))\n// Output: 2\n":           true,
		"\tfmt.Println(helper(1))\n\n\t// Output: 2\n":     true,  // indentation and blank lines aside
		"fmt.Println(helper(1))\n// Output: 3\n":           false, // the output drifted
		"fmt.Println(helper(1))\n":                         false, // the body of an Example without output: never run
		"fmt.Println(helper(2))\n// Output: 2\n":           false,
		"func helper(n int) int { return n + 1 }\n":        true, // called from TestHelper and Example
		"func helper(n int) int { return n + 2 }\n":        false,
		"func unused() {}\n":                               false, // never run
		"func undeclared() {}\n":                           false,
		"if helper(1) != 2 {\n\tt.Fatal(\"no\")\n}\n":      true, // the whole body of a Test
		"if helper(1) != 2 {\n\tt.Fatal(\"no\")\n}\nx()\n": false,
		"var x = 1\n": false,
	} {
		if got := check(block, fns) == ""; got != ok {
			t.Errorf("check(%q) passes = %t, want %t (%s)", block, got, ok, check(block, fns))
		}
	}
}

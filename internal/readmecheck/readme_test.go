// Package readmecheck keeps the Go code in README.md compiling: every ```go
// block must appear, line for line, inside a function of some _test.go file
// of the module (an Example or a test), which `go test` compiles and runs.
package readmecheck

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const root = "../.."

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// normalize drops indentation and blank lines, so a README block matches a
// function body whatever its nesting.
func normalize(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func contains(hay, needle []string) bool {
	for i := 0; i+len(needle) <= len(hay); i++ {
		ok := true
		for j := range needle {
			if hay[i+j] != needle[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// testSources returns the normalized lines of every _test.go file of the
// module (nested modules and testdata excluded).
func testSources(t *testing.T) map[string][]string {
	t.Helper()
	srcs := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || n == "tools" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") && !strings.Contains(p, "readmecheck") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			srcs[p] = normalize(string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

func TestReadmeGoBlocksAreCompiledExamples(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlock.FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block; this check would pass vacuously")
	}
	srcs := testSources(t)
	for _, b := range blocks {
		want := normalize(string(b[1]))
		found := false
		for _, src := range srcs {
			if contains(src, want) {
				found = true
				break
			}
		}
		if !found {
			first := string(bytes.SplitN(b[1], []byte("\n"), 2)[0])
			t.Errorf("README block starting %q is not in any _test.go file: copy it from (or into) an Example function", first)
		}
	}
}

func TestContainsRejectsReorderedLines(t *testing.T) {
	hay := normalize("a()\n\tb()\nc()\n")
	if !contains(hay, normalize("b()\n  c()")) || contains(hay, normalize("c()\nb()")) {
		t.Fatal("contains does not match contiguous runs exactly")
	}
}

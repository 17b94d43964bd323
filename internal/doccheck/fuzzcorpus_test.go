package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFuzzCorpusHasItsTarget: go test runs the seeds of
// testdata/fuzz/<Name> only for a fuzz target <Name> of the package in
// that directory. A corpus left behind by a renamed target never runs, and
// no test says so (FuzzNewAPIError's 16 seeds, issue 42).
func TestEveryFuzzCorpusHasItsTarget(t *testing.T) {
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".cache" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		pkg, ok := strings.CutSuffix(filepath.Dir(path), string(filepath.Separator)+filepath.Join("testdata", "fuzz"))
		if !d.IsDir() || !ok {
			return nil
		}
		n++
		target := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(d.Name()) + `\(\w+ \*testing\.F\)`)
		tests, _ := filepath.Glob(filepath.Join(pkg, "*_test.go"))
		for _, f := range tests {
			if b, err := os.ReadFile(f); err == nil && target.Match(b) {
				return filepath.SkipDir
			}
		}
		t.Errorf("%s: no fuzz target %s in %s, so go test never runs these seeds", path, d.Name(), pkg)
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no fuzz corpus found: the walk is broken")
	}
}

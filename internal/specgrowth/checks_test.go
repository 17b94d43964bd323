package specgrowth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// expectMake runs `make target` in dir and fails the test unless it passes
// (wantOK) or fails, with every want in its output.
func expectMake(t *testing.T, dir, target string, wantOK bool, why string, want ...string) {
	t.Helper()
	out, err := run(t, dir, nil, "make", target)
	if (err == nil) != wantOK {
		t.Errorf("make %s with %s: err=%v, want ok=%v:\n%s", target, why, err, wantOK, out)
		return
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("make %s with %s: output lacks %q:\n%s", target, why, w, out)
		}
	}
}

// check-generated passes on a clean tree and fails on a stale gen/ (until
// make generate) and on any file in gen/ the generator does not write,
// untracked or committed.
func TestCheckGenerated(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	expectMake(t, dir, "check-generated", true, "a clean tree")

	spec := filepath.Join(dir, "openapi.json")
	orig := string(readFile(t, spec))
	const desc = "Response model for individual request info endpoint."
	if !strings.Contains(orig, `"`+desc+`"`) {
		t.Fatalf("openapi.json no longer has the description %q: pick another one", desc)
	}
	writeFile(t, spec, strings.Replace(orig, desc, "Edited: "+desc, 1))
	expectMake(t, dir, "check-generated", false, "a description edited in openapi.json", "regenerated/gen/tensorpool.gen.go", "Edited: ")
	mustRun(t, dir, nil, "make", "generate")
	expectMake(t, dir, "check-generated", true, "the edit regenerated")
	git(t, dir, "checkout", "--", "openapi.json", "gen")

	ops := filepath.Join(dir, "internal", "operations", "operations.gen.go")
	writeFile(t, ops, strings.Replace(string(readFile(t, ops)), `Method: "POST"`, `Method: "PUT"`, 1))
	expectMake(t, dir, "check-generated", false, "the table of operations edited by hand", "regenerated/internal/operations/operations.gen.go", `Method: "PUT"`)
	git(t, dir, "checkout", "--", "internal/operations")

	writeFile(t, filepath.Join(dir, "gen", "stray.go"), "package gen\n")
	writeFile(t, filepath.Join(dir, "gen", "notes.txt"), "notes\n")
	expectMake(t, dir, "check-generated", false, "untracked extra files in gen/", "Only in gen: stray.go", "Only in gen: notes.txt")
	if err := os.Remove(filepath.Join(dir, "gen", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "gen", "stray.go"), "package gen\n\n// Helper is hand-written.\nfunc Helper() {}\n")
	commitAll(t, dir, "a hand-written file in gen")
	expectMake(t, dir, "check-generated", false, "a committed hand-written file in gen/", "Only in gen: stray.go")
}

// The checks that list files with git fail, rather than pass on nothing,
// outside a git checkout; check-format fails on an unformatted file.
func TestChecksNeedAGitCheckout(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	expectMake(t, dir, "check-format", true, "a clean tree")
	writeFile(t, filepath.Join(dir, "unformatted.go"), "package tensorpool\nvar  x = 1\n")
	expectMake(t, dir, "check-format", false, "an unformatted file", "unformatted.go")

	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "unformatted.go")); err != nil {
		t.Fatal(err)
	}
	// GIT_CEILING_DIRECTORIES: the temporary directory must not be taken for
	// part of a repository above it.
	ceiling := "GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)
	for _, target := range []string{"check-format", "check-spec-diff", "check-generated"} {
		out, err := run(t, dir, []string{ceiling}, "make", target)
		if err == nil {
			t.Errorf("make %s passes outside a git checkout:\n%s", target, out)
		}
	}
}

// check-vet vets every module with Go packages, the consumer stand-in too.
func TestCheckVetCoversEveryModule(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	writeFile(t, filepath.Join(dir, "internal", "testdata", "consumer", "vet.go"),
		"package main\n\nimport \"fmt\"\n\nfunc init() { fmt.Printf(\"%d\\n\", \"not a number\") }\n")
	expectMake(t, dir, "check-vet", false, "a vet finding in internal/testdata/consumer", "vet.go")
}

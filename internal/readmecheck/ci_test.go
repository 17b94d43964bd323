package readmecheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var firstBlock = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")

// commands returns the lines of a shell text with comments and surrounding
// blanks removed, empty ones dropped.
func commands(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, "#"); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// runsCommand reports whether script has cmd as a command line of its own.
func runsCommand(script, cmd string) bool {
	for _, l := range commands(script) {
		if l == cmd {
			return true
		}
	}
	return false
}

// The README's first code block holds the two commands a newcomer runs: the
// main job, then the test command. CI must run that test command.
func TestCIRunsTheReadmeTestCommand(t *testing.T) {
	m := firstBlock.FindSubmatch([]byte(readRepo(t, "README.md")))
	if m == nil {
		t.Fatal("README.md has no code block")
	}
	cmds := commands(string(m[1]))
	if len(cmds) != 2 {
		t.Fatalf("README.md's first code block has %d commands %q, want 2: the main job, then the test command", len(cmds), cmds)
	}
	test := cmds[1]
	if !runsCommand(readRepo(t, ".ci/run"), test) {
		t.Errorf(".ci/run does not run the README's test command %q on a line of its own", test)
	}
}

func TestRunsCommandNeedsTheExactCommand(t *testing.T) {
	for script, want := range map[string]bool{
		"set -e\nmake check\n":                true,
		"\tmake check # the README command\n": true,
		"# make check\nmake test\n":           false,
		"make check-format\n":                 false,
		"echo make check\n":                   false,
	} {
		if got := runsCommand(script, "make check"); got != want {
			t.Errorf("runsCommand(%q, \"make check\") = %v, want %v", script, got, want)
		}
	}
}

// The Go floor has one value in four places: go.mod's go line, the
// Makefile's GO_FLOOR (make check-floor), the CI matrix and the README. They
// must agree, or CI tests another floor than the one promised.
func TestGoFloorAgrees(t *testing.T) {
	read := func(name string) string { return readRepo(t, name) }
	m := regexp.MustCompile(`(?m)^go (1\.\d+)(\.\d+)?$`).FindStringSubmatch(read("go.mod"))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	lang := m[1]
	f := regexp.MustCompile(`(?m)^GO_FLOOR\s*:?=\s*(go\S+)$`).FindStringSubmatch(read("Makefile"))
	if f == nil {
		t.Fatal("the Makefile sets no GO_FLOOR")
	}
	floor := f[1]
	if !strings.HasPrefix(floor, "go"+lang+".") {
		t.Errorf("Makefile GO_FLOOR %s is not a release of go.mod's Go %s", floor, lang)
	}
	if ci := read(".github/workflows/ci.yml"); !strings.Contains(ci, "toolchain: "+floor+"+auto") {
		t.Errorf(".github/workflows/ci.yml has no matrix entry 'toolchain: %s+auto' (the Makefile's GO_FLOOR)", floor)
	}
	if !strings.Contains(read("README.md"), "Go "+lang+" or newer") {
		t.Errorf("README.md does not say %q", "Go "+lang+" or newer")
	}
}

// The README is for users and stays short enough to read; maintainer
// material lives in CONTRIBUTING.md.
func TestReadmeIsShort(t *testing.T) {
	const max = 12_000
	readme := readRepo(t, "README.md")
	if len(readme) > max {
		t.Errorf("README.md is %d bytes, more than %d: move maintainer material to CONTRIBUTING.md", len(readme), max)
	}
	if !strings.Contains(readme, "(CONTRIBUTING.md)") {
		t.Error("README.md does not link to CONTRIBUTING.md")
	}
}

// readRepo is the text of the repository file at name (slash-separated).
func readRepo(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

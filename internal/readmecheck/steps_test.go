package readmecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStepsRunsEveryStepAndEndsWithOneVerdict: scripts/steps.sh, under
// make check and make check-peers, runs every step even after one fails and
// ends its output with one verdict line naming the failed steps.
func TestStepsRunsEveryStepAndEndsWithOneVerdict(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "make")
	// A make that records each step and fails on "b".
	script := "#!/bin/sh\nstep=$(eval echo \\${$#})\necho \"$step\" >>" + filepath.Join(dir, "ran") + "\n[ \"$step\" != b ]\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(steps ...string) (string, error) {
		cmd := exec.Command(filepath.Join(root, "scripts", "steps.sh"), append([]string{"check"}, steps...)...)
		cmd.Env = append(os.Environ(), "MAKE="+fake)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	out, err := run("a", "b", "c")
	lines := strings.Split(out, "\n")
	ran, _ := os.ReadFile(filepath.Join(dir, "ran"))
	if err == nil || string(ran) != "a\nb\nc\n" || !regexp.MustCompile(`^check: FAIL: b \(1 of 3 steps failed; \d+s\)$`).MatchString(lines[len(lines)-1]) {
		t.Errorf("err %v, ran %q, output:\n%s\nwant a failure, all three steps run, and a last line naming b", err, ran, out)
	}
	out, err = run("a", "c")
	lines = strings.Split(out, "\n")
	if err != nil || !regexp.MustCompile(`^check: PASS: 2 steps in \d+s$`).MatchString(lines[len(lines)-1]) {
		t.Errorf("err %v, output:\n%s\nwant success and a PASS line last", err, out)
	}
}

// TestCheckNeedsOnlyGo: make check's steps (CHECKS) and make check-peers'
// (PEERS) are apart, and the steps that need more than Go (shellcheck,
// npm, nginx) are peers.
func TestCheckNeedsOnlyGo(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	list := func(name string) []string {
		m := regexp.MustCompile(`(?m)^` + name + ` := (.*)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("Makefile has no %s list", name)
		}
		return strings.Fields(string(m[1]))
	}
	checks, peers := list("CHECKS"), list("PEERS")
	for _, c := range checks {
		for _, p := range peers {
			if c == p {
				t.Errorf("%s is both in CHECKS and in PEERS", c)
			}
		}
		if c == "check-actions" || c == "prism" {
			t.Errorf("make check runs %s, which needs a tool beyond Go", c)
		}
	}
}

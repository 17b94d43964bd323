package readmecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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
// (PEERS) are apart, and no step of CHECKS, nor a script its recipe runs,
// calls a command that .ci/setup installs only for the peers.
func TestCheckNeedsOnlyGo(t *testing.T) {
	mk, setup := readRepo(t, "Makefile"), readRepo(t, ".ci/setup")
	list := func(name string) []string {
		m := regexp.MustCompile(`(?m)^` + name + ` := (.*)$`).FindStringSubmatch(mk)
		if m == nil {
			t.Fatalf("Makefile has no %s list", name)
		}
		return strings.Fields(m[1])
	}
	peerList := regexp.MustCompile(`(?s)\npeers=\((.*?)\n\)`).FindStringSubmatch(setup)
	if peerList == nil {
		t.Fatal(".ci/setup has no peers=( ... ) list")
	}
	var tools []string
	for _, m := range regexp.MustCompile(`(?m)^\s*([a-z]+):`).FindAllStringSubmatch(peerList[1], -1) {
		tools = append(tools, m[1])
	}
	if len(tools) < 2 {
		t.Fatalf("peers in .ci/setup: %q; the parse is broken", tools)
	}
	peers := list("PEERS")
	for _, c := range list("CHECKS") {
		if slices.Contains(peers, c) {
			t.Errorf("%s is both in CHECKS and in PEERS", c)
		}
		recipe := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c) + `:[^\n]*\n((?:\t[^\n]*\n)*)`).FindStringSubmatch(mk)
		if recipe == nil {
			t.Errorf("no recipe for %s in the Makefile", c)
			continue
		}
		text := recipe[1]
		for _, script := range regexp.MustCompile(`scripts/[a-z-]+\.sh`).FindAllString(recipe[1], -1) {
			text += readRepo(t, script)
		}
		for _, tool := range tools {
			if regexp.MustCompile(`\b` + tool + `\b`).MatchString(text) {
				t.Errorf("make check's step %s uses %s, which only make check-peers installs", c, tool)
			}
		}
	}
}

// TestStepsShowsProgress: while a step runs, steps.sh says so every
// STEPS_TICK seconds (20 by default: make check stays silent no longer).
// Not in synctest: the ticks are a shell's sleeps, in real time. None is
// guessed instead: the step (a fake make) ends once the output holds two
// progress lines, so it takes about two ticks of 0.05 s, and a loaded
// machine only makes it slower, never wrong.
func TestStepsShowsProgress(t *testing.T) {
	dir := t.TempDir()
	fake, log := filepath.Join(dir, "make"), filepath.Join(dir, "out")
	script := "#!/bin/sh\nfor _ in $(seq 1000); do\n\t[ \"$(grep -c 'still running' " + log + ")\" -ge 2 ] && exit 0\n\tsleep 0.01\ndone\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	const tick = 50 * time.Millisecond
	cmd := exec.Command(filepath.Join(root, "scripts", "steps.sh"), "check", "slow")
	cmd.Env = append(os.Environ(), "MAKE="+fake, "STEPS_TICK=0.05")
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	el := time.Since(start)
	b, _ := os.ReadFile(log)
	// two ticks at least (the fake make waits for them), and no more than one per tick
	if n, most := strings.Count(string(b), "== check: make slow: still running"), int(el/tick); err != nil || n < 2 || n > most {
		t.Errorf("err %v, %d progress lines in %v, want 2 to %d:\n%s", err, n, el, most, b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "scripts", "steps.sh")); !strings.Contains(string(b), "${STEPS_TICK:-20}") {
		t.Error("steps.sh's default tick is not 20 s")
	}
}

package specgrowth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTools returns the environment for running .ci/run with stand-ins for
// make (it records its arguments instead of running the checks), apt-get,
// sudo, gcc, npm and node, plus the given extra scripts (name -> body), and
// the file the fakes log to. git and go stay real.
func fakeTools(t *testing.T, extra map[string]string) (env []string, logFile string) {
	t.Helper()
	bin := t.TempDir()
	logFile = filepath.Join(bin, "calls.log")
	scripts := map[string]string{
		"make":    `echo "make $*" >>"$CI_FAKE_LOG"; exit "${CI_FAKE_MAKE_STATUS:-0}"`,
		"apt-get": `echo "apt-get $*" >>"$CI_FAKE_LOG"`,
		"sudo":    `exec "$@"`,
		"gcc":     `exit 0`,
		"npm":     `exit 0`,
		"node":    `echo v18.20.4`,
	}
	for name, body := range extra {
		scripts[name] = body
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "CI_FAKE_LOG=" + logFile}, logFile
}

func makeCalls(t *testing.T, logFile string) []string {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var calls []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(l, "make ") {
			calls = append(calls, l)
		}
	}
	return calls
}

// .ci/run stops early, saying why, outside a git work tree and with a Go
// older than tools/oasdiff needs.
func TestCIRunRefuses(t *testing.T) {
	skipIfSlowOrNested(t)
	ci := readFile(t, filepath.Join(repoRoot(t), ".ci", "run"))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".ci", "run"), string(ci))
	if err := os.Chmod(filepath.Join(dir, ".ci", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	env, logFile := fakeTools(t, nil)
	env = append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	out, err := run(t, dir, env, "./.ci/run")
	if err == nil || !strings.Contains(out, "is not a git work tree") {
		t.Errorf(".ci/run outside a git work tree: err=%v\n%s", err, out)
	}

	git(t, dir, "init", "-q")
	env, logFile = fakeTools(t, map[string]string{"go": `[ "$*" = "env GOVERSION" ] && echo go1.25.3`})
	out, err = run(t, dir, env, "./.ci/run")
	if err == nil || !strings.Contains(out, "go1.25.3 is too old: Go >= 1.26 is needed") {
		t.Errorf(".ci/run with Go 1.25: err=%v\n%s", err, out)
	}
	if calls := makeCalls(t, logFile); len(calls) != 0 {
		t.Errorf(".ci/run ran %q after refusing", calls)
	}
}

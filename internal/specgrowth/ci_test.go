package specgrowth

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeTools returns the environment for running .ci/run with stand-ins for
// make (it records its arguments instead of running the checks), apt-get,
// sudo and gcc, plus the given extra scripts (name -> body), and the file
// the fakes log to. git and go stay real.
func fakeTools(t *testing.T, extra map[string]string) (env []string, logFile string) {
	t.Helper()
	bin := t.TempDir()
	logFile = filepath.Join(bin, "calls.log")
	scripts := map[string]string{
		"make":    `echo "make $*" >>"$CI_FAKE_LOG"; exit "${CI_FAKE_MAKE_STATUS:-0}"`,
		"apt-get": `echo "apt-get $*" >>"$CI_FAKE_LOG"`,
		"sudo":    `exec "$@"`,
		"gcc":     `exit 0`,
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

// shallowClone makes a repository with two commits (the last one changing
// openapi.json) and returns a --depth 1 clone of it.
func shallowClone(t *testing.T) string {
	t.Helper()
	src := copyRepo(t)
	writeFile(t, filepath.Join(src, "openapi.json"), string(editSpec(t, src, addEnumValue)))
	commitAll(t, src, "new enum value")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, t.TempDir(), "clone", "-q", "--depth", "1", "file://"+src, clone)
	if got := strings.TrimSpace(git(t, clone, "rev-parse", "--is-shallow-repository")); got != "true" {
		t.Fatalf("the clone is not shallow (%s)", got)
	}
	return clone
}

const shallowWarning = "WARNING: shallow clone and 'git fetch --unshallow' failed"

// ciMakeCalls is what .ci/run runs: the README's test command, the peers, the real specs, the planted bugs.
var ciMakeCalls = []string{"make check", "make check-peers", "make check-specs", "make mutants"}

// .ci/run deepens a shallow clone so that the spec-diff gate has a base, and
// runs exactly `make check` (the README's test command), then `make check-peers`.
func TestCIRunUnshallows(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	clone := shallowClone(t)
	env, logFile := fakeTools(t, nil)
	out := mustRun(t, clone, env, "./.ci/run")
	if got := strings.TrimSpace(git(t, clone, "rev-parse", "--is-shallow-repository")); got != "false" {
		t.Errorf(".ci/run left the clone shallow:\n%s", out)
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf(".ci/run warns although it could deepen the clone:\n%s", out)
	}
	if calls := makeCalls(t, logFile); !slices.Equal(calls, ciMakeCalls) {
		t.Errorf(".ci/run ran %q, want %q", calls, ciMakeCalls)
	}
}

// When the clone cannot be deepened, .ci/run still runs the checks (we do not
// choose how CI clones) but warns before and after them, and the gate warns too.
func TestCIRunWarnsOnAShallowClone(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	clone := shallowClone(t)
	git(t, clone, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone"))
	env, logFile := fakeTools(t, nil)
	out := mustRun(t, clone, env, "./.ci/run")
	if n := strings.Count(out, shallowWarning); n != 2 {
		t.Errorf(".ci/run prints the shallow-clone warning %d times, want 2 (before and after the checks):\n%s", n, out)
	}
	if calls := makeCalls(t, logFile); !slices.Equal(calls, ciMakeCalls) {
		t.Errorf(".ci/run ran %q, want %q", calls, ciMakeCalls)
	}
	out, err := run(t, clone, append(env, "CI_FAKE_MAKE_STATUS=3"), "./.ci/run")
	if err == nil || strings.Count(out, shallowWarning) != 2 {
		t.Errorf(".ci/run with a failing make check: err=%v, want a failure and the warning twice:\n%s", err, out)
	}

	out = mustRun(t, clone, nil, "make", "check-spec-diff")
	if !strings.Contains(out, "spec-diff: WARNING: gate NOT run: shallow clone") {
		t.Errorf("check-spec-diff on a shallow clone does not warn:\n%s", out)
	}
	out = mustRun(t, clone, nil, "make", "check-api-diff")
	if !strings.Contains(out, "api-diff: WARNING: gate NOT run: shallow clone") {
		t.Errorf("check-api-diff on a shallow clone does not warn:\n%s", out)
	}
}

// .ci/run stops early, saying why, outside a git work tree and with a Go
// older than go.mod's floor.
func TestCIRunRefuses(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{".ci/run", ".ci/setup", "go.mod"} {
		writeFile(t, filepath.Join(dir, f), string(readFile(t, filepath.Join(repoRoot(t), f))))
		if err := os.Chmod(filepath.Join(dir, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env, logFile := fakeTools(t, nil)
	env = append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	out, err := run(t, dir, env, "./.ci/run")
	if err == nil || !strings.Contains(out, "is not a git work tree") {
		t.Errorf(".ci/run outside a git work tree: err=%v\n%s", err, out)
	}

	git(t, dir, "init", "-q")
	env, logFile = fakeTools(t, map[string]string{"go": `[ "$*" = "env GOVERSION" ] && echo go1.24.3`})
	out, err = run(t, dir, env, "./.ci/run")
	if err == nil || !strings.Contains(out, "go1.24.3 is too old: Go >= 1.25 is needed (go.mod)") {
		t.Errorf(".ci/run with Go 1.24 (go.mod says 1.25): err=%v\n%s", err, out)
	}
	if calls := makeCalls(t, logFile); len(calls) != 0 {
		t.Errorf(".ci/run ran %q after refusing", calls)
	}
}

// .ci/setup installs with apt-get what make check (no argument) or make
// check-peers ("peers") needs and is missing, as root or with passwordless
// sudo; otherwise it fails naming the packages and the command. The fakes
// are the whole PATH, so that npm and shellcheck are missing whatever this
// machine has.
func TestSetupInstallsPeersWhenItCan(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{".ci/setup", "go.mod"} {
		writeFile(t, filepath.Join(dir, f), string(readFile(t, filepath.Join(repoRoot(t), f))))
	}
	if err := os.Chmod(filepath.Join(dir, ".ci/setup"), 0o755); err != nil {
		t.Fatal(err)
	}
	setup := func(uid, sudo string, args ...string) (out, calls string, err error) {
		t.Helper()
		env, logFile := fakeTools(t, map[string]string{
			"id":   `echo ` + uid,
			"sudo": `echo "sudo $*" >>"$CI_FAKE_LOG"; [ "$1" = -n ] && shift; [ "$*" = true ] && exit ` + sudo + `; [ ` + sudo + ` = 0 ] && exec "$@"; exit 1`,
			"go":   `echo go1.25.0`,
			"git":  `exit 0`,
		})
		bin := filepath.Dir(logFile)
		for _, name := range []string{"bash", "dirname", "sed"} {
			p, err := exec.LookPath(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
		env[0] = "PATH=" + bin
		out, err = run(t, dir, env, "./.ci/setup", args...)
		b, _ := os.ReadFile(logFile)
		return out, string(b), err
	}

	out, calls, err := setup("0", "1")
	if err != nil || strings.Contains(calls, "apt-get") {
		t.Errorf(".ci/setup (for make check) with git, make and gcc there: err=%v, calls:\n%s\n%s", err, calls, out)
	}
	out, calls, err = setup("0", "1", "peers")
	if err != nil || !strings.Contains(calls, "apt-get install -y -qq nodejs npm shellcheck") || strings.Contains(calls, "sudo") {
		t.Errorf(".ci/setup peers as root: err=%v, want apt-get install of nodejs npm shellcheck without sudo; calls:\n%s\n%s", err, calls, out)
	}
	out, calls, err = setup("1000", "0", "peers")
	if err != nil || !strings.Contains(calls, "sudo -n apt-get install -y -qq nodejs npm shellcheck") {
		t.Errorf(".ci/setup peers with passwordless sudo: err=%v, want sudo -n apt-get install; calls:\n%s\n%s", err, calls, out)
	}
	out, calls, err = setup("1000", "1", "peers")
	if err == nil || strings.Contains(calls, "apt-get") ||
		!strings.Contains(out, "missing: npm shellcheck") || !strings.Contains(out, "sudo apt-get install nodejs npm shellcheck") {
		t.Errorf(".ci/setup peers without root or passwordless sudo: err=%v, want a failure naming the packages and the command, and no apt-get; calls:\n%s\n%s", err, calls, out)
	}
}

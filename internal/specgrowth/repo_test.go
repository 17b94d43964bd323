package specgrowth

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nestedEnv is set in the go test runs this package starts inside a copy of
// the repository, so that the copy does not copy itself again.
const nestedEnv = "TENSORPOOL_SPECGROWTH_NESTED"

func onlyInCheckSpecs(t *testing.T) {
	t.Helper()
	if os.Getenv(specsEnv) == "" {
		t.Skip("runs the pipeline in copies of the repository: make check-specs runs it (" + specsEnv + "=1)")
	}
	if os.Getenv(nestedEnv) != "" {
		t.Skip("already inside a repository copy made by this package")
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// copyRepo copies the checkout (tracked and untracked, not ignored files)
// into a temporary directory and commits it there, so scripts that look at
// git history (spec-diff) and at the file list (check-format) work on it.
func copyRepo(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	out := mustRun(t, root, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	dst := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dst, "init", "-q")
	commitAll(t, dst, "copy of the checkout")
	return dst
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return mustRun(t, dir, nil, "git", append([]string{"-c", "commit.gpgsign=false"}, args...)...)
}

func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
}

// run runs a command in dir with the test's environment (so the Go build and
// module caches, and the cached generator, are shared) plus env.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		nestedEnv+"=1",
		"GIT_AUTHOR_NAME=specgrowth", "GIT_AUTHOR_EMAIL=specgrowth@example.invalid",
		"GIT_COMMITTER_NAME=specgrowth", "GIT_COMMITTER_EMAIL=specgrowth@example.invalid",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := run(t, dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// serveSpec serves b, compacted the way a server sends it, at <url>/openapi.json
// on a loopback address.
func serveSpec(t *testing.T, b []byte) string {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/openapi.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(compact.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/openapi.json"
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// runQuickstart runs the program; with e.inProcess, in a synctest bubble,
// so the built-in engine's real-second schedule takes no wall time.
func runQuickstart(t *testing.T, e env) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e.stdout, e.stderr = &out, &errOut
	if e.stdin == nil {
		e.stdin = strings.NewReader("")
	}
	if e.inProcess {
		synctest.Test(t, func(t *testing.T) { code = run(t.Context(), e) })
	} else {
		code = run(t.Context(), e)
	}
	return code, out.String(), errOut.String()
}

// A user of TensorPool has TENSORPOOL_KEY set: without -live the demo still
// runs the built-in engine, and the API (here a stand-in that counts) sees
// nothing.
func TestQuickstartRunsTheBuiltInEngineWhateverTheEnvironment(t *testing.T) {
	var reached atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer api.Close()
	t.Setenv("TENSORPOOL_KEY", "tp-real-key")
	t.Setenv("TENSORPOOL_ENGINE", api.URL)

	code, out, errOut := runQuickstart(t, env{inProcess: true})
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the demo sent %d requests to $TENSORPOOL_ENGINE without -live", n)
	}
	for _, want := range []string{
		"Running against the built-in engine",
		"1. Attach two volumes", "req_000001   COMPLETED", "req_000002   COMPLETED", "all 2 request(s) COMPLETED",
		"409 Conflict", "tensorpool.IsStatus(err, http.StatusConflict) = true",
		"DELETE /storage/s-scratch: 202", "req_000003   COMPLETED",
		"req_000004   FAILED", "No capacity for storage in this region", "errors.Is(err, wait.ErrFailed) = true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`Done: (\d+) polls in ([\d.]+)s\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line:\n%s", out)
	}
	// The summary is the engine's count; the output shows one line a poll.
	if polls := strings.Count(out, "\n   req_"); m[1] != strconv.Itoa(polls) {
		t.Errorf("summary says %s polls, the output shows %d", m[1], polls)
	}
}

// The README's first command serves the engine on loopback, in real time
// (about 10 s); the other tests use the in-process branch.
func TestQuickstartOverLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s of real time")
	}
	code, out, errOut := runQuickstart(t, env{})
	if code != 0 || !strings.Contains(out, "all 2 request(s) COMPLETED") || !regexp.MustCompile(`Done: \d+ polls in [\d.]+s\.`).MatchString(out) {
		t.Fatalf("exit code %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
}

// The flags that name real resources mean nothing to the built-in engine:
// without -live they are refused, not ignored.
func TestQuickstartRefusesAccountFlagsWithoutLive(t *testing.T) {
	t.Setenv("TENSORPOOL_KEY", "tp-real-key")
	code, out, errOut := runQuickstart(t, env{args: []string{"-storage", "s-1", "-destroy"}})
	if code != 2 || !strings.Contains(errOut, "add -live") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestQuickstartLiveNeedsTheKeyAndIDs(t *testing.T) {
	for _, tc := range []struct {
		key  string
		args []string
		want string
	}{
		{"", []string{"-live", "-storage", "s-1", "-cluster", "c-1"}, "no API key: set TENSORPOOL_KEY"},
		{"tp-key", []string{"-live"}, "-live needs -storage"},
		{"tp-key", []string{"-live", "-storage", "s-1"}, "-live needs -storage"},
	} {
		t.Setenv("TENSORPOOL_KEY", tc.key)
		t.Setenv("TENSORPOOL_ENGINE", "http://127.0.0.1:1") // nothing listens: any request would fail otherwise
		if code, _, errOut := runQuickstart(t, env{args: tc.args}); code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q with key %q: exit %d, stderr %q; want 1 and %q", tc.args, tc.key, code, errOut, tc.want)
		}
	}
}

// liveAgainst points -live at an engine on loopback whose requests complete
// at once.
func liveAgainst(t *testing.T) *tensorpooltest.Server {
	srv := tensorpooltest.NewServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	t.Setenv("TENSORPOOL_KEY", srv.Engine.APIKey())
	t.Setenv("TENSORPOOL_ENGINE", srv.URL)
	return srv
}

func TestQuickstartLiveAsksBeforeDestroying(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		args        []string
		destroyed   bool
	}{
		{"declined", "n\n", []string{"-live", "-storage", "s-1", "-destroy"}, false},
		{"no answer", "", []string{"-live", "-storage", "s-1", "-destroy"}, false},
		{"confirmed", "y\n", []string{"-live", "-storage", "s-1", "-destroy"}, true},
		{"-yes", "", []string{"-live", "-storage", "s-1", "-destroy", "-yes"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := liveAgainst(t)
			code, out, errOut := runQuickstart(t, env{args: tc.args, stdin: strings.NewReader(tc.stdin)})
			if code != 0 {
				t.Fatalf("exit %d:\n%s%s", code, out, errOut)
			}
			_, exists := srv.Engine.Storage("s-1")
			if calls := srv.Engine.Calls("storage_destroy"); (calls == 1) != tc.destroyed || exists == tc.destroyed {
				t.Fatalf("destroy calls %d, volume still exists %t; want destroyed=%t\n%s", calls, exists, tc.destroyed, out)
			}
		})
	}
}

func TestQuickstartLiveAttachesAndWaits(t *testing.T) {
	srv := liveAgainst(t)
	code, out, errOut := runQuickstart(t, env{args: []string{"-live", "-storage", "s-1", "-cluster", "c-1"}})
	if code != 0 || !strings.Contains(out, "running against the TensorPool API") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if c, _ := srv.Engine.Cluster("c-1"); c.Storage != "s-1" {
		t.Fatalf("cluster c-1 has storage %q after the quickstart, want s-1\n%s", c.Storage, out)
	}
}

// The quickstart is a program, not a test: package tensorpooltest must give
// it the engine without linking package testing (or testing/...).
func TestQuickstartDoesNotLinkTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/tensorpool/tensorpool-go/tensorpooltest") {
		t.Fatalf("go list -deps does not list tensorpooltest:\n%s", out)
	}
	for _, p := range deps {
		if p == "testing" || strings.HasPrefix(p, "testing/") {
			t.Errorf("the quickstart links %s", p)
		}
	}
}

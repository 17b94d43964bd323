package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// runQuickstart runs the program in a synctest bubble, so its real-second
// schedule takes no wall time.
func runQuickstart(t *testing.T, e env) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e.stdout, e.stderr = &out, &errOut
	if e.getenv == nil {
		e.getenv = func(string) string { return "" }
	}
	if e.stdin == nil {
		e.stdin = strings.NewReader("")
	}
	synctest.Test(t, func(t *testing.T) {
		code = run(t.Context(), e)
	})
	return code, out.String(), errOut.String()
}

func TestQuickstartAgainstTheBuiltInEngine(t *testing.T) {
	code, out, errOut := runQuickstart(t, env{inProcess: true})
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"running against the built-in engine",
		"1. Attach two volumes", "req_000001   COMPLETED", "req_000002   COMPLETED", "all 2 request(s) COMPLETED",
		"409 Conflict", "tensorpool.IsConflict(err) = true",
		"DELETE /storage/s-scratch: 202", "req_000003   COMPLETED",
		"req_000004   FAILED", "No capacity for storage in this region", "errors.Is(err, wait.ErrFailed) = true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("piped output holds terminal escapes:\n%q", out)
	}
	m := regexp.MustCompile(`Done: (\d+) polls in ([\d.]+)s\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line:\n%s", out)
	}
	if polls := strings.Count(out, "\n   req_"); m[1] != strconv.Itoa(polls) {
		t.Errorf("summary says %s polls, progress shows %d", m[1], polls)
	}
}

func TestQuickstartAnimatesOnATerminal(t *testing.T) {
	code, out, _ := runQuickstart(t, env{inProcess: true, tty: true})
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if !strings.Contains(out, "\x1b[2K") || !strings.Contains(out, "✓ req_000001") || !strings.Contains(out, "✗ req_000004") {
		t.Fatalf("terminal output is not redrawn in place with final marks:\n%q", out)
	}
	if !strings.ContainsAny(out, strings.Join(spinner, "")) {
		t.Fatal("no spinner frame drawn")
	}
	for _, l := range strings.Split(out, "\x1b[2K")[1:] {
		if l, _, _ = strings.Cut(l, "\n"); len([]rune(l)) >= 80 {
			t.Fatalf("an animated line is %d columns wide, it would wrap on an 80-column terminal: %q", len([]rune(l)), l)
		}
		// The server message is what gets cut to fit, never the countdown.
		if i := strings.Index(l, "next poll in"); i >= 0 && !countdown.MatchString(l[i:]) {
			t.Fatalf("the countdown was cut: %q", l)
		}
	}
}

var countdown = regexp.MustCompile(`^next poll in \d+\.\ds$`)

func TestQuickstartRealModeNeedsIDs(t *testing.T) {
	code, _, errOut := runQuickstart(t, env{getenv: func(k string) string {
		return map[string]string{"TENSORPOOL_KEY": "tp-key"}[k]
	}})
	if code != 1 || !strings.Contains(errOut, "give -storage") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// realEnv points the real-API mode at an in-process engine.
func realEnv(srv *tensorpooltest.Server, args []string, stdin string) env {
	return env{
		args:  args,
		stdin: strings.NewReader(stdin),
		getenv: func(k string) string {
			return map[string]string{"TENSORPOOL_KEY": srv.Engine.APIKey(), "TENSORPOOL_ENGINE": srv.URL}[k]
		},
		httpClient: srv.HTTPClient,
	}
}

func TestQuickstartRealModeAsksBeforeDestroying(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		args        []string
		destroyed   bool
	}{
		{"declined", "n\n", []string{"-storage", "s-1", "-destroy"}, false},
		{"no answer", "", []string{"-storage", "s-1", "-destroy"}, false},
		{"confirmed", "y\n", []string{"-storage", "s-1", "-destroy"}, true},
		{"-yes", "", []string{"-storage", "s-1", "-destroy", "-yes"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *tensorpooltest.Server
			var code int
			var out bytes.Buffer
			synctest.Test(t, func(t *testing.T) {
				srv = tensorpooltest.NewInProcessServer(t)
				srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
				e := realEnv(srv, tc.args, tc.stdin)
				e.stdout, e.stderr = &out, &out
				code = run(t.Context(), e)
			})
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out.String())
			}
			_, exists := srv.Engine.Storage("s-1")
			if calls := srv.Engine.Calls("storage_destroy"); (calls == 1) != tc.destroyed || exists == tc.destroyed {
				t.Fatalf("destroy calls %d, volume still exists %t; want destroyed=%t\n%s", calls, exists, tc.destroyed, out.String())
			}
		})
	}
}

func TestQuickstartRealModeAttachesAndWaits(t *testing.T) {
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		e := realEnv(srv, []string{"-storage", "s-1", "-cluster", "c-1"}, "")
		e.stdout, e.stderr = &out, &out
		if code := run(t.Context(), e); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		if c, _ := srv.Engine.Cluster("c-1"); c.Storage != "s-1" {
			t.Fatalf("cluster c-1 has storage %q after the quickstart, want s-1\n%s", c.Storage, out.String())
		}
	})
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

// TestPollsCountedFromAttempts: the summary counts polls, not Updates; the
// Update that ends a wait without polling (ctx ended, fail-fast) repeats the
// last Attempt and adds none.
func TestPollsCountedFromAttempts(t *testing.T) {
	var d demo
	for _, u := range []wait.Update{
		{RequestID: "a", Attempt: 1}, {RequestID: "b", Attempt: 1}, {RequestID: "a", Attempt: 2},
		{RequestID: "a", Attempt: 2, Reason: wait.ReasonContext}, {RequestID: "b", Attempt: 1, Reason: wait.ReasonStopped},
	} {
		d.countPolls(u)
	}
	if got := d.pollCount(); got != 3 {
		t.Errorf("counted %d polls, want 3", got)
	}
}

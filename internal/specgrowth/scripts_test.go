package specgrowth

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// editSpec applies edit to the decoded openapi.json of dir and writes it back
// compacted (key order is lost, which update-spec must not mind).
func editSpec(t *testing.T, dir string, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "openapi.json")), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func schema(doc map[string]any, name string) map[string]any {
	return doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
}

// newStatus is a RequestStatus value upstream will never have.
const newStatus = "SPECGROWTH_NEW_STATUS"

func addEnumValue(doc map[string]any) {
	s := schema(doc, "RequestStatus")
	s["enum"] = append(s["enum"].([]any), newStatus)
}

// removeAnOperation removes the first path (in sorted order) that holds a
// single operation and that scripts/specprep's project edits do not target
// (they are strict: preparation would stop), and returns that operation as
// "METHOD /path".
func removeAnOperation(t *testing.T, doc map[string]any) string {
	edits := string(readFile(t, filepath.Join(repoRoot(t), "scripts", "specprep", "rules.go")))
	paths := doc["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		if strings.Contains(edits, "/paths/"+strings.ReplaceAll(p, "/", "~1")) {
			continue
		}
		item := paths[p].(map[string]any)
		var methods []string
		for m := range item {
			switch m {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				methods = append(methods, m)
			}
		}
		if len(methods) == 1 {
			delete(paths, p)
			return strings.ToUpper(methods[0]) + " " + p
		}
	}
	t.Fatal("openapi.json has no path with a single operation that scripts/specprep leaves alone")
	return ""
}

// make update-spec with a local file: an unchanged spec (compact, as a server
// sends it) is a no-op; a breaking one is written (it has to be judged) but
// exits 1, naming what needs a human. TestGrownSpecNeedsNoHandEdits covers a
// spec that grows (report, normal form, regeneration, checks, CHANGELOG draft).
func TestUpdateSpecFromLocalFile(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	src := filepath.Join(t.TempDir(), "upstream.json")

	var same bytes.Buffer
	if err := json.Compact(&same, readFile(t, filepath.Join(dir, "openapi.json"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, same.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, dir, nil, "make", "update-spec", "SPEC="+src)
	if !strings.Contains(out, "nothing to do") {
		t.Errorf("update-spec with the same spec (compact) did something:\n%s", out)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("update-spec with the same spec changed files:\n%s", st)
	}

	// A breaking update is written (it has to be judged) but exits 1.
	var removed string
	if err := os.WriteFile(src, editSpec(t, dir, func(doc map[string]any) { removed = removeAnOperation(t, doc) }), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+src, "SPEC_CHECKS=")
	if err == nil || !strings.Contains(out, removed+"\n\t\tapi path removed without deprecation") || !strings.Contains(out, "does not acknowledge") {
		t.Errorf("update-spec with an unacknowledged breaking change: err=%v\n%s", err, out)
	}
	method, path, _ := strings.Cut(removed, " ")
	for _, want := range []string{
		"a MAJOR bump by semver, but the module is v0 (no v1+ tag), so the next release is a MINOR bump",
		"- breaking wire change not acknowledged in openapi.acknowledged-breaking.txt: `" + method + " " + path + "`: api path removed without deprecation",
		"- incompatible Go API change not acknowledged in go-api.acknowledged-breaking.txt: gen ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("update-spec with a removed operation: output lacks %q:\n%s", want, out)
		}
	}
	if st := git(t, dir, "status", "--porcelain", "--", "openapi.json"); st == "" {
		t.Errorf("update-spec did not write a breaking spec")
	}
}

// TestUpdateSpecFailsOnABreakingWireChange: a breaking wire change that
// leaves the Go API compatible, a new required request property (a new
// struct field for Go; a request the server now refuses without it), is
// written but fails update-spec on the wire gate alone: make exits 2, the
// script having failed.
func TestUpdateSpecFailsOnABreakingWireChange(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	src := filepath.Join(t.TempDir(), "upstream.json")
	if err := os.WriteFile(src, editSpec(t, dir, func(doc map[string]any) {
		s := schema(doc, "StorageAttachRestRequest")
		s["properties"].(map[string]any)["mount_point"] = map[string]any{"type": "string", "title": "Mount Point"}
		s["required"] = append(s["required"].([]any), "mount_point")
	}), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+src, "SPEC_CHECKS=")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("make update-spec with a new required request property: err %v, want make's exit 2", err)
	}
	for _, want := range []string{
		"- breaking wire change not acknowledged in openapi.acknowledged-breaking.txt: `POST /storage/attach`: added the new required request property `mount_point`",
		"with breaking changes (above) that openapi.acknowledged-breaking.txt does not acknowledge",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("update-spec's output lacks %q", want)
		}
	}
	if strings.Contains(out, "incompatible Go API change not acknowledged") {
		t.Errorf("the Go API gate refuses the change too: the test no longer isolates the wire gate")
	}
	if st := git(t, dir, "status", "--porcelain", "--", "openapi.json"); st == "" {
		t.Errorf("update-spec did not write the breaking spec")
	}
	if t.Failed() {
		t.Logf("make update-spec:\n%s", out)
	}
}

// TestUpdateSpecFailsOnABreakingGoAPIChange: a change that breaks the Go
// API but not the wire, a value dropped from a response enum
// (RequestType's CLUSTER_EDIT: the constant gen.RequestTypeCLUSTEREDIT
// goes, which no hand-written code uses; a client receives no value it
// did not know), is written but fails update-spec on the Go API gate
// alone: make exits 2, the script having failed.
func TestUpdateSpecFailsOnABreakingGoAPIChange(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	src := filepath.Join(t.TempDir(), "upstream.json")
	if err := os.WriteFile(src, editSpec(t, dir, func(doc map[string]any) {
		s := schema(doc, "RequestType")
		s["enum"] = slices.DeleteFunc(s["enum"].([]any), func(v any) bool { return v == "CLUSTER_EDIT" })
	}), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+src, "SPEC_CHECKS=")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("make update-spec with an enum value dropped: err %v, want make's exit 2", err)
	}
	for _, want := range []string{
		"- incompatible Go API change not acknowledged in go-api.acknowledged-breaking.txt: gen RequestTypeCLUSTEREDIT: removed",
		"the regenerated gen/ breaks the Go API (above) without an acknowledgement",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("update-spec's output lacks %q", want)
		}
	}
	for _, unwanted := range []string{"breaking wire change not acknowledged", "update-spec: FAIL:"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("update-spec's output has %q: the test no longer isolates the Go API gate", unwanted)
		}
	}
	if t.Failed() {
		t.Logf("make update-spec:\n%s", out)
	}
}

// A failed download leaves everything as it was.
func TestUpdateSpecRefusesABadDownload(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>upstream is down</html>", http.StatusBadGateway)
	}))
	defer srv.Close()
	out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+srv.URL+"/openapi.json")
	if err == nil || !strings.Contains(out, "502 Bad Gateway") {
		t.Errorf("update-spec from a failing URL: err=%v, output:\n%s", err, out)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("a failed update-spec changed files:\n%s", st)
	}
}

// make spec-diff (and the CI step, check-spec-diff) fails on a breaking
// change until it is acknowledged with a reason, and lets a downgraded one
// (a new response enum value, a warning) through.
func TestSpecDiffGate(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	out := mustRun(t, dir, nil, "make", "check-spec-diff")
	if !strings.Contains(out, "nothing to compare against") {
		t.Errorf("a history with one version of openapi.json: %s", out)
	}

	// A downgraded change passes.
	spec := filepath.Join(dir, "openapi.json")
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(spec, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(editSpec(t, dir, addEnumValue))
	commitAll(t, dir, "new enum value")
	out = mustRun(t, dir, nil, "make", "check-spec-diff")
	if !strings.Contains(out, "warning\t[response-property-enum-value-added]") || !strings.Contains(out, "spec-diff: OK") {
		t.Errorf("a new response enum value is not reported as a warning that passes the gate:\n%s", out)
	}

	// A breaking one fails, in CI mode (last change vs its parent) and with BASE.
	var removed string
	write(editSpec(t, dir, func(doc map[string]any) { removed = removeAnOperation(t, doc) }))
	out, err := run(t, dir, nil, "make", "check-spec-diff") // uncommitted: vs HEAD
	change := removed + "\n\t\tapi path removed without deprecation"
	if err == nil || !strings.Contains(out, change) {
		t.Fatalf("an uncommitted breaking change passes the gate (err=%v):\n%s", err, out)
	}
	commitAll(t, dir, "breaking")
	for _, target := range [][]string{{"check-spec-diff"}, {"spec-diff", "BASE=HEAD~1"}} {
		if out, err := run(t, dir, nil, "make", target...); err == nil || !strings.Contains(out, "spec-diff: FAIL") {
			t.Errorf("make %v passes a committed breaking change:\n%s", target, out)
		}
	}

	ack := filepath.Join(dir, "openapi.acknowledged-breaking.txt")
	appendAck := func(line string) {
		t.Helper()
		f, err := os.OpenFile(ack, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	orig := readFile(t, ack)
	ackLine := removed + " api path removed without deprecation"
	appendAck(ackLine)
	if out, err := run(t, dir, nil, "make", "check-spec-diff"); err == nil || !strings.Contains(out, "needs 'reason: <why>'") {
		t.Errorf("an acknowledgement without a reason is accepted:\n%s", out)
	}
	if err := os.WriteFile(ack, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	appendAck(ackLine + " reason: test of the gate")
	out = mustRun(t, dir, nil, "make", "check-spec-diff")
	if !strings.Contains(out, "spec-diff: OK") {
		t.Errorf("an acknowledged breaking change still fails:\n%s", out)
	}
}

// make update-spec's verdict names the first real failure in one line, and
// openapi.json and gen/ move together or not at all: a spec the generator
// refuses, or whose regeneration go mod tidy cannot follow, leaves both as
// they were, naming which failed and its message; one the engine cannot
// load is written, naming the engine's error; one hand-written code no
// longer compiles against names the compile error, not the engine; one
// that only grows, with no checks, says nothing was checked, and lists the
// new operation as information; checked, it passes. A failing test fails,
// named first, and so does a failure no test names (here a panic outside
// any test, with no "--- FAIL" line). The checks of the last cases are verdictCheck,
// a make target of the copy's Makefile (and a tidy that fails, its own).
func TestUpdateSpecVerdicts(t *testing.T) {
	onlyInCheckSpecs(t)
	const verdictCheck = "\nverdict-check:\n\t$(GO) test -count=1 -run '^(TestEveryOperationAnswers|TestBrokenOnPurpose)$$' ./tensorpooltest $(wildcard ./verdict)\n"
	addPing := func(doc map[string]any) {
		doc["paths"].(map[string]any)["/specgrowth/ping"] = map[string]any{"get": map[string]any{"operationId": "ping",
			"responses": map[string]any{"200": map[string]any{"description": "pong"}}}}
	}
	for _, tc := range []struct {
		name   string
		edit   func(doc map[string]any)
		checks string            // SPEC_CHECKS
		files  map[string]string // added to the copy (the Makefile: appended)
		failed bool
		kept   bool // openapi.json and gen/ left as they were
		want   []string
	}{
		{name: "the generator refuses", edit: func(doc map[string]any) {
			op := doc["paths"].(map[string]any)["/storage/{storage_id}"].(map[string]any)["delete"].(map[string]any)
			op["parameters"] = append(op["parameters"].([]any), map[string]any{"name": "extra", "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}, failed: true, kept: true, want: []string{"update-spec: FAIL: the generator refuses the new spec:", "positional parameters", "openapi.json, gen/ and the modules' go.mod and go.sum are left as they were"}},
		{name: "go mod tidy fails", edit: addPing, files: map[string]string{
			"Makefile": "\ntidy:\n\t@echo 'go: example.invalid/gone@v1.0.0: reading example.invalid/gone/@v/v1.0.0.mod: 404 Not Found'; exit 1\n",
		}, failed: true, kept: true, want: []string{"update-spec: FAIL: go mod tidy (make tidy) fails on the regenerated gen/: go: example.invalid/gone@v1.0.0: reading", "are left as they were"}},
		{name: "the engine cannot load it", edit: func(doc map[string]any) {
			schema(doc, "StorageAttachRestResponse")["oddKeyword"] = 1 // kin-openapi's validation refuses it in an operation the engine models
		}, failed: true, want: []string{"update-spec: FAIL: the engine (tensorpooltest) cannot load the new spec:", "POST /storage/attach"}},
		{name: "hand-written code no longer compiles", edit: func(doc map[string]any) {
			renameSchema(doc, "RequestStatus", "RequestState") // gen.RequestStatus, which wait and tensorpooltest use, is gone
		}, failed: true, want: []string{"update-spec: FAIL: hand-written code no longer compiles against the new gen: ", "undefined: gen.RequestStatus"}},
		{name: "growth, unchecked", edit: addPing,
			want: []string{"== New operations: tensorpooltest answers them as the document says, no hand edit needed (1)", "- GET /specgrowth/ping\n", "nothing was checked (SPEC_CHECKS is empty)"}},
		{name: "growth, checked", edit: addPing, checks: "verdict-check", files: map[string]string{"Makefile": verdictCheck},
			want: []string{"ok  \tgithub.com/tensorpool/tensorpool-go/tensorpooltest", "make verdict-check passes"}},
		{name: "growth, checked: and a test broken on purpose", edit: addPing, checks: "verdict-check", files: map[string]string{"Makefile": verdictCheck,
			"verdict/verdict_test.go": "package verdict\n\nimport \"testing\"\n\nfunc TestBrokenOnPurpose(t *testing.T) { t.Fatal(\"broken on purpose\") }\n"},
			failed: true, want: []string{"update-spec: FAIL: TestBrokenOnPurpose fails on the new spec: "}},
		{name: "growth, checked: and a panic outside any test", edit: addPing, checks: "verdict-check", files: map[string]string{"Makefile": verdictCheck,
			"verdict/verdict_test.go": "package verdict\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) { panic(\"outside any test\") }\n"},
			failed: true, want: []string{"update-spec: FAIL: make verdict-check fails on the new spec: github.com/tensorpool/tensorpool-go/verdict: panic: outside any test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyRepo(t)
			for name, content := range tc.files {
				p := filepath.Join(dir, name)
				old, err := os.ReadFile(p)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, append(old, content...), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if len(tc.files) > 0 {
				commitAll(t, dir, "the verdict case's files")
			}
			src := filepath.Join(t.TempDir(), "upstream.json")
			if err := os.WriteFile(src, editSpec(t, dir, tc.edit), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+src, "SPEC_CHECKS="+tc.checks)
			if (err != nil) != tc.failed {
				t.Errorf("err %v, want failed=%t", err, tc.failed)
			}
			_, summary, _ := strings.Cut(out, "== Summary")
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("update-spec's output lacks %q", want)
				}
			}
			if n := strings.Count(summary, "update-spec: FAIL:"); tc.failed && n != 1 || !tc.failed && n != 0 {
				t.Errorf("the summary names %d first failures, want failed=%t", n, tc.failed)
			}
			if st := git(t, dir, "status", "--porcelain", "--", "openapi.json", "gen", "go.mod", "go.sum"); (st == "") != tc.kept {
				t.Errorf("git status of openapi.json, gen/, go.mod and go.sum: %q", st)
			}
			if t.Failed() {
				t.Logf("make update-spec:\n%s", out)
			}
		})
	}
}

// renameSchema renames the component schema from to to, and every $ref to it.
func renameSchema(doc map[string]any, from, to string) {
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	schemas[to] = schemas[from]
	delete(schemas, from)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["$ref"] == "#/components/schemas/"+from {
				v["$ref"] = "#/components/schemas/" + to
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
}

package specgrowth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

const additions = "testdata/grown/additions.json"

// collisionPrefix is put before an added path that openapi.json already has.
const collisionPrefix = "/specgrowth"

// growSpec writes, in dir, openapi.json grown by testdata/grown/additions.json:
// its paths and schemas are added where openapi.json lacks them, and its
// x-enum-additions values appended to the named enums. Building on whatever
// openapi.json is today keeps the fixture valid when upstream changes, with
// no hand edit: a path upstream has meanwhile added is added again under
// collisionPrefix. It returns the file, the operations it adds
// ("METHOD /path" -> operationId) and the enum values it adds.
func growSpec(t *testing.T, dir string) (path string, added map[string]string, enums []string) {
	t.Helper()
	root := repoRoot(t)
	var spec, add map[string]any
	for file, v := range map[string]*map[string]any{"openapi.json": &spec, additions: &add} {
		if err := json.Unmarshal(readFile(t, filepath.Join(root, file)), v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	paths, schemas := jsondoc.Get(spec, "paths"), jsondoc.Get(spec, "components", "schemas")
	for p, item := range jsondoc.Get(add, "paths") {
		if _, ok := paths[p]; ok {
			// Upstream has it now: grow anyway, under a path and with
			// operationIds that upstream will never have.
			t.Logf("openapi.json has %s now; the fixture adds it as %s", p, collisionPrefix+p)
			for _, op := range item.(map[string]any) {
				if op, ok := op.(map[string]any); ok {
					op["operationId"] = op["operationId"].(string) + "_specgrowth"
				}
			}
			p = collisionPrefix + p
		}
		paths[p] = item
	}
	for name, s := range jsondoc.Get(add, "components", "schemas") {
		if _, ok := schemas[name]; !ok {
			schemas[name] = s
		}
	}
	for name, values := range jsondoc.Get(add, "x-enum-additions") {
		s, ok := schemas[name].(map[string]any)
		if !ok {
			continue
		}
		for _, v := range values.([]any) {
			if enum, _ := s["enum"].([]any); !slices.Contains(enum, v) {
				s["enum"] = append(enum, v)
				enums = append(enums, v.(string))
			}
		}
	}
	spec["x-tensorpool-go-fixture"] = add["x-tensorpool-go-fixture"]

	path = filepath.Join(dir, "grown-openapi.json")
	writeJSON(t, path, spec)
	old := operations(t, filepath.Join(root, "openapi.json"))
	added = map[string]string{}
	for op, id := range operations(t, path) {
		if _, ok := old[op]; !ok {
			added[op] = id
		}
	}
	if len(added) == 0 {
		t.Fatalf("openapi.json already has every operation of %s: add new ones to it", additions)
	}
	return path, added, enums
}

// writeJSON writes v as a spec file is vendored: two-space indent, no HTML
// escaping, final newline.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The grown spec must be a valid 3.1 document that adds operations, or the
// growth test below proves nothing about growing.
func TestGrownSpecIsValid(t *testing.T) {
	if os.Getenv(nestedEnv) != "" {
		t.Skip("inside the growth test's copy, openapi.json is already grown")
	}
	_, added, enums := growSpec(t, t.TempDir())
	t.Logf("the grown spec adds %v and the enum values %v", sortedKeys(added), enums)
}

// TestGrownSpecNeedsNoHandEdits grows openapi.json by both fixtures at once
// (one regeneration proves both): the synthetic additions of testdata/grown
// (twenty operations of the API's docs, two response enum values) and the
// real FastAPI spec of testdata/real (multipart and form bodies, text/html,
// email/uuid/date-time formats, hyphenated operationIds, template twins). It
// serves the result on a loopback URL and runs `make update-spec` on a copy
// of the repository, with make check as the check: it must exit 0 with no
// hand edit, make check passing there (TestEveryOperationAnswers covers the
// new operations). The report must list every new endpoint, and as new
// operations, no unacknowledged breaking change; openapi.json must be
// written as served (normal form); the "Needs a human" list must name the
// new enum values, and the CHANGELOG draft them. Then testdata/grown's own
// tests, a user's, run there: a new POST's request id followed by wait, an
// unmodelled operation scripted and inspected.
func TestGrownSpecNeedsNoHandEdits(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	tmp := t.TempDir()
	grown, grownOps, enums := growSpec(t, tmp)
	spec, added := mergeRealSpec(t, grown, tmp)
	for op, id := range grownOps {
		added = append(added, fmt.Sprintf("%s (operationId %q)", op, id))
	}
	sort.Strings(added)

	dir := copyRepo(t)
	out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+serveSpec(t, readFile(t, spec)), "SPEC_CHECKS=check")
	if err != nil {
		t.Fatalf("make update-spec with the grown spec: %v\n%s", err, out)
	}
	for _, want := range []string{
		"spec-diff: OK: no unacknowledged breaking change.",
		"api-diff: OK: no unacknowledged incompatible change.",
		"update-spec: the change implies a minor version bump.",
		"check: PASS:",
		"openapi.json, gen/ and CHANGELOG.md are updated and make check passes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the update-spec output lacks %q", want)
		}
	}
	_, news, ok := strings.Cut(out, "== New operations: tensorpooltest answers them as the document says, no hand edit needed")
	news, needs, ok2 := strings.Cut(news, "== Needs a human")
	if !ok || !ok2 {
		t.Fatalf("update-spec prints no 'New operations' and 'Needs a human' lists:\n%s", out)
	}
	needs, _, _ = strings.Cut(needs, "== Summary")
	for _, op := range added {
		f := strings.Fields(op) // METHOD /path (operationId "id")
		if !strings.Contains(out, "in API "+f[0]+" "+f[1]+"\n\t\tendpoint added") {
			t.Errorf("the update-spec report does not list %s %s as an added endpoint", f[0], f[1])
		}
		if !strings.Contains(news, "- "+f[0]+" "+f[1]+"\n") {
			t.Errorf("the New operations list does not name %s %s", f[0], f[1])
		}
	}
	if got, want := readFile(t, filepath.Join(dir, "openapi.json")), readFile(t, spec); string(got) != string(want) {
		t.Errorf("update-spec wrote an openapi.json that differs from the grown spec (not in normal form?)")
	}
	if got := git(t, dir, "status", "--porcelain", "--", "gen"); got == "" {
		t.Errorf("update-spec did not regenerate gen/")
	}
	for _, v := range enums {
		if !strings.Contains(needs, "added the new `"+v+"` enum value") {
			t.Errorf("the Needs a human list does not name the new enum value %s", v)
		}
	}
	for _, bad := range []string{"no generated client method", "fails for a reason other than", "does not build", "not acknowledged"} {
		if strings.Contains(needs, bad) {
			t.Errorf("the Needs a human list has %q: a pure addition must need no hand edit", bad)
		}
	}
	_, draft, _ := strings.Cut(string(readFile(t, filepath.Join(dir, "CHANGELOG.md"))), "## [Unreleased]\n")
	draft, _, _ = strings.Cut(draft, "\n## [")
	wants := []string{"### Added", "- Go: `gen."}
	for _, v := range enums {
		wants = append(wants, "added the new `"+v+"` enum value")
	}
	for _, want := range wants {
		if !strings.Contains(draft, want) {
			t.Errorf("the CHANGELOG.md draft under [Unreleased] lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("make update-spec:\n%s", out)
	}

	// A user's tests of the new operations, which the engine does not model.
	writeFile(t, filepath.Join(dir, "tensorpooltest", "grown_test.go"), string(readFile(t, filepath.Join(dir, "testdata", "grown", "grown_test.go"))))
	mustRun(t, dir, nil, "go", "test", "-count=1", "-run", "^(TestGrownAsyncOperationWorksWithWait|ExampleEngine_Respond_unmodelled|TestEveryOperationAnswers)$", "-v", "./tensorpooltest")
}

// TestGrownSpecWithABrokenTestFails: the same sync, in a copy where one
// test is broken on purpose, exits non-zero, and its verdict names that
// test first: update-spec never says the checks pass after one failed.
func TestGrownSpecWithABrokenTestFails(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	grown, _, _ := growSpec(t, t.TempDir())
	dir := copyRepo(t)
	writeFile(t, filepath.Join(dir, "tensorpooltest", "broken_test.go"),
		"package tensorpooltest\n\nimport \"testing\"\n\nfunc TestBrokenOnPurpose(t *testing.T) { t.Fatal(\"broken on purpose\") }\n")
	commitAll(t, dir, "a test broken on purpose")
	out, err := run(t, dir, nil, "make", "update-spec", "SPEC="+grown, "SPEC_CHECKS=test")
	_, summary, _ := strings.Cut(out, "== Summary")
	first, _, _ := strings.Cut(strings.TrimSpace(summary), "\n")
	if err == nil || !strings.HasPrefix(first, "update-spec: FAIL: TestBrokenOnPurpose fails on the new spec: ") || strings.Contains(out, "passes. Review") {
		t.Errorf("err %v; the summary's first line %q, want a FAIL naming TestBrokenOnPurpose\n%s", err, first, out)
	}
}

// operations lists "METHOD /path" -> operationId for every operation of the
// OpenAPI document at path, after checking that it is a valid 3.1 document.
func operations(t *testing.T, path string) map[string]string {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("%s: openapi %q, want 3.1", path, doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("%s is not a valid OpenAPI 3.1 document: %v", path, err)
	}
	ops := map[string]string{}
	for p, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[method+" "+p] = op.OperationID
		}
	}
	return ops
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

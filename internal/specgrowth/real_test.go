package specgrowth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// realSpec is a real FastAPI-generated OpenAPI 3.1 document (see its
// README for source and license).
const realSpec = "testdata/real/study-assistant.openapi.json"

// mergeRealSpec writes, in dir, openapi.json with every path, schema and
// security scheme of realSpec added (openapi.json's own win on a name
// clash), and returns the file and the operations it adds, as the lines
// tensorpooltest's coverage test names them: METHOD /path (operationId "id").
// It reads the JSON directly: kin-openapi's validation rejects the real
// spec's template twins, which is part of what is tested.
func mergeRealSpec(t *testing.T, dir string) (string, []string) {
	t.Helper()
	root := repoRoot(t)
	var spec, real map[string]any
	for file, v := range map[string]*map[string]any{"openapi.json": &spec, realSpec: &real} {
		if err := json.Unmarshal(readFile(t, filepath.Join(root, file)), v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	obj := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			next, _ := m[k].(map[string]any)
			if next == nil {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		return m
	}
	var added []string
	paths := obj(spec, "paths")
	for p, item := range obj(real, "paths") {
		if _, ok := paths[p]; ok {
			t.Fatalf("openapi.json has %s now: pick another fixture, or prefix its paths", p)
		}
		paths[p] = item
		for method, op := range item.(map[string]any) {
			id, _ := op.(map[string]any)["operationId"].(string)
			added = append(added, fmt.Sprintf("%s %s (operationId %q)", strings.ToUpper(method), p, id))
		}
	}
	for _, section := range []string{"schemas", "securitySchemes"} {
		ours := obj(spec, "components", section)
		for name, v := range obj(real, "components", section) {
			if _, ok := ours[name]; !ok {
				ours[name] = v
			}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(spec); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "real-openapi.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sort.Strings(added)
	return path, added
}

// TestRealSpecNeedsNoHandEdits runs `make update-spec` with openapi.json
// grown by a real FastAPI spec (multipart and form bodies, text/html,
// email/uuid/date-time formats, hyphenated operationIds, template twins) on
// a copy of the repository: it must regenerate, build, vet, keep the suite
// passing (tensorpooltest loads the document and serves the seed operations;
// the coverage tests synthesise valid values for every format), and name
// every new operation in its "Needs a human" list, since none has a
// contract test.
func TestRealSpecNeedsNoHandEdits(t *testing.T) {
	skipIfSlowOrNested(t)
	merged, added := mergeRealSpec(t, t.TempDir())
	dir := copyRepo(t)
	url := serveSpec(t, readFile(t, merged))
	out := mustRun(t, dir, nil, "make", "update-spec", "SPEC="+url, "SPEC_CHECKS=")
	t.Logf("make update-spec:\n%s", out)
	_, needs, ok := strings.Cut(out, "== Needs a human")
	if !ok {
		t.Fatalf("update-spec prints no 'Needs a human' list")
	}
	needs, _, _ = strings.Cut(needs, "== Summary")
	for _, op := range added {
		if !strings.Contains(needs, "- no contract test in tensorpooltest (add cases to tensorpooltest/contract_test.go, and a handler to the engine): "+op+"\n") {
			t.Errorf("the Needs a human list does not name %s", op)
		}
	}
	for _, bad := range []string{"no generated client method", "fails for a reason other than", "does not build", "not acknowledged"} {
		if strings.Contains(needs, bad) {
			t.Errorf("the Needs a human list has %q: the real spec is a pure addition that must need no hand edit", bad)
		}
	}
	if !strings.Contains(out, "update-spec: the change implies a minor version bump.") {
		t.Errorf("adding 36 operations is not reported as a minor bump")
	}

	mustRun(t, dir, nil, "go", "build", "./...")
	mustRun(t, dir, nil, "go", "vet", ".", "./gen", "./tensorpooltest", "./wait")
	mustRun(t, dir, nil, "./scripts/check-generated.sh")
	skip := "^" + ContractCoverageTest + "$"
	if out, err := run(t, dir, nil, "go", "test", "-short", "-count=1", "-skip", skip, ".", "./tensorpooltest", "./wait", "./internal/prismpeer"); err != nil {
		t.Fatalf("with the real spec merged in, tests other than %s fail:\n%s", ContractCoverageTest, out)
	}
}

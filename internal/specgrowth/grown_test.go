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
)

// ContractCoverageTest is the name of the test (in tensorpooltest) that fails,
// naming each operation of openapi.json without a contract test. After the
// spec grows it is the only test allowed to fail, and it must name exactly
// the new operations.
const ContractCoverageTest = "TestEveryOperationHasAContractTest"

const additions = "testdata/grown/additions.json"

// collisionPrefix is put before an added path that openapi.json already has.
const collisionPrefix = "/specgrowth"

// growSpec writes, in dir, openapi.json grown by testdata/grown/additions.json:
// its paths and schemas are added where openapi.json lacks them, and its
// x-enum-additions values appended to the named enums. Building on whatever
// openapi.json is today keeps the fixture valid when upstream changes, with
// no hand edit: a path upstream has meanwhile added is added again under
// collisionPrefix. It returns the file and the operations it adds.
func growSpec(t *testing.T, dir string) (path string, added map[string]string) {
	t.Helper()
	root := repoRoot(t)
	var spec, add map[string]any
	for file, v := range map[string]*map[string]any{"openapi.json": &spec, additions: &add} {
		if err := json.Unmarshal(readFile(t, filepath.Join(root, file)), v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	obj := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			m = m[k].(map[string]any)
		}
		return m
	}
	paths, schemas := obj(spec, "paths"), obj(spec, "components", "schemas")
	for p, item := range obj(add, "paths") {
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
	for name, s := range obj(add, "components", "schemas") {
		if _, ok := schemas[name]; !ok {
			schemas[name] = s
		}
	}
	for name, values := range obj(add, "x-enum-additions") {
		s, ok := schemas[name].(map[string]any)
		if !ok {
			continue
		}
		for _, v := range values.([]any) {
			if enum, _ := s["enum"].([]any); !slices.Contains(enum, v) {
				s["enum"] = append(enum, v)
			}
		}
	}
	spec["x-tensorpool-go-fixture"] = add["x-tensorpool-go-fixture"]

	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(spec); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "grown-openapi.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
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
	return path, added
}

// The grown spec must be a valid 3.1 document that adds operations, or the
// growth test below proves nothing about growing.
func TestGrownSpecIsValid(t *testing.T) {
	if os.Getenv(nestedEnv) != "" {
		t.Skip("inside the growth test's copy, openapi.json is already grown")
	}
	_, added := growSpec(t, t.TempDir())
	t.Logf("the grown spec adds %v", sortedKeys(added))
}

// TestGrownSpecNeedsNoHandEdits serves the grown spec on a loopback URL,
// runs `make update-spec` on a copy of the repository, then builds, vets and
// tests the copy. Everything must pass except ContractCoverageTest, which
// must fail naming exactly the new operations (when it exists: it arrives
// with tensorpooltest).
func TestGrownSpecNeedsNoHandEdits(t *testing.T) {
	skipIfSlowOrNested(t)
	root := repoRoot(t)
	old := operations(t, filepath.Join(root, "openapi.json"))
	grown, added := growSpec(t, t.TempDir())

	dir := copyRepo(t)
	url := serveSpec(t, readFile(t, grown))
	out := mustRun(t, dir, nil, "make", "update-spec", "SPEC="+url, "SPEC_CHECKS=")
	t.Logf("make update-spec:\n%s", out)
	for op := range added {
		if !strings.Contains(out, "in API "+op+"\n\t\tendpoint added") {
			t.Errorf("the update-spec report does not list %q as an added endpoint", op)
		}
	}
	if !strings.Contains(out, "no unacknowledged breaking change") {
		t.Errorf("the update-spec report finds breaking changes in a pure addition")
	}
	if got, want := readFile(t, filepath.Join(dir, "openapi.json")), readFile(t, grown); string(got) != string(want) {
		t.Fatalf("update-spec wrote an openapi.json that differs from the grown spec (formatting?)")
	}
	if got := git(t, dir, "status", "--porcelain", "--", "gen"); got == "" {
		t.Fatalf("update-spec did not regenerate gen/")
	}

	// No hand edit: the module stays tidy, builds and vets.
	mustRun(t, dir, nil, "go", "mod", "tidy", "-diff")
	mustRun(t, dir, nil, "go", "build", "./...")
	mustRun(t, dir, nil, "go", "vet", "./...")
	mustRun(t, dir, nil, "./scripts/check-generated.sh")

	// Every test passes but the contract-coverage one.
	skip := "^" + ContractCoverageTest + "$"
	if out, err := run(t, dir, nil, "go", "test", "-count=1", "-skip", skip, "./..."); err != nil {
		t.Fatalf("after growing the spec, tests other than %s fail (they must not need hand edits):\n%s", ContractCoverageTest, out)
	}

	has, err := definesTest(dir, ContractCoverageTest)
	if err != nil {
		t.Fatal(err)
	}
	if !has {
		t.Logf("no %s in this checkout yet (it comes with tensorpooltest); the rest of the suite passes on the grown spec", ContractCoverageTest)
		return
	}
	out, err = run(t, dir, nil, "go", "test", "-count=1", "-run", skip, "./...")
	if err == nil {
		t.Fatalf("%s passes on a spec with %d operations that have no contract test: %v", ContractCoverageTest, len(added), sortedKeys(added))
	}
	for _, op := range sortedKeys(added) {
		if !strings.Contains(out, op) && !strings.Contains(out, added[op]) {
			t.Errorf("%s does not name the new operation %s (operationId %q)", ContractCoverageTest, op, added[op])
		}
	}
	for _, op := range sortedKeys(old) {
		if strings.Contains(out, op) {
			t.Errorf("%s names %s, which already had a contract test", ContractCoverageTest, op)
		}
	}
	if t.Failed() {
		t.Logf("%s output:\n%s", ContractCoverageTest, out)
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

// definesTest reports whether a _test.go file under dir declares func name.
func definesTest(dir, name string) (bool, error) {
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found = strings.Contains(string(b), fmt.Sprintf("func %s(", name))
		return nil
	})
	return found, err
}

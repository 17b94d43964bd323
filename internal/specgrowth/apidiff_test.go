package specgrowth

import (
	"path/filepath"
	"strings"
	"testing"
)

// replaceInFiles replaces old with new in the files of dir named by rels.
func replaceInFiles(t *testing.T, dir, old, new string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		p := filepath.Join(dir, rel)
		b := string(readFile(t, p))
		if !strings.Contains(b, old) {
			t.Fatalf("%s does not contain %q", rel, old)
		}
		writeFile(t, p, strings.ReplaceAll(b, old, new))
	}
}

// unacknowledged returns the lines api-diff prints under its
// "Incompatible changes not acknowledged" heading.
func unacknowledged(out string) []string {
	_, rest, ok := strings.Cut(out, "== Incompatible changes not acknowledged in go-api.acknowledged-breaking.txt\n")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "api-diff: ") || l == "" || l == "(none)" {
			break
		}
		lines = append(lines, l)
	}
	return lines
}

// The case: renaming the schema StorageAttachRestRequest to
// StorageAttachRequest is no wire change (oasdiff finds nothing breaking),
// but it renames the Go type every importer uses. make check-api-diff (CI
// mode: against the parent of the last commit that changed gen/) fails on
// it, naming the identifier, until each incompatible change is acknowledged
// with a reason; then make api-diff BASE=HEAD~1 (the same base, given by
// hand) passes and shows the reason.
func TestAPIDiffGateOnASchemaRename(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	const oldName, newName = "StorageAttachRestRequest", "StorageAttachRequest"
	// Only the spec: the overlay matches properties in every schema, so it
	// needs no edit (strict mode would fail generation if it did).
	replaceInFiles(t, dir, oldName, newName, "openapi.json")
	mustRun(t, dir, nil, "make", "generate")
	commitAll(t, dir, "rename a schema")

	if out := mustRun(t, dir, nil, "make", "spec-diff", "BASE=HEAD~1"); !strings.Contains(out, "spec-diff: OK") {
		t.Errorf("the rename is a wire break after all (the premise of this test):\n%s", out)
	}
	out, err := run(t, dir, nil, "make", "check-api-diff")
	if err == nil {
		t.Errorf("make check-api-diff passes a renamed Go type:\n%s", out)
	}
	for _, want := range []string{"- " + oldName + ": removed", "- " + newName + ": added", "gen " + oldName + ": removed", "api-diff: FAIL"} {
		if !strings.Contains(out, want) {
			t.Errorf("make check-api-diff: output lacks %q:\n%s", want, out)
		}
	}

	// The maintainer accepts the rename: the hand-written code follows it
	// and each change is acknowledged, copied from the report.
	var goFiles []string
	for _, rel := range strings.Split(strings.TrimSpace(git(t, dir, "grep", "-l", oldName, "--", "*.go")), "\n") {
		if !strings.HasPrefix(rel, "gen/") {
			goFiles = append(goFiles, rel)
		}
	}
	replaceInFiles(t, dir, oldName, newName, goFiles...)
	out, _ = run(t, dir, nil, "make", "api-diff", "BASE=HEAD~1")
	lines := unacknowledged(out)
	if len(lines) == 0 {
		t.Fatalf("no unacknowledged change listed:\n%s", out)
	}
	ack := filepath.Join(dir, "go-api.acknowledged-breaking.txt")
	orig := string(readFile(t, ack))
	writeFile(t, ack, orig+lines[0]+"\n")
	if out, err := run(t, dir, nil, "make", "api-diff", "BASE=HEAD~1"); err == nil || !strings.Contains(out, "needs '<package> <change> reason: <why>'") {
		t.Errorf("an acknowledgement without a reason is accepted (err=%v):\n%s", err, out)
	}
	const reason = "test of the Go API gate: the rename is wanted"
	writeFile(t, ack, orig+strings.Join(lines, " reason: "+reason+"\n")+" reason: "+reason+"\n")
	out = mustRun(t, dir, nil, "make", "api-diff", "BASE=HEAD~1")
	for _, want := range []string{"- " + oldName + ": removed (reason: " + reason + ")", "api-diff: OK"} {
		if !strings.Contains(out, want) {
			t.Errorf("with every change acknowledged, the output lacks %q:\n%s", want, out)
		}
	}
}

// A new optional property adds a field: a compatible change, reported as a
// minor bump, that passes the gate (uncommitted: CI mode compares with HEAD).
func TestAPIDiffGateOnANewOptionalProperty(t *testing.T) {
	onlyInCheckSpecs(t)
	t.Parallel()
	dir := copyRepo(t)
	if out := mustRun(t, dir, nil, "make", "check-api-diff"); !strings.Contains(out, "nothing to compare against") {
		t.Errorf("a history with one version of gen/: %s", out)
	}
	writeFile(t, filepath.Join(dir, "openapi.json"), string(editSpec(t, dir, func(doc map[string]any) {
		props := schema(doc, "StorageAttachRestRequest")["properties"].(map[string]any)
		props["note"] = map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}, "title": "Note"}
	})))
	mustRun(t, dir, nil, "make", "generate")
	out := mustRun(t, dir, nil, "make", "check-api-diff")
	for _, want := range []string{
		"uncommitted changes; comparing against HEAD",
		"- StorageAttachRestRequest.Note: added",
		"info: api-diff: 0 incompatible (0 acknowledged), 1 compatible change(s) (0 of them expected with new operations) since HEAD: on its own, the Go API change implies a minor version bump",
		"api-diff: OK",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("make check-api-diff with a new optional property: output lacks %q:\n%s", want, out)
		}
	}
}

package specgrowth

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// specsEnv runs TestRealSpecs: `make check-specs` sets it.
const specsEnv = "TENSORPOOL_SPECS"

// nullable30 acknowledges what oasdiff calls breaking in the seed once
// merge writes it into a 3.0 document: its anyOf [string, null] as 3.0's
// nullable: true, the same wire, which oasdiff reads as newly nullable.
const nullable30 = `GET /request/info/{request_id} the response property ` + "`external_message`" + ` became nullable for the status ` + "`200`" + ` reason: check-specs: the seed in 3.0's words
GET /request/info/{request_id} the response property ` + "`object_id`" + ` became nullable for the status ` + "`200`" + ` reason: check-specs: the seed in 3.0's words
DELETE /storage/{storage_id} the response property ` + "`request_id`" + ` became nullable for the status ` + "`202`" + ` reason: check-specs: the seed in 3.0's words
`

// stages are what TestRealSpecs runs on each real document, in order.
var stages = []string{"merge", "prepare", "update-spec", "build", "vet", "engine seed flow", "every operation", "tests"}

// TestRealSpecs runs the whole pipeline on each real document of
// testdata/specs (its README says where each comes from): merged with
// openapi.json's operations (merge), in a copy of the
// repository, `make update-spec` from the file (it prepares, generates,
// loads the engine and checks that gen/ and go.mod are what the pinned
// generator and go mod tidy write), then build, vet, the engine's seed flow (the
// quickstart, against the engine serving the merged document), every
// operation answered as the document says (TestEveryOperationAnswers,
// through NewClient and a raw client: its counts go in the row) and the
// project's tests. It prints one row per document: each stage's result and
// time, and update-spec's verdict.
func TestRealSpecs(t *testing.T) {
	if os.Getenv(specsEnv) == "" {
		t.Skip("make check-specs runs it (" + specsEnv + "=1)")
	}
	onlyInCheckSpecs(t)
	root := repoRoot(t)
	readme := string(readFile(t, filepath.Join(root, "testdata", "specs", "README.md")))
	sums := regexp.MustCompile(`(?m)^([0-9a-f]{64})  (\S+)$`).FindAllStringSubmatch(readme, -1)
	if len(sums) < 6 {
		t.Fatalf("testdata/specs/README.md lists %d documents with their sha256, want 6 or more", len(sums))
	}
	rows := make([]string, len(sums))
	t.Cleanup(func() {
		table := "| document | " + strings.Join(stages, " | ") + " | update-spec verdict |\n|---" + strings.Repeat("|---", len(stages)+1) + "|\n" + strings.Join(rows, "\n")
		t.Logf("\n%s", table)
		if f := os.Getenv(specsEnv + "_TABLE"); f != "" {
			_ = os.WriteFile(f, []byte(table+"\n"), 0o644)
		}
	})
	for i, sum := range sums {
		name := sum[2]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := filepath.Join(root, "testdata", "specs", name)
			if got := fmt.Sprintf("%x", sha256.Sum256(readFile(t, doc))); got != sum[1] {
				t.Fatalf("%s: sha256 %s, README says %s: a changed document is a new fixture", name, got, sum[1])
			}
			dir, tmp := copyRepo(t), t.TempDir()
			merged := filepath.Join(tmp, "merged.json")
			results := map[string]string{}
			verdict := "not run"
			defer func() {
				row := "| " + name
				for _, s := range stages {
					row += " | " + results[s]
				}
				rows[i] = row + " | " + verdict + " |"
			}()
			stage := func(stage, dir string, args ...string) (string, bool) {
				start := time.Now()
				out, err := run(t, dir, nil, args[0], args[1:]...)
				results[stage] = fmt.Sprintf("%s %.0f s", map[bool]string{true: "pass", false: "**FAIL**"}[err == nil], time.Since(start).Seconds())
				if err != nil {
					results[stage] += firstFailure(out)
					out := passed.ReplaceAllString(out, "") // what failed, not the packages that passed
					t.Errorf("%s: %v\n%s", stage, err, out[max(0, len(out)-6000):])
				}
				return out, err == nil
			}
			start := time.Now()
			b, err := merge(doc, filepath.Join(root, "openapi.json"))
			if err == nil {
				err = os.WriteFile(merged, b, 0o644)
			}
			results["merge"] = fmt.Sprintf("%s %.0f s", map[bool]string{true: "pass", false: "**FAIL**"}[err == nil], time.Since(start).Seconds())
			if err != nil {
				t.Errorf("merge: %v", err)
				return
			}
			if _, ok := stage("prepare", dir, "go", "run", "./scripts/specprep", merged, "--", "-o", filepath.Join(tmp, "prepared.json")); !ok {
				return
			}
			if strings.Contains(string(readFile(t, merged)), `"openapi": "3.0`) {
				ack, err := os.OpenFile(filepath.Join(dir, "openapi.acknowledged-breaking.txt"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = ack.WriteString(nullable30)
				if err = errors.Join(err, ack.Close()); err != nil {
					t.Fatal(err)
				}
			}
			out, updated := stage("update-spec", dir, "make", "update-spec", "SPEC="+merged, "SPEC_CHECKS=check-generated check-tidy")
			_, summary, _ := strings.Cut(out, "== Summary")
			if v := regexp.MustCompile(`(?m)^update-spec: .*$`).FindString(summary); v != "" {
				verdict = strings.ReplaceAll(v, "|", "/") // the first line: the first failure, if any
			}
			if !updated {
				return
			}
			stage("build", dir, "go", "build", "./...")
			stage("vet", dir, "go", "vet", "./...")
			if out, ok := stage("engine seed flow", dir, "go", "run", "./examples/quickstart"); ok && !strings.Contains(out, "Done:") {
				t.Errorf("the quickstart did not finish:\n%s", out)
			}
			out, _ = stage("every operation", dir, "go", "test", "-count=1", "-run", "^TestEveryOperationAnswers$", "-v", "./tensorpooltest")
			m := regexp.MustCompile(`every operation: (\d+) operations, (\d+) answered.*\((\d+) with a success\), (\d+) declared statuses reached`).FindStringSubmatch(out)
			if m == nil || m[2] == "0" { // a real document has operations the engine does not model: some must be called
				t.Errorf("TestEveryOperationAnswers called no operation of the document:\n%s", out)
			} else {
				results["every operation"] += fmt.Sprintf(": %s ops, %s answered (%s 2xx), %s statuses", m[1], m[2], m[3], m[4])
			}
			stage("tests", dir, "go", "test", "-count=1", "-skip", "^TestEveryOperationAnswers$", "./...") // it ran just above
		})
	}
}

// passed matches go test's lines for packages that passed or have no tests.
var passed = regexp.MustCompile(`(?m)^(ok|\?) +\t.*\n`)

// firstFailure names, for the table, the first test go test reports failed,
// or the first panic or build error, so one line of a CI log says what broke.
func firstFailure(out string) string {
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`),
		regexp.MustCompile(`(?m)^(panic: .*)$`),
		regexp.MustCompile(`(?m)^(\S+\.go:\d+:\d+: .*)$`),
		regexp.MustCompile(`(?m)^(FAIL\t\S+.*)$`),
	} {
		if m := re.FindStringSubmatch(out); m != nil {
			return ": " + strings.ReplaceAll(m[1], "|", "/")
		}
	}
	return ""
}

// TestFirstFailure: the table names what go test said failed first.
func TestFirstFailure(t *testing.T) {
	for out, want := range map[string]string{
		"ok  \tm/a\t0.1s\n--- FAIL: TestX (0.00s)\n    --- FAIL: TestX/sub|1 (0.00s)\nFAIL\tm/b\t0.2s\n": ": TestX",
		"panic: runtime error: nil map\n\ngoroutine 1\nFAIL\tm/b\t0.2s\n":                                ": panic: runtime error: nil map",
		"# m/b\nb/b.go:3:2: undefined: x\nFAIL\tm/b [build failed]\n":                                    ": b/b.go:3:2: undefined: x",
		"FAIL\tm/b\t0.2s\n": ": FAIL\tm/b\t0.2s",
		"signal: killed\n":  "",
	} {
		if got := firstFailure(out); got != want {
			t.Errorf("firstFailure(%q) = %q, want %q", out, got, want)
		}
	}
	if got := passed.ReplaceAllString("ok  \tm/a\t0.1s\n?   \tm/g\t[no test files]\n--- FAIL: TestX\n", ""); got != "--- FAIL: TestX\n" {
		t.Errorf("passed lines left: %q", got)
	}
}

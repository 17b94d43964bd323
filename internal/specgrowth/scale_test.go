package specgrowth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

// scaleEnv names the file TestGenerationAtScale writes its section of
// BENCHMARKS.md to: `make bench-generation` sets it, and scripts/bench.sh
// copies the file into BENCHMARKS.md.
const scaleEnv = "TENSORPOOL_GENERATION_FIGURES"

// TestGenerationAtScale measures what a user's regeneration costs on the
// largest document of testdata/specs, merged with openapi.json's operations
// and vendored in a copy of the repository: `make generate` (specprep, the
// pinned oapi-codegen, genops) and `go build ./...`, each under GNU time
// (wall time, and the largest process's peak resident memory), and the size
// of gen/. It runs them twice, each in a build cache of its own: from an
// empty one (a first build: the toolchain's packages, the dependencies and
// the generators are compiled too), and from a warm one that holds the
// repository's own generate and build (what gen imports and the generators
// cached; gen and what imports it are new).
func TestGenerationAtScale(t *testing.T) {
	out := os.Getenv(scaleEnv)
	if out == "" {
		t.Skip("make bench-generation runs it (" + scaleEnv + "=<file>)")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Fatal("GNU time is needed (Debian: apt-get install time)")
	}
	root := repoRoot(t)
	readme := string(readFile(t, filepath.Join(root, "testdata", "specs", "README.md")))
	doc, size := "", int64(0)
	for _, m := range regexp.MustCompile(`(?m)^[0-9a-f]{64}  (\S+)$`).FindAllStringSubmatch(readme, -1) {
		if info, err := os.Stat(filepath.Join(root, "testdata", "specs", m[1])); err == nil && info.Size() > size {
			doc, size = m[1], info.Size()
		}
	}
	merged, err := merge(filepath.Join(root, "testdata", "specs", doc), filepath.Join(root, "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(merged, &spec); err != nil {
		t.Fatal(err)
	}
	ops := 0
	for _, item := range jsondoc.Get(spec, "paths") {
		for method := range item.(map[string]any) {
			if method != "parameters" && method != "summary" && method != "description" && method != "servers" {
				ops++
			}
		}
	}

	load := loadAverage()
	dir := copyRepo(t)
	var env []string // GOCACHE: a new directory for each run
	timed := func(args ...string) (wall time.Duration, peakMB float64) {
		t.Helper()
		o := mustRun(t, dir, env, "/usr/bin/time", append([]string{"-v"}, args...)...)
		m := regexp.MustCompile(`Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)`).FindStringSubmatch(o)
		kb := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`).FindStringSubmatch(o)
		if m == nil || kb == nil {
			t.Fatalf("no GNU time figures in:\n%s", o)
		}
		h, _ := strconv.Atoi("0" + m[1])
		mins, _ := strconv.Atoi(m[2])
		secs, _ := strconv.ParseFloat(m[3], 64)
		k, _ := strconv.ParseFloat(kb[1], 64)
		return time.Duration((float64(h*3600+mins*60) + secs) * float64(time.Second)), k / 1024
	}
	genSize := func() (bytes int64, lines int) {
		err := filepath.Walk(filepath.Join(dir, "gen"), func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				bytes += info.Size()
				lines += strings.Count(string(readFile(t, p)), "\n")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return bytes, lines
	}

	type run struct {
		name               string
		gen, build         time.Duration
		genPeak, buildPeak float64
	}
	var runs []run
	ownBytes, ownLines := genSize()
	vendor := func() {
		if err := os.WriteFile(filepath.Join(dir, "openapi.json"), merged, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Cold: an empty cache.
	env = []string{"GOCACHE=" + t.TempDir()}
	vendor()
	r := run{name: "empty build cache"}
	r.gen, r.genPeak = timed("make", "generate")
	r.build, r.buildPeak = timed("go", "build", "./...")
	runs = append(runs, r)
	bytes, lines := genSize()
	// Warm: another cache, which the repository's own generate and build
	// fill (measured too, for scale), then the document.
	env = []string{"GOCACHE=" + t.TempDir()}
	git(t, dir, "checkout", "--", "openapi.json", "gen")
	r = run{name: "empty build cache, the repository's own openapi.json (for scale)"}
	r.gen, r.genPeak = timed("make", "generate")
	r.build, r.buildPeak = timed("go", "build", "./...")
	runs = append(runs, r)
	vendor()
	r = run{name: "warm build cache (the repository's own build)"}
	r.gen, r.genPeak = timed("make", "generate")
	r.build, r.buildPeak = timed("go", "build", "./...")
	runs = append(runs, r)

	var b strings.Builder
	fmt.Fprintf(&b, "## What does regenerating a large spec cost?\n\n")
	fmt.Fprintf(&b, "The largest document of testdata/specs, `%s` (%.1f MB), merged with openapi.json's operations (%d operations), "+
		"vendored as openapi.json in a copy of the repository: `make generate` (specprep, the pinned oapi-codegen, genops) and `go build ./...`, "+
		"each under GNU time (`/usr/bin/time -v`: wall time; peak memory is the largest process's maximum resident set size). "+
		"The empty cache is a first build (`GOCACHE` a new directory: the toolchain's packages, the dependencies and the generators are compiled too); "+
		"the warm one (another directory) already holds the repository's own `make generate` and build, so gen and what imports it are the new work. "+
		"Recorded by `make bench-generation` (TestGenerationAtScale in internal/specgrowth), not by `make bench`, which copies this section as recorded.\n\n",
		doc, float64(size)/1e6, ops)
	fmt.Fprintf(&b, "| build cache | make generate | its peak memory | go build ./... | its peak memory |\n|---|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %s | %.1f s | %.0f MB | %.1f s | %.0f MB |\n", r.name, r.gen.Seconds(), r.genPeak, r.build.Seconds(), r.buildPeak)
	}
	peak := 0.0
	for _, r := range runs {
		peak = max(peak, r.genPeak, r.buildPeak)
	}
	warm := runs[len(runs)-1].gen + runs[len(runs)-1].build
	fmt.Fprintf(&b, "\nGoals, for a user's machine (issue 41: a few minutes, 4 GB):\n\n")
	fmt.Fprintf(&b, "- no process above 4 GB: **%s** (%.0f MB at most)\n", map[bool]string{true: "met", false: "not met"}[peak <= 4096], peak)
	fmt.Fprintf(&b, "- the regeneration and build from a warm cache within 3 minutes (reported, not enforced: wall time on a shared machine): **%s** (%.0f s)\n",
		map[bool]string{true: "met", false: "not met"}[warm <= 3*time.Minute], warm.Seconds())
	if peak > 4096 {
		t.Errorf("a process peaked at %.0f MB, above 4 GB", peak)
	}
	fmt.Fprintf(&b, "\ngen/ after `make generate`: %.1f MB of Go in %d lines (the repository's own, openapi.json's operations alone: %.2f MB in %d lines).\n\n",
		float64(bytes)/1e6, lines, float64(ownBytes)/1e6, ownLines)
	fmt.Fprintf(&b, "Measured with %d cores, %s, on %s; load average before: %s. Wall times grow with the machine's load; peak memory does not.\n\n",
		runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02"), load)
	t.Logf("\n%s", b.String())
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadAverage is the last minute's load average, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// Command benchmd writes BENCHMARKS.md (the short answers: one table per
// question and the method) and BENCHMARKS-data.md (every figure, profile and
// raw result) from the output of the benchmarks in internal/benchmarks
// (`go test -bench` format) and a description of the machine. `make bench`
// runs it; see scripts/bench.sh. Given the raw results of a data file (and
// -date, -elapsed, -load-*), it renders that run again.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "BENCHMARKS-data.md", "file to write every figure, profile and raw result to")
	summary := flag.String("summary", "BENCHMARKS.md", "file to write the short answers to (it links to -o); empty: none")
	date := flag.String("date", "", "when the benchmarks ran, RFC 3339 (default: now)")
	elapsed := flag.Duration("elapsed", 0, "wall time of the whole `make bench` run")
	loadBefore := flag.String("load-before", "", "uptime(1) output before the run")
	loadAfter := flag.String("load-after", "", "uptime(1) output after the run")
	pprofFile := flag.String("pprof", "", "pprof listing of the generated client's hot path, to include")
	scalePprof := flag.String("scale-pprof", "", "pprof top of the largest scale run, to include")
	command := flag.String("command", "make bench", "the command that reproduces the run")
	flag.Parse()

	var rs []*result
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fatal(err)
		}
		rs, err = parse(f, rs)
		f.Close()
		if err != nil {
			fatal(err)
		}
	}
	if len(rs) == 0 {
		fatal(fmt.Errorf("no benchmark results in %v", flag.Args()))
	}
	listing, scaleTop := readOptional(*pprofFile), readOptional(*scalePprof)
	when := time.Now().UTC()
	if *date != "" {
		t, err := time.Parse(time.RFC3339, *date)
		if err != nil {
			fatal(err)
		}
		when = t.UTC()
	}
	m := machine{
		goVersion: goVersion(),
		cpu:       cpuModel(),
		cores:     runtime.NumCPU(),
		date:      when,
		before:    strings.TrimSpace(*loadBefore),
		after:     strings.TrimSpace(*loadAfter),
		elapsed:   *elapsed,
		command:   *command,
	}
	var buf bytes.Buffer
	write(&buf, m, rs, listing, scaleTop, filepath.Base(*summary))
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fatal(err)
	}
	if *summary != "" {
		buf.Reset()
		writeSummary(&buf, m, rs, filepath.Base(*out))
		if err := os.WriteFile(*summary, buf.Bytes(), 0o644); err != nil {
			fatal(err)
		}
	}
}

// readOptional reads a file named by a flag; "" reads nothing.
func readOptional(name string) []byte {
	if name == "" {
		return nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		fatal(err)
	}
	return b
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchmd:", err)
	os.Exit(1)
}

type machine struct {
	goVersion, cpu string
	cores          int
	date           time.Time
	before, after  string
	elapsed        time.Duration
	command        string
}

// goVersion is `go version`, or the version benchmd was built with.
func goVersion() string {
	if b, err := exec.Command("go", "version").Output(); err == nil {
		return strings.TrimSpace(string(b))
	}
	return runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown (" + runtime.GOARCH + ")"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown (" + runtime.GOARCH + ")"
}

var _ io.Writer = (*bytes.Buffer)(nil)

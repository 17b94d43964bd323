// Command benchmd writes BENCHMARKS.md from the output of the benchmarks in
// internal/benchmarks (`go test -bench` format) and a description of the
// machine. `make bench` runs it; see scripts/bench.sh.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "BENCHMARKS.md", "file to write")
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
	m := machine{
		goVersion: goVersion(),
		cpu:       cpuModel(),
		cores:     runtime.NumCPU(),
		date:      time.Now().UTC(),
		before:    strings.TrimSpace(*loadBefore),
		after:     strings.TrimSpace(*loadAfter),
		elapsed:   *elapsed,
		command:   *command,
	}
	var buf bytes.Buffer
	write(&buf, m, rs, listing, scaleTop)
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fatal(err)
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

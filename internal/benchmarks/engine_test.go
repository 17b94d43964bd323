package benchmarks

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// TestBenchEngine measures what tensorpooltest costs on the largest real
// document of testdata/specs (issue 43): New the first time a process loads
// the document (it builds and validates an answer for every response the
// document declares), New again (a document is loaded once a process), and
// one request of an operation the engine answers from the document.
func TestBenchEngine(t *testing.T) {
	w := measure(t)
	files, err := filepath.Glob("../../testdata/specs/*.*")
	if err != nil {
		t.Fatal(err)
	}
	var doc []byte
	name := ""
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && !strings.HasSuffix(f, ".md") && len(b) > len(doc) {
			doc, name = b, filepath.Base(f)
		}
	}
	e := tensorpooltest.New(tensorpooltest.WithSpec(doc))
	get := ""
	for _, op := range e.Operations() {
		if m, p, _ := strings.Cut(op, " "); m == http.MethodGet && !strings.Contains(p, "{") && !strings.Contains(op, "/request/info") {
			get = p
			break
		}
	}
	n := 0
	first := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			n++ // a comment line makes another document: the first load each time
			tensorpooltest.New(tensorpooltest.WithSpec(append([]byte(fmt.Sprintf("# %d\n", n)), doc...)))
		}
	})
	again := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			tensorpooltest.New(tensorpooltest.WithSpec(doc))
		}
	})
	answer := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			r := httptest.NewRequest(http.MethodGet, get, nil)
			r.Header.Set("Authorization", "Bearer "+e.APIKey())
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, r)
			if rec.Code/100 != 2 {
				b.Fatalf("GET %s: %d %s", get, rec.Code, bytes.TrimSpace(rec.Body.Bytes()))
			}
		}
	})
	fmt.Fprintf(w, "## What does tensorpooltest cost on a large document?\n\n")
	fmt.Fprintf(w, "The largest document of testdata/specs, `%s` (%d KiB, %d operations), in TestBenchEngine. ", name, len(doc)>>10, len(e.Operations()))
	fmt.Fprintf(w, "The first `New` in a process builds and checks an answer for every response the document declares; later ones reuse it. The request is `GET %s`, which the engine answers from the document, validated both ways.\n\n", get)
	row(w, "measure", "time", "allocations", "memory")
	row(w, "---", "---:", "---:", "---:")
	for _, r := range []struct {
		what string
		res  testing.BenchmarkResult
	}{{"`New`, first load of the document", first}, {"`New`, document loaded before", again}, {"one answered request", answer}} {
		row(w, r.what, time.Duration(r.res.NsPerOp()).Round(time.Microsecond), r.res.AllocsPerOp(), fmt.Sprintf("%d KiB", r.res.AllocedBytesPerOp()>>10))
	}
	fmt.Fprintf(w, "\n")
}

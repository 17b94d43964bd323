package synth

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestRealDocuments: over every JSON response of the nine real documents of
// testdata/specs (4,881 schemas), Value finds a value the schema accepts
// for all but the two influxdb responses whose oneOf has nested branches
// (every value of DashboardWithViewProperties is one of Dashboard too, but
// for one with an invalid extra property), and those two it names; and for
// every one of openapi.json, whatever it holds. On the first seven
// documents (2,074 schemas), libopenapi's MockGenerator (v0.42.4) found one
// for 1,910.
func TestRealDocuments(t *testing.T) {
	files, err := filepath.Glob("../../testdata/specs/*.*")
	if err != nil {
		t.Fatal(err)
	}
	total := 0 // of testdata/specs, whose files are fixed (their README has their sums)
	var missed []string
	for _, f := range append(files, "../../openapi.json") {
		if strings.HasSuffix(f, ".md") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := openapi3.NewLoader().LoadFromData(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		b := Builder{Opts: []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(Formats)}}
		if doc.IsOpenAPI31OrLater() {
			b.Opts = append(b.Opts, openapi3.EnableJSONSchema2020())
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				for code, r := range op.Responses.Map() {
					for mt, media := range r.Value.Content {
						if !strings.Contains(mt, "json") || media.Schema == nil {
							continue
						}
						if f != "../../openapi.json" {
							total++
						}
						if _, err := b.Value(media.Schema.Value, media.Example); err != nil {
							missed = append(missed, method+" "+path+" "+code)
						}
					}
				}
			}
		}
	}
	slices.Sort(missed)
	missed = slices.Compact(missed) // openapi.json may be one of them, merged (make check-specs)
	if want := []string{"GET /dashboards/{dashboardID} 200", "POST /dashboards 201"}; total != 4881 || !slices.Equal(missed, want) {
		t.Errorf("%d schemas in testdata/specs, want 4881; missed %q, want %q", total, missed, want)
	}
}

// TestPattern: a string a pattern matches, of at least the length asked.
func TestPattern(t *testing.T) {
	for _, c := range []struct {
		pattern string
		min     int
	}{{"^s-[0-9]+$", 0}, {"^[a-z]{3,5}$", 4}, {"^(cat|dog)-\\d{2}$", 0}, {"^[^/]+$", 2}, {"v\\d+\\.\\d+", 0}} {
		v, ok := fromPattern(c.pattern, c.min)
		if !ok || len(v) < c.min {
			t.Errorf("%s (at least %d): %q, %t", c.pattern, c.min, v, ok)
		}
	}
	if _, ok := fromPattern("(?=lookahead)", 0); ok {
		t.Error("a pattern RE2 cannot read gave a string")
	}
}

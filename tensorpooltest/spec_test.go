package tensorpooltest_test

import (
	"slices"
	"testing"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestOperationsAreTheSpecs(t *testing.T) {
	got := tensorpooltest.New().Operations()
	slices.Sort(got)
	var want []string
	for path, item := range loadDoc(t, tensorpool.OpenAPIDocument()).Paths.Map() {
		for method := range item.Operations() {
			want = append(want, method+" "+path)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Operations() = %q, want %q", got, want)
	}
}

func TestRoutingOutsideTheSpec(t *testing.T) {
	s := seeded(t)
	if status, _ := raw(t, s, "GET", "/nothing/here", "", ""); status != 404 {
		t.Fatalf("unknown path: %d, want 404", status)
	}
	if status, _ := raw(t, s, "PUT", "/storage/attach", "", ""); status != 405 {
		t.Fatalf("PUT /storage/attach: %d, want 405", status)
	}
}

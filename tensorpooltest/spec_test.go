package tensorpooltest_test

import (
	"slices"
	"testing"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestOperationsAreTheSpecs(t *testing.T) {
	got := tensorpooltest.New().Operations()
	slices.Sort(got)
	want := []string{"DELETE /storage/{storage_id}", "GET /request/info/{request_id}", "POST /storage/attach"}
	if !slices.Equal(got, want) {
		t.Fatalf("Operations() = %q, want %q", got, want)
	}
}

func TestRoutingOutsideTheSpec(t *testing.T) {
	s := seeded(t)
	if status, body := raw(t, s, "GET", "/storage/list", "", ""); status != 405 && status != 404 {
		t.Fatalf("GET /storage/list: %d %s", status, body)
	}
	if status, _ := raw(t, s, "GET", "/nothing/here", "", ""); status != 404 {
		t.Fatalf("unknown path: %d, want 404", status)
	}
	if status, _ := raw(t, s, "PUT", "/storage/attach", "", ""); status != 405 {
		t.Fatalf("PUT /storage/attach: %d, want 405", status)
	}
}

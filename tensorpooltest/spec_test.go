package tensorpooltest_test

import (
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
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

// The methods of one path come in a fixed order, whatever the order of Go's
// map iteration: in Operations() and in a 405's Allow header. Each
// iteration loads a different document (the engine caches by content).
func TestMethodsOfAPathInAFixedOrder(t *testing.T) {
	for i := range 20 {
		doc := specWith(t, func(doc map[string]any) {
			obj(doc["info"])["title"] = fmt.Sprintf("methods %d", i)
			item := obj(obj(doc["paths"])["/storage/{storage_id}"])
			for _, m := range []string{"get", "put", "post", "patch", "options"} {
				op := maps.Clone(obj(item["delete"]))
				op["operationId"] = "storage_" + m
				item[m] = op
			}
		})
		e := tensorpooltest.New(tensorpooltest.WithSpec(doc))
		var got []string
		for _, op := range e.Operations() {
			if strings.HasSuffix(op, " /storage/{storage_id}") {
				got = append(got, strings.Fields(op)[0])
			}
		}
		want := []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "PATCH"}
		if !slices.Equal(got, want) {
			t.Fatalf("methods of /storage/{storage_id} in Operations(): %q, want %q", got, want)
		}
		req := httptest.NewRequest("HEAD", "/storage/s-1", nil)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != 405 || !slices.Equal(w.Header().Values("Allow"), want) {
			t.Fatalf("HEAD: %d, Allow %q, want 405 and %q", w.Code, w.Header().Values("Allow"), want)
		}
	}
}

package tensorpooltest_test

import (
	"testing"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// BenchmarkRequestInfo measures one validated GET /request/info through the
// in-process transport: request and response validation with kin-openapi's
// JSON Schema 2020-12 engine dominate.
func BenchmarkRequestInfo(b *testing.B) {
	s := tensorpooltest.NewInProcessServer(b)
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	resp, err := s.RawClient.StorageDestroyWithResponse(ctx, "s-1")
	if err != nil {
		b.Fatal(err)
	}
	id := *resp.JSON202.RequestID
	for b.Loop() {
		if _, err := s.RawClient.GetRequestInfoWithResponse(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

package specgrowth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

// A spec update that adds a RequestStatus or RequestType value is downgraded
// to warn in openapi.severity-levels.txt because the client already running
// in production must decode it. This is that promise, checked against the
// generated client: unknown enum values and unknown properties decode
// without error, and Valid reports the value as unknown so that callers can
// tell (wait.Wait ends with wait.ErrUnknownStatus on it).
func TestUnknownEnumValuesDecode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/request/info/r-1" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")
		w.Write([]byte(`{"request_id":"r-1","request_type":"CLUSTER_TELEPORT","status":"HIBERNATING",
			"created_at":"2026-11-22T08:00:00Z","object_id":null,"external_message":"new",
			"progress":{"percent":40}}`))
	}))
	defer srv.Close()

	c, err := gen.NewClientWithResponses(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.GetRequestInfoWithResponse(context.Background(), "r-1")
	if err != nil {
		t.Fatalf("a response with unknown enum values fails to decode: %v", err)
	}
	info := resp.JSON200
	if info == nil {
		t.Fatalf("status %d, JSON200 is nil: %s", resp.StatusCode(), resp.Body)
	}
	if info.Status != "HIBERNATING" || info.RequestType != "CLUSTER_TELEPORT" {
		t.Errorf("decoded status %q, type %q; want the server's values kept as they are", info.Status, info.RequestType)
	}
	if info.Status.Valid() || info.RequestType.Valid() {
		t.Errorf("Valid() is true for values the spec does not list")
	}
	if !gen.RequestStatusCOMPLETED.Valid() {
		t.Errorf("Valid() is false for a listed value")
	}
	if resp.Headers200 == nil || resp.Headers200.RetryAfter == nil {
		t.Errorf("an HTTP-date Retry-After is lost")
	}
}

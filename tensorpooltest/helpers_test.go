package tensorpooltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

var ctx = context.Background()

// frontDoor makes attach, destroy and info send through the production
// Server.Client instead of RawClient (see TestContractsThroughNewClient).
// The package's tests do not run in parallel.
var frontDoor bool

func client(s *tensorpooltest.Server) *gen.ClientWithResponses {
	if frontDoor {
		return s.Client
	}
	return s.RawClient
}

// seeded returns an in-process server with clusters c-1 and c-2 and volume
// s-1, nothing attached.
func seeded(t *testing.T, opts ...tensorpooltest.Option) *tensorpooltest.Server {
	t.Helper()
	s := tensorpooltest.NewInProcessServer(t, opts...)
	s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-2"})
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	return s
}

// attach sends POST /storage/attach (through RawClient: the engine's own
// answers are under test) and fails the test on a transport error.
func attach(t *testing.T, s *tensorpooltest.Server, storageID string, clusterIDs ...string) *gen.StorageAttachResponse {
	t.Helper()
	resp, err := client(s).StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: storageID, ClusterIDs: clusterIDs})
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	return resp
}

func destroy(t *testing.T, s *tensorpooltest.Server, storageID string) *gen.StorageDestroyResponse {
	t.Helper()
	resp, err := client(s).StorageDestroyWithResponse(ctx, storageID)
	if err != nil {
		t.Fatalf("destroy: %v", err)
	}
	return resp
}

func info(t *testing.T, s *tensorpooltest.Server, requestID string) *gen.GetRequestInfoResponse {
	t.Helper()
	resp, err := client(s).GetRequestInfoWithResponse(ctx, requestID)
	if err != nil {
		t.Fatalf("request info: %v", err)
	}
	return resp
}

// raw sends a hand-built request to the server, with the engine's key unless
// the caller set an Authorization header, and returns status and body.
func raw(t *testing.T, s *tensorpooltest.Server, method, path, contentType, body string, header ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+s.Engine.APIKey())
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.HTTPClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// wantStatus fails the test when a generated response's status is not want.
func wantStatus(t *testing.T, got interface {
	StatusCode() int
	GetBody() []byte
}, want int) {
	t.Helper()
	if got.StatusCode() != want {
		t.Fatalf("status %d, want %d; body %s", got.StatusCode(), want, got.GetBody())
	}
}

// detail decodes an error body's {"detail": "..."}.
func detail(t *testing.T, body []byte) string {
	t.Helper()
	var d struct{ Detail string }
	if err := json.Unmarshal(body, &d); err != nil || d.Detail == "" {
		t.Fatalf("error body %q is not {\"detail\": \"...\"}: %v", body, err)
	}
	return d.Detail
}

// specWith returns the vendored spec changed by edit, as JSON.
func specWith(t testing.TB, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(tensorpool.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func obj(v any) map[string]any { return v.(map[string]any) }

// recordingTB is a TB that records what the engine reports instead of
// failing the test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) reported() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

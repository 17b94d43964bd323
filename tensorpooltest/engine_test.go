package tensorpooltest_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestLoopbackServerEndToEnd(t *testing.T) {
	s := tensorpooltest.NewServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
	s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	resp := attach(t, s, "s-1", "c-1")
	wantStatus(t, resp, 202)
	got := info(t, s, resp.JSON202.RequestIDs[0])
	wantStatus(t, got, 200)
	if got.JSON200.Status != gen.RequestStatusCOMPLETED {
		t.Fatalf("status %s", got.JSON200.Status)
	}
	if _, err := http.ParseTime(got.HTTPResponse.Header.Get("Date")); err != nil {
		t.Fatalf("Date header: %v", err)
	}
	if c, _ := s.Engine.Cluster("c-1"); c.Storage != "s-1" {
		t.Fatalf("cluster %+v", c)
	}
}

func TestAPIKey(t *testing.T) {
	s := seeded(t, tensorpooltest.WithAPIKey("my-key"))
	if s.Engine.APIKey() != "my-key" {
		t.Fatal(s.Engine.APIKey())
	}
	wantStatus(t, destroy(t, s, "s-1"), 202) // the client sends the configured key
	for _, h := range []string{"", "my-key", "Bearer", "Bearer ", "Bearer  my-key", "Bearer my-key ", "Bearer " + tensorpooltest.DefaultAPIKey, "Basic my-key", "Bearer my-key2"} {
		if status, _ := raw(t, s, "DELETE", "/storage/s-1", "", "", "Authorization", h); status != 403 {
			t.Errorf("Authorization %q: status %d, want 403", h, status)
		}
	}
	// The scheme is case-insensitive (RFC 9110 §11.1): past auth, an
	// unknown request id is a 404.
	for _, h := range []string{"bearer my-key", "BEARER my-key", "Bearer my-key"} {
		if status, body := raw(t, s, "GET", "/request/info/req_unknown", "", "", "Authorization", h); status != 404 {
			t.Errorf("Authorization %q: status %d %s, want 404", h, status, body)
		}
	}
}

// The engine is safe for concurrent use (run with -race).
func TestConcurrentClients(t *testing.T) {
	s := tensorpooltest.NewServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Millisecond)))
	const n = 8
	for i := range n {
		s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-" + strconv.Itoa(i)})
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-" + strconv.Itoa(i)})
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprint(i)
			resp, err := s.Client.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-" + id, ClusterIDs: []string{"c-" + id}})
			if err != nil || resp.StatusCode() != 202 {
				t.Errorf("attach %s: %v %v", id, err, resp.StatusCode())
				return
			}
			for range 3 {
				if _, err := s.Client.GetRequestInfoWithResponse(ctx, resp.JSON202.RequestIDs[0]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if s.Engine.Calls("storage_attach") != n || s.Engine.Calls("GET /request/info/{request_id}") != 3*n {
		t.Fatalf("Calls: %d attach, %d info", s.Engine.Calls("storage_attach"), s.Engine.Calls("GET /request/info/{request_id}"))
	}
}

// An empty key would let a bare "Authorization: Bearer" in; a key with
// surrounding blanks or control characters could never be sent. The panic
// does not repeat the key.
func TestWithAPIKeyRefusesKeysNoClientCanSend(t *testing.T) {
	for _, key := range []string{"", " secret", "secret ", "sec\tret", "sec\nret", "secret\x00"} {
		t.Run(strconv.Quote(key), func(t *testing.T) {
			defer func() {
				r := fmt.Sprint(recover())
				if !strings.Contains(r, "WithAPIKey: the key is empty") || (key != "" && strings.Contains(r, strings.TrimSpace(key))) {
					t.Fatalf("panic %q", r)
				}
			}()
			tensorpooltest.New(tensorpooltest.WithAPIKey(key))
		})
	}
	tensorpooltest.WithAPIKey("with inner space") // sendable: the engine cuts at the first blank only
}

// Seeding, scripting and inspecting race with nothing while requests are
// served (run with -race).
func TestConcurrentSeedingAndRequests(t *testing.T) {
	s := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Millisecond)))
	var wg sync.WaitGroup
	for i := range 4 {
		id := strconv.Itoa(i)
		s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-" + id})
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-" + id})
		wg.Go(func() { // requests
			for range 5 {
				resp, err := s.Client.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-" + id, ClusterIDs: []string{"c-" + id}})
				switch {
				case tensorpool.IsStatus(err, http.StatusConflict): // attached already, or busy
				case err != nil:
					t.Error(err)
					return
				default:
					s.Client.GetRequestInfoWithResponse(ctx, resp.JSON202.RequestIDs[0])
				}
			}
		})
		wg.Go(func() { // the test's side
			for j := range 5 {
				s.Engine.AddCluster(tensorpooltest.Cluster{ID: "x-" + id + strconv.Itoa(j)})
				s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-x" + id + strconv.Itoa(j)})
				s.Engine.Storage("s-" + id)
				s.Engine.Cluster("c-" + id)
				s.Engine.SetRetryAfter(time.Duration(j)*time.Second, tensorpooltest.RetryAfterSeconds)
				s.Engine.InjectFault("GET /request/info/{request_id}", 1, tensorpooltest.Fault{Status: 503})
				s.Engine.QueueLifecycles(tensorpooltest.Succeed(0, 0))
				s.Engine.SetLifecycle("req_000001", tensorpooltest.Succeed(0, 0))
				s.Engine.Calls("storage_attach")
				s.Engine.Violations()
			}
		})
	}
	wg.Wait()
	if n := s.Engine.Calls("storage_attach"); n != 20 {
		t.Fatalf("%d attaches, want 20", n)
	}
}

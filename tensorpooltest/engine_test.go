package tensorpooltest_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestLoopbackServerEndToEnd(t *testing.T) {
	s := tensorpooltest.NewServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
	s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	resp := attach(t, s, "s-1", "c-1")
	wantStatus(t, resp, 202)
	got := info(t, s, (*resp.JSON202.RequestIds)[0])
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

func TestQueuedLifecyclesApplyInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
		s.Engine.QueueLifecycles(
			tensorpooltest.Fail(0, time.Second, "first fails"),
			tensorpooltest.Succeed(0, 5*time.Second),
		)
		first := *destroy(t, s, "s-1").JSON202.RequestId
		second := *destroy(t, s, "s-2").JSON202.RequestId
		time.Sleep(time.Second)
		if st := info(t, s, first).JSON200.Status; st != gen.RequestStatusFAILED {
			t.Fatalf("first: %s", st)
		}
		if st := info(t, s, second).JSON200.Status; st != gen.RequestStatusPROCESSING {
			t.Fatalf("second after 1s: %s", st)
		}
		time.Sleep(4 * time.Second)
		if st := info(t, s, second).JSON200.Status; st != gen.RequestStatusCOMPLETED {
			t.Fatalf("second after 5s: %s", st)
		}
		if _, ok := s.Engine.Storage("s-1"); !ok {
			t.Fatal("the failed destroy destroyed s-1")
		}
		if _, ok := s.Engine.Storage("s-2"); ok {
			t.Fatal("the completed destroy left s-2")
		}
		// The queue is used up: the next request gets the default lifecycle.
		third := (*attach(t, s, "s-1", "c-1").JSON202.RequestIds)[0]
		if st := info(t, s, third).JSON200.Status; st != gen.RequestStatusPENDING {
			t.Fatalf("third: %s, want PENDING (default lifecycle)", st)
		}
	})
}

func TestBusyVolumeRefusesAnotherRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Second, time.Second)))
		wantStatus(t, destroy(t, s, "s-1"), 202)
		wantStatus(t, attach(t, s, "s-1", "c-1"), 409) // being destroyed: not ready
		wantStatus(t, destroy(t, s, "s-1"), 409)       // already being destroyed
		time.Sleep(2 * time.Second)
		wantStatus(t, attach(t, s, "s-1", "c-1"), 404) // gone
	})
}

func TestSetLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		id := *destroy(t, s, "s-1").JSON202.RequestId
		if !s.Engine.SetLifecycle(id, tensorpooltest.Fail(0, 2*time.Second, "changed my mind")) {
			t.Fatal("SetLifecycle on a request in flight returned false")
		}
		time.Sleep(2 * time.Second)
		if got := info(t, s, id).JSON200; got.Status != gen.RequestStatusFAILED || *got.ExternalMessage != "changed my mind" {
			t.Fatalf("request info %+v", got)
		}
		if s.Engine.SetLifecycle(id, tensorpooltest.Succeed(0, 0)) {
			t.Fatal("SetLifecycle on a terminal request returned true")
		}
		if s.Engine.SetLifecycle("req_nope", tensorpooltest.Succeed(0, 0)) {
			t.Fatal("SetLifecycle on an unknown request returned true")
		}
	})
}

func TestMalformedLifecyclesPanic(t *testing.T) {
	for name, l := range map[string]tensorpooltest.Lifecycle{
		"empty":                 nil,
		"no terminal phase":     {{Status: gen.RequestStatusPENDING, For: time.Second}},
		"terminal in the midst": {{Status: gen.RequestStatusCOMPLETED}, {Status: gen.RequestStatusFAILED}},
		"unknown status":        {{Status: "SLEEPING"}, {Status: gen.RequestStatusCOMPLETED}},
		"negative duration":     {{Status: gen.RequestStatusPENDING, For: -1}, {Status: gen.RequestStatusCOMPLETED}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tensorpooltest.New().QueueLifecycles(l)
		})
	}
}

func TestRetryAfterSecondsRoundUp(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", 1500 * time.Millisecond: "2", time.Minute: "60"} {
		s := seeded(t, tensorpooltest.WithRetryAfter(d, tensorpooltest.RetryAfterSeconds))
		id := *destroy(t, s, "s-1").JSON202.RequestId
		if got := info(t, s, id).HTTPResponse.Header.Get("Retry-After"); got != want {
			t.Errorf("Retry-After for %v = %q, want %q", d, got, want)
		}
	}
}

func TestSetRetryAfterSwitchesForm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		id := *destroy(t, s, "s-1").JSON202.RequestId
		if got := info(t, s, id).HTTPResponse.Header.Get("Retry-After"); got != "2" {
			t.Fatalf("default Retry-After %q, want \"2\"", got)
		}
		s.Engine.SetRetryAfter(7*time.Second, tensorpooltest.RetryAfterHTTPDate)
		h := info(t, s, id).HTTPResponse.Header
		ra, err := http.ParseTime(h.Get("Retry-After"))
		if err != nil || ra.Sub(time.Now().Truncate(time.Second)) != 7*time.Second {
			t.Fatalf("Retry-After %q (%v), want now+7s", h.Get("Retry-After"), err)
		}
		if v := s.Engine.Violations(); len(v) != 0 {
			t.Fatalf("the HTTP-date deviation was reported: %v", v)
		}
	})
}

func TestAPIKey(t *testing.T) {
	s := seeded(t, tensorpooltest.WithAPIKey("my-key"))
	if s.Engine.APIKey() != "my-key" {
		t.Fatal(s.Engine.APIKey())
	}
	wantStatus(t, destroy(t, s, "s-1"), 202) // the client sends the configured key
	for _, h := range []string{"", "my-key", "Bearer " + tensorpooltest.DefaultAPIKey, "Basic my-key", "Bearer my-key2"} {
		if status, _ := raw(t, s, "DELETE", "/storage/s-1", "", "", "Authorization", h); status != 403 {
			t.Errorf("Authorization %q: status %d, want 403", h, status)
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
			resp, err := s.Client.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageId: "s-" + id, ClusterIds: []string{"c-" + id}})
			if err != nil || resp.StatusCode() != 202 {
				t.Errorf("attach %s: %v %v", id, err, resp.StatusCode())
				return
			}
			for range 3 {
				if _, err := s.Client.GetRequestInfoWithResponse(ctx, (*resp.JSON202.RequestIds)[0]); err != nil {
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

func TestRetryAfterOmitted(t *testing.T) {
	s := seeded(t, tensorpooltest.WithRetryAfter(time.Second, tensorpooltest.RetryAfterOmitted))
	id := *destroy(t, s, "s-1").JSON202.RequestId
	resp := info(t, s, id)
	if resp.JSON200.Status.Valid() && resp.JSON200.Status == gen.RequestStatusPENDING {
		if _, ok := resp.HTTPResponse.Header["Retry-After"]; ok {
			t.Fatal("Retry-After sent with RetryAfterOmitted")
		}
		return
	}
	t.Fatalf("status %s, want PENDING", resp.JSON200.Status)
}

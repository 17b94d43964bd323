package tensorpooltest_test

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// Seeding keeps both sides of an attachment in step, whichever side the
// test seeds and in whatever order it replaces them.
func TestSeedingKeepsAttachmentsConsistent(t *testing.T) {
	e := tensorpooltest.New()
	e.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	e.AddCluster(tensorpooltest.Cluster{ID: "c-2"})
	e.AddStorage(tensorpooltest.Storage{ID: "s-1", AttachedTo: []string{"c-2", "c-1", "c-2"}})
	check := func(step string, wantS1 []string, wantC1, wantC2 string) {
		t.Helper()
		s, _ := e.Storage("s-1")
		c1, _ := e.Cluster("c-1")
		c2, _ := e.Cluster("c-2")
		if !slices.Equal(s.AttachedTo, wantS1) || c1.Storage != wantC1 || c2.Storage != wantC2 {
			t.Fatalf("%s: s-1 attached to %q, c-1 holds %q, c-2 holds %q; want %q, %q, %q",
				step, s.AttachedTo, c1.Storage, c2.Storage, wantS1, wantC1, wantC2)
		}
	}
	check("seeded from the volume", []string{"c-1", "c-2"}, "s-1", "s-1")

	e.AddStorage(tensorpooltest.Storage{ID: "s-1", AttachedTo: []string{"c-2"}})
	check("volume replaced", []string{"c-2"}, "", "s-1")

	e.AddCluster(tensorpooltest.Cluster{ID: "c-2"})
	check("cluster replaced without the volume", nil, "", "")

	e.AddCluster(tensorpooltest.Cluster{ID: "c-1", Storage: "s-1"})
	check("seeded from the cluster", []string{"c-1"}, "s-1", "")
}

func TestImpossibleSeedsPanic(t *testing.T) {
	for name, tc := range map[string]struct {
		seed func(e *tensorpooltest.Engine)
		want string
	}{
		"id without s-": {func(e *tensorpooltest.Engine) { e.AddStorage(tensorpooltest.Storage{ID: "vol-1"}) }, `"vol-1" does not start with "s-"`},
		"unknown cluster": {func(e *tensorpooltest.Engine) {
			e.AddStorage(tensorpooltest.Storage{ID: "s-2", AttachedTo: []string{"c-9"}})
		}, `unknown cluster "c-9"`},
		"unknown volume": {func(e *tensorpooltest.Engine) { e.AddCluster(tensorpooltest.Cluster{ID: "c-2", Storage: "s-9"}) }, `unknown storage "s-9"`},
		"two volumes, 1 cluster": {func(e *tensorpooltest.Engine) {
			e.AddStorage(tensorpooltest.Storage{ID: "s-2", AttachedTo: []string{"c-1"}})
		}, "c-1, which holds storage s-1"},
	} {
		t.Run(name, func(t *testing.T) {
			e := tensorpooltest.New()
			e.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
			e.AddStorage(tensorpooltest.Storage{ID: "s-1", AttachedTo: []string{"c-1"}})
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, tc.want) {
					t.Fatalf("panic %q, want one containing %q", r, tc.want)
				}
			}()
			tc.seed(e)
		})
	}
}

// Replacing a volume or a cluster while a request is in flight on it would
// leave that request acting on the replaced one: a test bug, reported.
func TestReplacingBusySeedsPanics(t *testing.T) {
	for name, replace := range map[string]func(s *tensorpooltest.Server){
		"volume":  func(s *tensorpooltest.Server) { s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"}) },
		"cluster": func(s *tensorpooltest.Server) { s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"}) },
	} {
		t.Run(name, func(t *testing.T) {
			s := seeded(t)
			wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, "in flight") {
					t.Fatalf("panic %q, want one about the request in flight", r)
				}
			}()
			replace(s)
		})
	}
}

// Seeding an attachment onto a side with a request in flight would leave
// the two sides out of step once the request ends: a test bug, reported.
func TestSeedingOntoBusySidesPanics(t *testing.T) {
	t.Run("volume onto a cluster being attached", func(t *testing.T) {
		s := seeded(t)
		wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
		defer wantPanic(t, "in flight")
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2", AttachedTo: []string{"c-1"}})
	})
	t.Run("cluster onto a volume being destroyed", func(t *testing.T) {
		s := seeded(t)
		wantStatus(t, destroy(t, s, "s-1"), 202)
		defer wantPanic(t, "in flight")
		s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-9", Storage: "s-1"})
	})
}

// wantPanic, deferred, fails the test unless it panicked with a message
// containing want.
func wantPanic(t *testing.T, want string) {
	t.Helper()
	r := recover()
	msg, _ := r.(string)
	if err, ok := r.(error); ok {
		msg = err.Error()
	}
	if r == nil || !strings.Contains(msg, want) {
		t.Fatalf("panic %v, want one containing %q", r, want)
	}
}

// multiClusterSpec is the vendored spec with attach's one-cluster limit
// lifted, as a bigger upstream spec might ("Cluster ID(s)").
func multiClusterSpec(t *testing.T) tensorpooltest.Option {
	return tensorpooltest.WithSpec(specWith(t, func(doc map[string]any) {
		ids := obj(obj(obj(obj(doc["components"])["schemas"])["StorageAttachRestRequest"])["properties"])["cluster_ids"]
		delete(obj(ids), "maxItems")
	}))
}

// A volume attached to two clusters at once stays busy until both requests
// end, not just the first.
func TestMultiClusterAttachKeepsTheVolumeBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t, multiClusterSpec(t))
		s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-3"})
		s.Engine.QueueLifecycles(tensorpooltest.Succeed(0, time.Second), tensorpooltest.Succeed(0, 5*time.Second))
		wantStatus(t, attach(t, s, "s-1", "c-1", "c-2"), 202)
		time.Sleep(time.Second)
		wantStatus(t, attach(t, s, "s-1", "c-3"), 409) // the attach to c-2 is in flight
		time.Sleep(4 * time.Second)
		if v, _ := s.Engine.Storage("s-1"); !slices.Equal(v.AttachedTo, []string{"c-1", "c-2"}) {
			t.Fatalf("s-1 attached to %q", v.AttachedTo)
		}
		wantStatus(t, attach(t, s, "s-1", "c-3"), 202)
	})
}

func TestAttachListingAClusterTwiceIsInvalid(t *testing.T) {
	s := seeded(t, multiClusterSpec(t))
	resp := attach(t, s, "s-1", "c-1", "c-1")
	wantStatus(t, resp, 400)
	if d := detail(t, resp.Body); !strings.Contains(d, "c-1 listed twice") {
		t.Fatalf("detail %q", d)
	}
}

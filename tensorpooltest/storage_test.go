package tensorpooltest_test

import (
	"slices"
	"strings"
	"testing"

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

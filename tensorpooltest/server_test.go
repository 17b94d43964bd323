package tensorpooltest_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// lifeTB is a TB with a lifetime like a *testing.T's: end runs its cleanups,
// and a report after that panics, as testing's "Log in goroutine after Test
// has completed" does.
type lifeTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	ended    bool
	errors   []string
}

func (l *lifeTB) Cleanup(f func()) { l.cleanups = append(l.cleanups, f) }

func (l *lifeTB) Errorf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		panic("Log in goroutine after Test has completed: " + fmt.Sprintf(format, args...))
	}
	l.errors = append(l.errors, fmt.Sprintf(format, args...))
}

func (l *lifeTB) end() {
	for i := len(l.cleanups) - 1; i >= 0; i-- {
		l.cleanups[i]()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = true
}

func (l *lifeTB) reported() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errors...)
}

// nonConforming makes every 202 of DELETE /storage/{id} a violation.
func nonConforming(t *testing.T) tensorpooltest.Option {
	return tensorpooltest.WithSpec(specWith(t, func(doc map[string]any) {
		schema := obj(obj(obj(doc["components"])["schemas"])["StorageDestroyRestResponse"])
		schema["required"] = append(schema["required"].([]any), "not_sent")
	}))
}

// A request that outlives the test (here: a client used after the test
// ended) must not report through the finished test; its violation is kept.
func TestViolationsAfterTheTestAreKeptNotReported(t *testing.T) {
	tb := &lifeTB{TB: t}
	s := tensorpooltest.NewInProcessServer(tb, nonConforming(t))
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
	wantStatus(t, destroy(t, s, "s-1"), 202)
	if got := tb.reported(); len(got) != 1 || !strings.Contains(got[0], "not_sent") {
		t.Fatalf("reported during the test: %q, want the violation", got)
	}
	tb.end()
	wantStatus(t, destroy(t, s, "s-2"), 202) // would panic in Errorf
	if n := len(s.Engine.Violations()); n != 2 {
		t.Fatalf("%d violations kept, want 2", n)
	}
	if n := len(tb.reported()); n != 1 {
		t.Fatalf("%d reported, want 1", n)
	}
}

// NewServer's cleanup waits for a request in flight; its violation still
// fails the test.
func TestViolationsOfRequestsInFlightAtTheEndAreReported(t *testing.T) {
	tb := &lifeTB{TB: t}
	s := tensorpooltest.NewServer(tb, nonConforming(t))
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	s.Engine.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Latency: 200 * time.Millisecond})
	var wg sync.WaitGroup
	wg.Go(func() { s.Client.StorageDestroyWithResponse(ctx, "s-1") })
	for s.Engine.Calls("DELETE /storage/{storage_id}") == 0 {
		time.Sleep(time.Millisecond)
	}
	tb.end() // closes the server, which waits for the request
	wg.Wait()
	if got := tb.reported(); len(got) != 1 || !strings.Contains(got[0], "not_sent") {
		t.Fatalf("reported: %q, want the violation of the request in flight", got)
	}
}

package tensorpooltest_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// TestAttachAndWait is the README's "Testing your code with tensorpooltest"
// sample, kept compiling and passing here: a minute of request lifecycle and
// Retry-After polling in fake time.
func TestAttachAndWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := tensorpooltest.NewInProcessServer(t, // no sockets, so time is virtual
			tensorpooltest.WithLifecycle(tensorpooltest.Succeed(10*time.Second, 50*time.Second)),
			tensorpooltest.WithRetryAfter(5*time.Second, tensorpooltest.RetryAfterSeconds))
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})

		start := time.Now()
		if err := attachAndWait(t.Context(), srv.Client, "s-1", "c-1"); err != nil {
			t.Fatal(err)
		}
		if c, _ := srv.Engine.Cluster("c-1"); c.Storage != "s-1" {
			t.Fatalf("cluster c-1 has storage %q, want s-1", c.Storage)
		}
		// A minute of lifecycle, polled every 5 s plus at most 25 % jitter.
		if took := time.Since(start); took < time.Minute || took > time.Minute+7*time.Second {
			t.Fatalf("took %v of fake time, want about 1m", took)
		}
		if n := srv.Engine.Calls("GET /request/info/{request_id}"); n > 13 {
			t.Fatalf("%d polls, want at most 13 (every 5 s or later, for a minute)", n)
		}
	})
}

// The README's "Wait for requests" destroyAndWait with default options,
// against a slow request in virtual time: it waits until the request is
// done, polling no faster than Retry-After (attachAndWait: TestAttachAndWait).
func TestReadmeWaitForRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := tensorpooltest.NewInProcessServer(t,
			tensorpooltest.WithLifecycle(tensorpooltest.Succeed(20*time.Second, 3*time.Minute)),
			tensorpooltest.WithRetryAfter(30*time.Second, tensorpooltest.RetryAfterSeconds))
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
		start := time.Now()
		if err := destroyAndWait(t.Context(), srv.Client, "s-2"); err != nil {
			t.Fatal(err)
		}
		if _, ok := srv.Engine.Storage("s-2"); ok {
			t.Fatal("s-2 still exists after destroyAndWait")
		}
		// A request of 3m20s, polled every 30 s (+ ≤25 % jitter).
		if el := time.Since(start); el < 3*time.Minute+20*time.Second || el > 4*time.Minute {
			t.Fatalf("took %v of virtual time", el)
		}
		if polls := srv.Engine.Calls("GET /request/info/{request_id}"); polls > 9 {
			t.Fatalf("%d polls for a 200 s request with Retry-After 30 s", polls)
		}
	})
}

// TestReadmeDestroyWithNullRequestID: the spec allows a destroy's
// request_id to be null (Fault.NullRequestID); the README's destroyAndWait
// then has nothing to wait for and returns nil, without a panic or a poll.
func TestReadmeDestroyWithNullRequestID(t *testing.T) {
	srv := tensorpooltest.NewServer(t)
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	srv.Engine.InjectFault("StorageDestroy", 1, tensorpooltest.Fault{NullRequestID: true})
	if err := destroyAndWait(t.Context(), srv.Client, "s-1"); err != nil {
		t.Fatal(err)
	}
	if polls := srv.Engine.Calls("GetRequestInfo"); polls != 0 {
		t.Fatalf("%d polls; want none", polls)
	}
}

package wait_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// newServer stands in for the API in these examples: tensorpooltest's
// in-memory engine, in-process, with volumes s-1 to s-3 and clusters c-1 to
// c-3. Its Client is the production client, tensorpool.NewClient. Its
// requests take milliseconds, and it sends Retry-After: 0, so that the
// examples run at once (WithInterval's 1 ms floor paces them).
func newServer(opts ...tensorpooltest.Option) *tensorpooltest.Server {
	srv := tensorpooltest.NewInProcessServer(exampleTB{}, append([]tensorpooltest.Option{
		tensorpooltest.WithRetryAfter(0, tensorpooltest.RetryAfterSeconds),
		tensorpooltest.WithLifecycle(tensorpooltest.Succeed(150*time.Millisecond, 150*time.Millisecond)),
	}, opts...)...)
	for _, id := range []string{"1", "2", "3"} {
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-" + id})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-" + id})
	}
	return srv
}

// attach attaches volume s-n to cluster c-n and returns the request id.
func attach(c *gen.ClientWithResponses, n string) string {
	resp, err := c.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
		StorageID: "s-" + n, ClusterIDs: []string{"c-" + n},
	})
	if err != nil {
		panic(err)
	}
	return resp.JSON202.RequestIDs[0]
}

// exampleTB stands in for the *testing.T a test passes to tensorpooltest.
type exampleTB struct{}

func (exampleTB) Helper()                           {}
func (exampleTB) Cleanup(func())                    {}
func (exampleTB) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// Attach a volume, then wait until the API has done it.
func Example() {
	srv := newServer()
	c := srv.Client // tensorpool.NewClient(...) in a program
	ctx := context.Background()

	resp, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}})
	if err != nil {
		fmt.Println("attach:", err)
		return
	}
	p := wait.New(c, wait.WithInterval(time.Millisecond, 0))
	info, err := p.Wait(ctx, resp.JSON202.RequestIDs[0])
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(info.RequestID, info.RequestType, info.Status)
	// Output: req_000001 STORAGE_ATTACH COMPLETED
}

// Wait for several requests at once, each on its own schedule: here the
// request_ids of an attach and the request_id of a destroy.
func ExamplePoller_WaitAll() {
	srv := newServer()
	c, ctx := srv.Client, context.Background()
	attach, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}})
	if err != nil {
		fmt.Println("attach:", err)
		return
	}
	destroy, err := c.StorageDestroyWithResponse(ctx, "s-2")
	if err != nil || destroy.JSON202.RequestID == nil { // the spec allows a null request_id
		fmt.Println("destroy:", err)
		return
	}
	ids := append(attach.JSON202.RequestIDs, *destroy.JSON202.RequestID)
	infos, err := wait.New(c, wait.WithInterval(time.Millisecond, 0)).WaitAll(ctx, ids...)
	for _, info := range infos {
		fmt.Println(info.RequestID, info.RequestType, info.Status)
	}
	fmt.Println("error:", err)
	// Output:
	// req_000001 STORAGE_ATTACH COMPLETED
	// req_000002 STORAGE_DESTROY COMPLETED
	// error: <nil>
}

// Report progress: every poll's status, server message, next delay and why.
// Here each status is printed once.
func ExampleWithProgress() {
	srv := newServer(tensorpooltest.WithLifecycle(tensorpooltest.Succeed(300*time.Millisecond, 300*time.Millisecond)))
	last := gen.RequestStatus("")
	p := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 10*time.Millisecond), wait.WithProgress(func(u wait.Update) {
		if u.Status != last {
			fmt.Printf("%s %s %q\n", u.RequestID, u.Status, u.Message)
			last = u.Status
		}
	}))
	_, _ = p.Wait(context.Background(), attach(srv.Client, "1"))
	// Output:
	// req_000001 PENDING ""
	// req_000001 PROCESSING "Attaching storage s-1 to cluster c-1"
	// req_000001 COMPLETED "Storage s-1 attached to cluster c-1"
}

// Every error that ends a wait is an *Error: the id, the last info seen
// and the cause. Tell a FAILED request apart from a failure to poll.
func ExampleError() {
	srv := newServer()
	srv.Engine.QueueLifecycles(tensorpooltest.Fail(0, time.Millisecond, "cluster c-1 is not running"))
	_, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0)).Wait(context.Background(), attach(srv.Client, "1"))
	var we *wait.Error
	switch {
	case errors.Is(err, wait.ErrFailed) && errors.As(err, &we) && we.Info.ExternalMessage != nil:
		fmt.Println(we.RequestID, "failed:", *we.Info.ExternalMessage)
		fmt.Println(err)
	case err != nil:
		fmt.Println("could not tell:", err)
	}
	// Output:
	// req_000001 failed: cluster c-1 is not running
	// wait: request "req_000001" (STORAGE_ATTACH) failed: cluster c-1 is not running
}

// WaitAll's error joins one *Error per id that did not complete, in input
// order: walk it to match each to its id.
func ExampleError_waitAll() {
	srv := newServer()
	srv.Engine.QueueLifecycles(tensorpooltest.Succeed(0, 0), tensorpooltest.Fail(0, 0, "no capacity"))
	ok, failed := attach(srv.Client, "1"), attach(srv.Client, "2")
	_, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0), wait.WithNotFoundGrace(0)).
		WaitAll(context.Background(), ok, failed, "req_unknown")
	if joined, isJoined := err.(interface{ Unwrap() []error }); isJoined {
		for _, e := range joined.Unwrap() {
			var we *wait.Error
			if errors.As(e, &we) {
				fmt.Println(we.RequestID, errors.Is(e, wait.ErrFailed), tensorpool.IsStatus(e, http.StatusNotFound))
			}
		}
	}
	// Output:
	// req_000002 true false
	// req_unknown false true
}

// Bound the wait with a deadline. When the server asks for a delay that
// would end after the deadline, Wait returns at once rather than sleeping
// only to time out; the error names the last status seen.
func ExamplePoller_Wait_deadline() {
	srv := newServer(tensorpooltest.WithRetryAfter(10*time.Minute, tensorpooltest.RetryAfterSeconds),
		tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Hour)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	info, err := wait.New(srv.Client).Wait(ctx, attach(srv.Client, "1"))
	fmt.Println(info.Status, errors.Is(err, context.DeadlineExceeded))
	// Output: PROCESSING true
}

// Poll once per reconcile from a controller and requeue instead of blocking.
func ExamplePoller_Step() {
	srv := newServer(tensorpooltest.WithLifecycle(tensorpooltest.Succeed(300*time.Millisecond, 300*time.Millisecond)))
	id := attach(srv.Client, "1")
	p := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0))
	var prev *wait.Step // persisted between reconciles
	for {
		s, err := p.Step(context.Background(), id, prev)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if s.Done {
			fmt.Println("done:", s.Status)
			return
		}
		if prev == nil {
			fmt.Println("requeue:", s.Status, s.Reason)
		}
		prev = s
		time.Sleep(s.Next) // a controller returns ctrl.Result{RequeueAfter: s.Next}
	}
	// Output:
	// requeue: PENDING retry-after raised to min interval
	// done: COMPLETED
}

// New takes the client of tensorpool.NewClient, or any generated client:
// here a bare *gen.Client, whose answers wait checks just the same.
func ExampleNew() {
	srv := newServer()
	id := attach(srv.Client, "1")
	raw, _ := gen.NewClient(srv.URL, gen.WithHTTPClient(srv.HTTPClient), gen.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+srv.Engine.APIKey())
			return nil
		}))
	info, err := wait.New(raw, wait.WithInterval(time.Millisecond, 0)).Wait(context.Background(), id)
	fmt.Println(info.Status, err)
	// Output: COMPLETED <nil>
}

// WithInterval bounds the delay between two polls. A Retry-After above the
// upper bound (600 s, against 100 ms here) is clamped to it: the one case of
// a poll earlier than the server asked, and Reason says so. One below the
// lower bound would be raised to it. Each kind of update is printed once.
func ExampleWithInterval() {
	srv := newServer(tensorpooltest.WithRetryAfter(10*time.Minute, tensorpooltest.RetryAfterSeconds),
		tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 300*time.Millisecond)))
	seen := map[string]bool{}
	p := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 100*time.Millisecond),
		wait.WithProgress(func(u wait.Update) {
			if line := fmt.Sprint(u.Status, " ", u.Next, " ", u.Reason); !seen[line] {
				seen[line] = true
				fmt.Println(line)
			}
		}))
	_, _ = p.Wait(context.Background(), attach(srv.Client, "1"))
	// Output:
	// PROCESSING 100ms retry-after clamped to max interval
	// COMPLETED 0s done
}

// The number of consecutive transient failures (here 502s) that ends a
// wait; the error wraps the last one. A 429 or a 503 never counts.
func ExampleWithMaxFailures() {
	srv := newServer()
	id := attach(srv.Client, "1")
	srv.Engine.InjectFault("GetRequestInfo", 3, tensorpooltest.Fault{Status: http.StatusBadGateway})
	_, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0), wait.WithMaxFailures(2)).Wait(context.Background(), id)
	fmt.Println(errors.Is(err, wait.ErrTooManyFailures), tensorpool.IsStatus(err, http.StatusBadGateway))
	fmt.Println(err)
	// Output:
	// true true
	// wait: request "req_000001": too many consecutive transient failures (2 in a row), the last: tensorpool: GET /request/info/req_000001: 502 Bad Gateway: injected fault: 502 Bad Gateway (last status none seen after 2 polls)
}

// A 404 is taken for "not visible yet" only for a short while after the
// first poll; here 3 ms.
func ExampleWithNotFoundGrace() {
	srv := newServer()
	_, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0), wait.WithNotFoundGrace(3*time.Millisecond)).
		Wait(context.Background(), "req_unknown")
	fmt.Println(tensorpool.IsStatus(err, http.StatusNotFound))
	// Output: true
}

// At most one poll in flight: the ids are still each on their own schedule.
func ExampleWithConcurrency() {
	srv := newServer()
	infos, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0), wait.WithConcurrency(1)).
		WaitAll(context.Background(), attach(srv.Client, "1"), attach(srv.Client, "2"))
	fmt.Println(infos[0].Status, infos[1].Status, err)
	// Output: COMPLETED COMPLETED <nil>
}

// Stop waiting for the other requests at the first failure: each one not
// waited for to the end gets an error wrapping ErrStopped, and no
// context.Canceled (the caller's ctx did not end).
func ExampleWithFailFast() {
	srv := newServer()
	srv.Engine.QueueLifecycles(tensorpooltest.Succeed(0, time.Hour), tensorpooltest.Fail(0, 0, "no capacity"))
	slow, bad := attach(srv.Client, "1"), attach(srv.Client, "2")
	infos, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0), wait.WithFailFast()).
		WaitAll(context.Background(), slow, bad)
	fmt.Println("bad:", infos[1].Status)
	fmt.Println("failed:", errors.Is(err, wait.ErrFailed))
	fmt.Println("stopped:", errors.Is(err, wait.ErrStopped))
	fmt.Println("canceled:", errors.Is(err, context.Canceled))
	// Output:
	// bad: FAILED
	// failed: true
	// stopped: true
	// canceled: false
}

// A status outside the spec's enum ends the wait by default; with
// WithUnknownStatusAsRunning it is polled like a running one.
func ExampleWithUnknownStatusAsRunning() {
	srv := newServer(tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
	id := attach(srv.Client, "1")
	srv.Engine.InjectFault("GetRequestInfo", 1, tensorpooltest.Fault{UnknownStatus: "QUEUED_V2"})
	p := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 10*time.Millisecond), wait.WithUnknownStatusAsRunning(),
		wait.WithProgress(func(u wait.Update) { fmt.Println(u.Status, u.Reason) }))
	info, err := p.Wait(context.Background(), id)
	fmt.Println(info.Status, err)
	// Output:
	// QUEUED_V2 backoff
	// COMPLETED done
	// COMPLETED <nil>
}

// By default an unknown status ends the wait with ErrUnknownStatus; the
// *Error carries the info.
func ExampleWithUnknownStatusAsRunning_default() {
	srv := newServer()
	id := attach(srv.Client, "1")
	srv.Engine.InjectFault("GetRequestInfo", 1, tensorpooltest.Fault{UnknownStatus: "QUEUED_V2"})
	_, err := wait.New(srv.Client, wait.WithInterval(time.Millisecond, 0)).Wait(context.Background(), id)
	var we *wait.Error
	if errors.Is(err, wait.ErrUnknownStatus) && errors.As(err, &we) {
		fmt.Println(we.RequestID, we.Info.Status)
		fmt.Println(err)
	}
	// Output:
	// req_000001 QUEUED_V2
	// wait: request "req_000001": unknown request status "QUEUED_V2"
}

package wait_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/wait"
)

// engine is a tiny in-process TensorPool engine for the examples: each
// request id plays its statuses (or HTTP statuses, such as "503"), then
// repeats the last one; unknown ids are 404.
type engine struct {
	mu         sync.Mutex
	statuses   map[string][]string
	retryAfter string
}

func (e *engine) RoundTrip(req *http.Request) (*http.Response, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	body, code, hdr := "", http.StatusOK, http.Header{"Content-Type": {"application/json"}}
	switch {
	case req.Method == http.MethodPost && req.URL.Path == "/storage/attach":
		code = http.StatusAccepted
		body = `{"storage_id":"s-1","cluster_ids":["c-1"],"message":"attaching","request_ids":["r-a"]}`
	case req.Method == http.MethodDelete && req.URL.Path == "/storage/s-2":
		code = http.StatusAccepted
		body = `{"storage_id":"s-2","message":"destroying","request_id":"r-b"}`
	case strings.HasPrefix(req.URL.Path, "/request/info/"):
		id := strings.TrimPrefix(req.URL.Path, "/request/info/")
		st, ok := e.statuses[id]
		if !ok {
			code = http.StatusNotFound
			break
		}
		msg := map[string]string{"PENDING": "queued", "PROCESSING": "attaching volume", "FAILED": "cluster c-2 is not running"}[st[0]]
		body = fmt.Sprintf(`{"request_id":%q,"request_type":"STORAGE_ATTACH","status":%q,"external_message":%q,"created_at":""}`, id, st[0], msg)
		if n, err := strconv.Atoi(st[0]); err == nil { // an HTTP status instead of a request status
			code, body = n, `{"detail":"busy"}`
		}
		if len(st) > 1 {
			e.statuses[id] = st[1:]
			hdr.Set("Retry-After", e.retryAfter)
		}
	default:
		code = http.StatusNotFound
	}
	return &http.Response{StatusCode: code, Header: hdr, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// newClient returns the generated client wired to an in-process engine.
// Retry-After is 10 ms here so that the examples run quickly.
func newClient(statuses map[string][]string) *gen.ClientWithResponses {
	e := &engine{statuses: statuses, retryAfter: "0.01"}
	c, _ := gen.NewClientWithResponses("https://engine.example/", gen.WithHTTPClient(&http.Client{Transport: e}))
	return c
}

// Wait for one request, as returned by a storage destroy or cluster create.
func Example() {
	c := newClient(map[string][]string{"r-1": {"PENDING", "PROCESSING", "COMPLETED"}})
	p := wait.New(c, wait.WithInterval(time.Millisecond, 0))
	info, err := p.Wait(context.Background(), "r-1")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(info.RequestID, info.Status)
	// Output: r-1 COMPLETED
}

// Wait for several requests at once, each on its own schedule: here the
// request_ids of a storage attach and the request_id of a destroy.
func ExamplePoller_WaitAll() {
	c := newClient(map[string][]string{
		"r-a": {"PENDING", "COMPLETED"},
		"r-b": {"PROCESSING", "PROCESSING", "COMPLETED"},
	})
	ctx := context.Background()
	attach, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachJSONRequestBody{StorageID: "s-1", ClusterIDs: []string{"c-1"}})
	if err != nil || attach.JSON202 == nil || len(attach.JSON202.RequestIDs) == 0 {
		fmt.Println("attach failed:", err)
		return
	}
	destroy, err := c.StorageDestroyWithResponse(ctx, "s-2")
	if err != nil || destroy.JSON202 == nil || destroy.JSON202.RequestID == nil {
		fmt.Println("destroy failed:", err)
		return
	}
	ids := append(attach.JSON202.RequestIDs, *destroy.JSON202.RequestID)
	infos, err := wait.New(c, wait.WithInterval(time.Millisecond, 0)).WaitAll(ctx, ids...)
	for _, info := range infos {
		fmt.Println(info.RequestID, info.Status)
	}
	fmt.Println("error:", err)
	// Output:
	// r-a COMPLETED
	// r-b COMPLETED
	// error: <nil>
}

// Report progress: every poll's status, server message and why the next
// delay was chosen.
func ExampleWithProgress() {
	c := newClient(map[string][]string{"r-1": {"PENDING", "PROCESSING", "COMPLETED"}})
	p := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithProgress(func(u wait.Update) {
		fmt.Printf("%s #%d %s %q next: %s\n", u.RequestID, u.Attempt, u.Status, u.Message, u.Reason)
	}))
	_, _ = p.Wait(context.Background(), "r-1")
	// Output:
	// r-1 #1 PENDING "queued" next: retry-after
	// r-1 #2 PROCESSING "attaching volume" next: retry-after
	// r-1 #3 COMPLETED "" next: done
}

// Every error that ends a wait is an *Error: the id, the last info seen
// and the cause. Tell a FAILED request apart from a failure to poll.
func ExampleError() {
	c := newClient(map[string][]string{"r-2": {"PROCESSING", "FAILED"}})
	_, err := wait.New(c, wait.WithInterval(time.Millisecond, 0)).Wait(context.Background(), "r-2")
	var we *wait.Error
	switch {
	case errors.Is(err, wait.ErrFailed) && errors.As(err, &we) && we.Info.ExternalMessage != nil:
		fmt.Println(we.RequestID, "failed:", *we.Info.ExternalMessage)
		fmt.Println(err)
	case err != nil:
		fmt.Println("could not tell:", err)
	}
	// Output:
	// r-2 failed: cluster c-2 is not running
	// wait: request "r-2" (STORAGE_ATTACH) failed: cluster c-2 is not running
}

// WaitAll's error joins one *Error per id that did not complete, in input
// order: walk it to match each to its id.
func ExampleError_waitAll() {
	c := newClient(map[string][]string{"r-a": {"COMPLETED"}, "r-b": {"FAILED"}, "r-c": {"PENDING", "404"}})
	_, err := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithNotFoundGrace(0)).
		WaitAll(context.Background(), "r-a", "r-b", "r-c")
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			var we *wait.Error
			if errors.As(e, &we) {
				fmt.Println(we.RequestID, errors.Is(e, wait.ErrFailed), tensorpool.IsStatus(e, http.StatusNotFound))
			}
		}
	}
	// Output:
	// r-b true false
	// r-c false true
}

// Bound the wait with a deadline. When the server asks for a delay that
// would end after the deadline, Wait returns at once rather than sleeping
// only to time out; the error names the last status seen.
func ExamplePoller_Wait_deadline() {
	e := &engine{statuses: map[string][]string{"r-3": {"PROCESSING", "COMPLETED"}}, retryAfter: "600"}
	c, _ := gen.NewClient("https://engine.example/", gen.WithHTTPClient(&http.Client{Transport: e}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	info, err := wait.New(c).Wait(ctx, "r-3")
	fmt.Println(info.Status, errors.Is(err, context.DeadlineExceeded))
	// Output: PROCESSING true
}

// Poll once per reconcile from a controller and requeue instead of blocking.
func ExamplePoller_Step() {
	c := newClient(map[string][]string{"r-4": {"PROCESSING", "COMPLETED"}})
	p := wait.New(c, wait.WithInterval(time.Millisecond, 0))
	var prev *wait.Step // persisted between reconciles
	for {
		s, err := p.Step(context.Background(), "r-4", prev)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if s.Done {
			fmt.Println("done:", s.Status, "after", s.Attempt, "polls")
			return
		}
		fmt.Println("requeue:", s.Status, s.Reason)
		prev = s
		time.Sleep(s.Next) // a controller returns ctrl.Result{RequeueAfter: s.Next}
	}
	// Output:
	// requeue: PROCESSING retry-after
	// done: COMPLETED after 2 polls
}

// New takes either generated client: *gen.Client or, as here,
// *gen.ClientWithResponses.
func ExampleNew() {
	c := newClient(map[string][]string{"r-1": {"PROCESSING", "COMPLETED"}})
	p := wait.New(c, wait.WithInterval(time.Millisecond, time.Second))
	info, err := p.Wait(context.Background(), "r-1")
	fmt.Println(info.Status, err)
	// Output: COMPLETED <nil>
}

// WithInterval bounds the delay between two polls. A Retry-After above the
// upper bound (600 s, against 5 ms here) is clamped to it: the one case of
// a poll earlier than the server asked, and Reason says so. One below the
// lower bound would be raised to it.
func ExampleWithInterval() {
	e := &engine{statuses: map[string][]string{"r-1": {"PENDING", "COMPLETED"}}, retryAfter: "600"}
	c, _ := gen.NewClient("https://engine.example/", gen.WithHTTPClient(&http.Client{Transport: e}))
	p := wait.New(c, wait.WithInterval(time.Millisecond, 5*time.Millisecond),
		wait.WithProgress(func(u wait.Update) { fmt.Println(u.Status, u.Next, u.Reason) }))
	_, _ = p.Wait(context.Background(), "r-1")
	// Output:
	// PENDING 5ms retry-after clamped to max interval
	// COMPLETED 0s done
}

// The number of consecutive transient failures (here 502s) that ends a
// wait; the error wraps the last one. A 429 or a 503 never counts.
func ExampleWithMaxFailures() {
	c := newClient(map[string][]string{"r-5": {"PENDING", "502", "502", "502", "COMPLETED"}})
	_, err := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithMaxFailures(2)).Wait(context.Background(), "r-5")
	fmt.Println(errors.Is(err, wait.ErrTooManyFailures), tensorpool.IsStatus(err, http.StatusBadGateway))
	fmt.Println(err)
	// Output:
	// true true
	// wait: request "r-5": too many consecutive transient failures (2 in a row), the last: tensorpool: GET /request/info/r-5: 502 Bad Gateway: busy (last status PENDING after 3 polls)
}

// A 404 is taken for "not visible yet" only for a short while after the
// first poll; here 3 ms.
func ExampleWithNotFoundGrace() {
	c := newClient(map[string][]string{})
	_, err := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithNotFoundGrace(3*time.Millisecond)).
		Wait(context.Background(), "r-unknown")
	fmt.Println(tensorpool.IsStatus(err, http.StatusNotFound))
	// Output: true
}

// At most one poll in flight: the ids are still each on their own schedule.
func ExampleWithConcurrency() {
	c := newClient(map[string][]string{"r-a": {"PENDING", "COMPLETED"}, "r-b": {"COMPLETED"}})
	infos, err := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithConcurrency(1)).
		WaitAll(context.Background(), "r-a", "r-b")
	fmt.Println(infos[0].Status, infos[1].Status, err)
	// Output: COMPLETED COMPLETED <nil>
}

// Stop waiting for the other requests at the first failure: each one not
// waited for to the end gets an error wrapping ErrStopped, and no
// context.Canceled (the caller's ctx did not end).
func ExampleWithFailFast() {
	c := newClient(map[string][]string{
		"r-ok":  {"PROCESSING", "PROCESSING", "PROCESSING", "PROCESSING", "PROCESSING", "PROCESSING", "COMPLETED"},
		"r-bad": {"FAILED"},
	})
	infos, err := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithFailFast()).
		WaitAll(context.Background(), "r-ok", "r-bad")
	fmt.Println("r-bad:", infos[1].Status)
	fmt.Println("failed:", errors.Is(err, wait.ErrFailed))
	fmt.Println("stopped:", errors.Is(err, wait.ErrStopped))
	fmt.Println("canceled:", errors.Is(err, context.Canceled))
	// Output:
	// r-bad: FAILED
	// failed: true
	// stopped: true
	// canceled: false
}

// A status outside the spec's enum ends the wait by default; with
// WithUnknownStatusAsRunning it is polled like a running one.
func ExampleWithUnknownStatusAsRunning() {
	c := newClient(map[string][]string{"r-7": {"QUEUED_V2", "COMPLETED"}})
	p := wait.New(c, wait.WithInterval(time.Millisecond, 0), wait.WithUnknownStatusAsRunning(),
		wait.WithProgress(func(u wait.Update) { fmt.Println(u.Status, u.Reason) }))
	info, err := p.Wait(context.Background(), "r-7")
	fmt.Println(info.Status, err)
	// Output:
	// QUEUED_V2 retry-after
	// COMPLETED done
	// COMPLETED <nil>
}

// By default an unknown status ends the wait with ErrUnknownStatus; the
// *Error carries the info.
func ExampleWithUnknownStatusAsRunning_default() {
	c := newClient(map[string][]string{"r-6": {"PENDING", "QUEUED_V2"}})
	_, err := wait.New(c, wait.WithInterval(time.Millisecond, 0)).Wait(context.Background(), "r-6")
	var we *wait.Error
	if errors.Is(err, wait.ErrUnknownStatus) && errors.As(err, &we) {
		fmt.Println(we.RequestID, we.Info.Status)
		fmt.Println(err)
	}
	// Output:
	// r-6 QUEUED_V2
	// wait: request "r-6": unknown request status "QUEUED_V2"
}

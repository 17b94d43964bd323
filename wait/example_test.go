package wait_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/wait"
)

// engine is a tiny in-process TensorPool engine for the examples: each
// request id plays its statuses, then repeats the last one.
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
		st := e.statuses[id]
		msg := map[string]string{"PENDING": "queued", "PROCESSING": "attaching volume", "FAILED": "cluster c-2 is not running"}[st[0]]
		body = fmt.Sprintf(`{"request_id":%q,"request_type":"STORAGE_ATTACH","status":%q,"external_message":%q,"created_at":""}`, id, st[0], msg)
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
	p := wait.New(c, wait.WithMinInterval(time.Millisecond))
	info, err := p.Wait(context.Background(), "r-1")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(info.RequestId, info.Status)
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
	attach, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachJSONRequestBody{StorageId: "s-1", ClusterIds: []string{"c-1"}})
	if err != nil || attach.JSON202 == nil || attach.JSON202.RequestIds == nil {
		fmt.Println("attach failed:", err)
		return
	}
	destroy, err := c.StorageDestroyWithResponse(ctx, "s-2")
	if err != nil || destroy.JSON202 == nil || destroy.JSON202.RequestId == nil {
		fmt.Println("destroy failed:", err)
		return
	}
	ids := append(*attach.JSON202.RequestIds, *destroy.JSON202.RequestId)
	infos, err := wait.New(c, wait.WithMinInterval(time.Millisecond)).WaitAll(ctx, ids...)
	for _, info := range infos {
		fmt.Println(info.RequestId, info.Status)
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
	p := wait.New(c, wait.WithMinInterval(time.Millisecond), wait.WithProgress(func(u wait.Update) {
		fmt.Printf("%s #%d %s %q next: %s\n", u.RequestID, u.Attempt, u.Status, u.Message, u.Reason)
	}))
	_, _ = p.Wait(context.Background(), "r-1")
	// Output:
	// r-1 #1 PENDING "queued" next: retry-after
	// r-1 #2 PROCESSING "attaching volume" next: retry-after
	// r-1 #3 COMPLETED "" next: done
}

// Tell a FAILED request apart from a failure to poll.
func ExampleFailedError() {
	c := newClient(map[string][]string{"r-2": {"PROCESSING", "FAILED"}})
	_, err := wait.New(c, wait.WithMinInterval(time.Millisecond)).Wait(context.Background(), "r-2")
	var failed *wait.FailedError
	switch {
	case errors.As(err, &failed):
		fmt.Println("the request failed:", *failed.Info.ExternalMessage)
		fmt.Println(err)
	case err != nil:
		fmt.Println("could not tell:", err)
	}
	// Output:
	// the request failed: cluster c-2 is not running
	// wait: request "r-2" (STORAGE_ATTACH) failed: cluster c-2 is not running
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
	p := wait.New(c, wait.WithMinInterval(time.Millisecond))
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

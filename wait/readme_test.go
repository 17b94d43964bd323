package wait_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// The uses the README's "Wait for requests" describes (its code is in
// tensorpooltest/example_yourcode_test.go): progress, a deadline, Step, run
// with default options against the in-memory engine in virtual time.

// newReadmeClient is the production client of an in-process engine.
func newReadmeClient(t *testing.T, opts ...tensorpooltest.Option) (*gen.ClientWithResponses, *tensorpooltest.Engine) {
	t.Helper()
	srv := tensorpooltest.NewInProcessServer(t, opts...)
	srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	return srv.Client, srv.Engine
}

func TestReadmeProgressAndErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, engine := newReadmeClient(t)
		engine.QueueLifecycles(tensorpooltest.Fail(time.Second, 4*time.Second, "No capacity in region"))
		resp, err := tensorpool.Check(c.StorageAttachWithResponse(t.Context(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		}))
		if err != nil {
			t.Fatal(err)
		}
		id := resp.JSON202.RequestIDs[0]
		var lines strings.Builder
		log.SetOutput(&lines)
		log.SetFlags(0)
		defer log.SetOutput(os.Stderr)

		p := wait.New(c, wait.WithProgress(func(u wait.Update) {
			log.Printf("%s %s %q: next poll in %v (%s)", u.RequestID, u.Status, u.Message, u.Next.Round(time.Second), u.Reason)
		}))
		info, err := p.Wait(t.Context(), id)

		var failed *wait.Error
		switch {
		case errors.Is(err, wait.ErrFailed) && errors.As(err, &failed): // the request reached FAILED
			fmt.Fprintln(&lines, "failed:", *failed.Info.ExternalMessage)
		case errors.Is(err, context.DeadlineExceeded): // the message names the last status seen
			fmt.Fprintln(&lines, "gave up waiting:", err)
		case err != nil: // could not tell: network, auth, too many transient failures, ...
			fmt.Fprintln(&lines, "polling failed:", err)
		default:
			fmt.Fprintln(&lines, "done:", info.Status)
		}
		got := lines.String()
		for _, want := range []string{id + " PENDING", id + ` PROCESSING "`, "(retry-after)", "failed: No capacity in region"} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
}

func TestReadmeDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, engine := newReadmeClient(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Hour, time.Hour)))
		resp, err := tensorpool.Check(c.StorageAttachWithResponse(t.Context(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		}))
		if err != nil {
			t.Fatal(err)
		}
		requestID := resp.JSON202.RequestIDs[0]
		p := wait.New(c)
		var lines strings.Builder
		log.SetOutput(&lines)
		defer log.SetOutput(os.Stderr)

		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
		defer cancel()
		info, err := p.Wait(ctx, requestID)
		if errors.Is(err, context.DeadlineExceeded) {
			log.Printf("still %s after 30 minutes: %v", info.Status, err)
		}

		if !errors.Is(err, context.DeadlineExceeded) || info == nil || info.Status != gen.RequestStatusPENDING {
			t.Fatalf("info %+v err %v", info, err)
		}
		if !strings.Contains(err.Error(), "PENDING") || !strings.Contains(lines.String(), "still PENDING after 30 minutes") {
			t.Fatalf("the deadline error does not name the last status: %v", err)
		}
		if polls := engine.Calls("GET /request/info/{request_id}"); polls < 2 {
			t.Fatalf("%d polls in 30 minutes", polls)
		}
	})
}

// The README: a wait may stop before ctx's deadline, when the next poll
// would not fit; its error wraps context.DeadlineExceeded while ctx.Err()
// is still nil, so a caller looping on ctx.Err() would carry on.
func TestReadmeWaitMayStopBeforeTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newReadmeClient(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Hour, time.Hour)),
			tensorpooltest.WithRetryAfter(time.Minute, tensorpooltest.RetryAfterSeconds))
		resp, err := tensorpool.Check(c.StorageAttachWithResponse(t.Context(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second) // polls at 0 and 60-75 s; the next would be after 120 s
		defer cancel()
		_, err = wait.New(c).Wait(ctx, resp.JSON202.RequestIDs[0])
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			t.Fatalf("err %v, ctx.Err() %v: want context.DeadlineExceeded wrapped, before the deadline", err, ctx.Err())
		}
	})
}

func TestReadmeStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newReadmeClient(t)
		resp, err := tensorpool.Check(c.StorageAttachWithResponse(t.Context(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		}))
		if err != nil {
			t.Fatal(err)
		}
		requestID := resp.JSON202.RequestIDs[0]
		p := wait.New(c)
		var requeues []time.Duration
		var prev *wait.Step // keep it in your reconciler's state between calls
		for {
			s, err := p.Step(t.Context(), requestID, prev)
			if err != nil {
				t.Fatal(err) // FAILED (wait.ErrFailed), or polling failed
			}
			if s.Done {
				break // COMPLETED
			}
			prev = s
			requeues = append(requeues, s.Next) // return ctrl.Result{RequeueAfter: s.Next}, nil
			time.Sleep(s.Next)
		}
		if len(requeues) == 0 {
			t.Fatal("the request completed without a single requeue")
		}
		for _, d := range requeues {
			if d < 2*time.Second { // the engine's default Retry-After
				t.Fatalf("requeued after %v, earlier than the server's Retry-After", d)
			}
		}
	})
}

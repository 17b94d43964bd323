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

// The README's "Wait for requests" code, and the progress, deadline and Step
// uses it describes, run with default options against the in-memory engine
// in virtual time.

// newReadmeClient is tensorpool.NewClient wired to an in-process engine.
func newReadmeClient(t *testing.T, opts ...tensorpooltest.Option) (*gen.ClientWithResponses, *tensorpooltest.Engine) {
	t.Helper()
	srv := tensorpooltest.NewInProcessServer(t, opts...)
	srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey(srv.Engine.APIKey()), tensorpool.WithBaseURL(srv.URL),
		tensorpool.WithInsecureHTTP(), tensorpool.WithHTTPClient(srv.HTTPClient))
	if err != nil {
		t.Fatal(err)
	}
	return c, srv.Engine
}

func attachThenDestroy(ctx context.Context, c *gen.ClientWithResponses) ([]*gen.RequestInfoResponse, *gen.RequestInfoResponse, error) {
	resp, err := tensorpool.Check(c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageID: "s-1", ClusterIDs: []string{"c-1"},
	}))
	if err != nil {
		return nil, nil, err
	}
	p := wait.New(c) // polls GET /request/info/{request_id}, honouring Retry-After
	infos, err := p.WaitAll(ctx, resp.JSON202.RequestIDs...)
	if err != nil {
		return nil, nil, err
	}

	destroyed, err := tensorpool.Check(c.StorageDestroyWithResponse(ctx, "s-2"))
	if err != nil {
		return nil, nil, err
	}
	info, err := p.Wait(ctx, *destroyed.JSON202.RequestID)
	return infos, info, err
}

func TestReadmeWaitForRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, engine := newReadmeClient(t,
			tensorpooltest.WithLifecycle(tensorpooltest.Succeed(20*time.Second, 3*time.Minute)),
			tensorpooltest.WithRetryAfter(30*time.Second, tensorpooltest.RetryAfterSeconds))
		start := time.Now()
		infos, info, err := attachThenDestroy(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) != 1 || infos[0].Status != gen.RequestStatusCOMPLETED || info.Status != gen.RequestStatusCOMPLETED {
			t.Fatalf("infos %+v, destroy %+v", infos, info)
		}
		if _, ok := engine.Storage("s-2"); ok {
			t.Fatal("s-2 still exists after its destroy COMPLETED")
		}
		// Two requests of 3m20s each, polled every 30 s (+ ≤25 % jitter).
		if el := time.Since(start); el < 6*time.Minute+40*time.Second || el > 8*time.Minute {
			t.Fatalf("took %v of virtual time", el)
		}
		if polls := engine.Calls("GET /request/info/{request_id}"); polls > 2*9 {
			t.Fatalf("%d polls for two 200 s requests with Retry-After 30 s", polls)
		}
	})
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

		var failed *wait.FailedError
		switch {
		case errors.As(err, &failed): // the request reached FAILED
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
				t.Fatal(err) // FAILED (*wait.FailedError), or polling failed
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

package tensorpooltest_test

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// attachAndWait is the code under test: it attaches a volume to a cluster
// and waits for the request to finish, polling as Retry-After says.
func attachAndWait(ctx context.Context, c gen.ClientWithResponsesInterface, storageID, clusterID string) error {
	resp, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageId: storageID, ClusterIds: []string{clusterID},
	})
	if err != nil {
		return err
	}
	if resp.JSON202 == nil || resp.JSON202.RequestIds == nil {
		return fmt.Errorf("attach %s to %s: %s", storageID, clusterID, resp.Status())
	}
	for _, id := range *resp.JSON202.RequestIds {
		for {
			info, err := c.GetRequestInfoWithResponse(ctx, id)
			if err != nil {
				return err
			}
			if info.JSON200 == nil {
				return fmt.Errorf("request %s: %s", id, info.Status())
			}
			switch info.JSON200.Status {
			case gen.RequestStatusCOMPLETED:
				return nil
			case gen.RequestStatusFAILED:
				msg := ""
				if m := info.JSON200.ExternalMessage; m != nil {
					msg = *m
				}
				return fmt.Errorf("attach %s to %s failed: %s", storageID, clusterID, msg)
			}
			secs, _ := strconv.Atoi(info.HTTPResponse.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(secs) * time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// Testing your own code: seed the engine, script how the request ends, run
// your code against the engine's client, and check both what your code
// returned and the state it left. In a test, pass the *testing.T to
// NewInProcessServer and run the body in synctest.Test: then real lifecycles
// (WithLifecycle, QueueLifecycles) and Retry-After waits take no real time.
func Example_testingYourCode() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-2"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
		ctx := context.Background()

		err := attachAndWait(ctx, srv.Client, "s-1", "c-1")
		c1, _ := srv.Engine.Cluster("c-1")
		fmt.Printf("err=%v, c-1 has %q\n", err, c1.Storage)

		srv.Engine.QueueLifecycles(tensorpooltest.Fail(0, 0, "no capacity"))
		err = attachAndWait(ctx, srv.Client, "s-2", "c-2")
		c2, _ := srv.Engine.Cluster("c-2")
		fmt.Printf("err=%v, c-2 has %q\n", err, c2.Storage)

		err = attachAndWait(ctx, srv.Client, "s-2", "c-1")
		fmt.Printf("err=%v\n", err)
	})
	// Output:
	// err=<nil>, c-1 has "s-1"
	// err=attach s-2 to c-2 failed: no capacity, c-2 has ""
	// err=attach s-2 to c-1: 409 Conflict
}

package tensorpooltest_test

import (
	"context"
	"fmt"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// attachAndWait attaches a volume to a cluster and waits until the API has
// done it. With destroyAndWait, it is the code under test here and the
// README's "Wait for requests".
func attachAndWait(ctx context.Context, c *gen.ClientWithResponses, storageID, clusterID string) error {
	resp, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageID: storageID, ClusterIDs: []string{clusterID},
	})
	if err != nil {
		return err
	}
	p := wait.New(c) // polls GET /request/info/{request_id}, honouring Retry-After
	_, err = p.WaitAll(ctx, resp.JSON202.RequestIDs...)
	return err // nil, or errors.Join of a *wait.Error per id that did not complete
}

// destroyAndWait destroys a volume and waits until it is gone.
func destroyAndWait(ctx context.Context, c *gen.ClientWithResponses, storageID string) error {
	resp, err := c.StorageDestroyWithResponse(ctx, storageID)
	if err != nil || resp.JSON202.RequestID == nil { // the spec allows null: nothing to wait for
		return err
	}
	_, err = wait.New(c).Wait(ctx, *resp.JSON202.RequestID)
	return err
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
	// err=wait: request "req_000002" (STORAGE_ATTACH) failed: no capacity, c-2 has ""
	// err=tensorpool: POST /storage/attach: 409 Conflict: Cluster c-1 already has storage attached
}

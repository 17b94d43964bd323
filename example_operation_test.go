package tensorpool_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// templateNamer is a plain RoundTripper of your own, such as a tracer's:
// it names each request by its operation's path template, never by the
// request's path, which holds ids.
type templateNamer struct{ next http.RoundTripper }

func (t templateNamer) RoundTrip(req *http.Request) (*http.Response, error) {
	if op, ok := tensorpool.OperationFromContext(req.Context()); ok {
		fmt.Printf("%s (%s) sent to %s\n", op, op.Name, req.URL.Path)
	}
	return t.next.RoundTrip(req)
}

func ExampleOperationFromContext() {
	engine := tensorpooltest.New() // stands in for the API, in-process
	engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey(engine.APIKey()),
		tensorpool.WithBaseURL(tensorpooltest.InProcessURL), tensorpool.WithInsecureHTTP(),
		tensorpool.WithHTTPClient(&http.Client{Transport: templateNamer{next: engine}}))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	attach, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.GetRequestInfoWithResponse(ctx, attach.JSON202.RequestIDs[0]); err != nil {
		log.Fatal(err)
	}
	if _, err := c.StorageDestroyWithResponse(ctx, "s-2"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// POST /storage/attach (StorageAttach) sent to /storage/attach
	// GET /request/info/{request_id} (GetRequestInfo) sent to /request/info/req_000001
	// DELETE /storage/{storage_id} (StorageDestroy) sent to /storage/s-2
}

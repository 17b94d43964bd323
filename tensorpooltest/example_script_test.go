package tensorpooltest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// Respond scripts the next answers of an operation: here a 200 the document
// builds, then a 404 the operation does not declare. Through the production
// client the first is JSON200, the second an *APIError; Requests shows what
// was sent, without the key. Any operation of the document can be scripted,
// the ones the engine does not model too.
func ExampleEngine_Respond() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.Respond("GetRequestInfo",
			tensorpooltest.Answer{Status: http.StatusOK},
			tensorpooltest.Answer{Status: http.StatusNotFound, Body: map[string]string{"detail": "no such request"}})

		ctx := context.Background()
		info, err := srv.Client.GetRequestInfoWithResponse(ctx, "req-1")
		if err != nil {
			t.Fatalf("first call: %v", err)
		}
		fmt.Println(info.StatusCode(), info.JSON200.Status)
		_, err = srv.Client.GetRequestInfoWithResponse(ctx, "req-2")
		var apiErr *tensorpool.APIError
		if errors.As(err, &apiErr) {
			fmt.Println(apiErr.StatusCode, apiErr.Message)
		}
		for _, r := range srv.Engine.Requests("GetRequestInfo") {
			fmt.Println(r.Method, r.Path, r.Header.Get("Authorization") == "")
		}
	})
	// Output:
	// 200 PENDING
	// 404 no such request
	// GET /request/info/req-1 true
	// GET /request/info/req-2 true
}

// Requests shows what an operation was sent: method, path, query, headers
// (never the key) and body.
func ExampleEngine_Requests() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		if _, err := srv.Client.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		}); err != nil {
			t.Fatalf("attach: %v", err)
		}
		r := srv.Engine.Requests("POST /storage/attach")[0]
		fmt.Println(r.Method, r.Path, r.Header.Get("Content-Type"))
		fmt.Println(string(r.Body))
	})
	// Output:
	// POST /storage/attach application/json
	// {"cluster_ids":["c-1"],"storage_id":"s-1"}
}

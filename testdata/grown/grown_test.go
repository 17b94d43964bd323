package tensorpooltest_test

// These tests run in a copy of the repository whose openapi.json has grown
// by additions.json (internal/specgrowth, TestGrownSpecNeedsNoHandEdits),
// after make update-spec and make check passed there with no hand edit.
// They are a user's tests of operations the engine does not model.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// An operation the engine does not model, scripted: a 200 the document
// builds, then a 404. Through the production client the first is JSON200,
// the second an *APIError; Requests shows what was sent.
func ExampleEngine_Respond_unmodelled() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.Respond("StorageInfo",
			tensorpooltest.Answer{Status: http.StatusOK},
			tensorpooltest.Answer{Status: http.StatusNotFound})
		ctx := context.Background()
		info, err := srv.Client.StorageInfoWithResponse(ctx, "s-1")
		if err != nil {
			t.Fatalf("first call: %v", err)
		}
		fmt.Println(info.StatusCode(), info.JSON200 != nil)
		_, err = srv.Client.StorageInfoWithResponse(ctx, "s-2")
		var apiErr *tensorpool.APIError
		fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)
		for _, r := range srv.Engine.Requests("StorageInfo") {
			fmt.Println(r.Method, r.Path)
		}
	})
	// Output:
	// 200 true
	// true 404
	// GET /storage/info/s-1
	// GET /storage/info/s-2
}

// A new mutating operation works with wait at once: its 202 carries a
// request id the engine created, which follows the engine's lifecycle to
// COMPLETED, or to FAILED when the test queues a failing one.
func TestGrownAsyncOperationWorksWithWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := tensorpooltest.NewInProcessServer(t)
		create := func() string {
			resp, err := srv.Client.ClusterCreateWithResponse(t.Context(), gen.ClusterCreateRestRequest{InstanceType: "1xH100"})
			if err != nil || resp.JSON202.RequestID == nil {
				t.Fatalf("cluster create: %v", err)
			}
			return *resp.JSON202.RequestID
		}
		info, err := wait.New(srv.Client).Wait(t.Context(), create())
		if err != nil || info.Status != gen.RequestStatusCOMPLETED {
			t.Fatalf("wait: %v, %+v", err, info)
		}
		srv.Engine.QueueLifecycles(tensorpooltest.Fail(0, time.Second, "no capacity"))
		if _, err := wait.New(srv.Client).Wait(t.Context(), create()); !errors.Is(err, wait.ErrFailed) {
			t.Fatalf("wait on a failing lifecycle: %v, want wait.ErrFailed", err)
		}
	})
}

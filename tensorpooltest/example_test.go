package tensorpooltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// runTest stands in for `go test`: it calls a test function with a TB and
// runs its cleanups. In your tests, pass the *testing.T.
func runTest(test func(t tensorpooltest.TB)) {
	t := &exampleTB{}
	defer t.cleanup()
	test(t)
}

type exampleTB struct{ cleanups []func() }

func (*exampleTB) Helper()                           {}
func (t *exampleTB) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }
func (*exampleTB) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// NewServer is the one-line setup of a test: an engine on a loopback
// server, and the production client (tensorpool.NewClient) with its key.
func ExampleNewServer() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewServer(t)
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})

		resp, err := srv.Client.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		})
		if err != nil {
			t.Fatalf("attach: %v", err)
		}
		fmt.Println(resp.StatusCode(), resp.JSON202.RequestIDs)
	})
	// Output: 202 [req_000001]
}

// NewInProcessServer needs no socket, so inside a testing/synctest bubble
// the request lifecycle runs in fake time. Outside a bubble it is simply a
// server without a port.
func ExampleNewInProcessServer() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})

		info, err := srv.Client.GetRequestInfoWithResponse(context.Background(), destroyRequest(t, srv, "s-1"))
		if err != nil {
			t.Fatalf("request info: %v", err)
		}
		fmt.Println(srv.URL)
		fmt.Println(info.JSON200.RequestType, info.JSON200.Status, "Retry-After:", info.HTTPResponse.Header.Get("Retry-After"))
	})
	// Output:
	// http://engine.tensorpool.test
	// STORAGE_DESTROY PENDING Retry-After: 2
}

// An Engine is an http.Handler: serve it wherever a program needs a
// TensorPool API, for example a demo that runs without an account.
func ExampleNew() {
	e := tensorpooltest.New(tensorpooltest.WithAPIKey("demo-key"))
	e.AddStorage(tensorpooltest.Storage{ID: "s-1", DeletionProtection: true})
	srv := httptest.NewServer(e) // or http.ListenAndServe("127.0.0.1:8080", e)
	defer srv.Close()

	c, err := gen.NewClientWithResponses(srv.URL, gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer demo-key")
		return nil
	}))
	if err != nil {
		panic(err)
	}
	resp, err := c.StorageDestroyWithResponse(context.Background(), "s-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode(), string(resp.Body))
	// Output: 409 {"detail":"Storage s-1 has deletion protection enabled"}
}

// HTTPClient answers in-process: it is a gen.HttpRequestDoer.
func ExampleEngine_HTTPClient() {
	e := tensorpooltest.New()
	c, err := gen.NewClientWithResponses(tensorpooltest.InProcessURL, gen.WithHTTPClient(e.HTTPClient()))
	if err != nil {
		panic(err)
	}
	resp, err := c.GetRequestInfoWithResponse(context.Background(), "req_000001") // no API key
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode())
	// Output: 403
}

// InjectFault scripts the next requests of an operation: here rate limits,
// then the normal answer. Client, the production client, retries a 429 3
// times as it would against the API, so the 4th is its error; RawClient
// shows each as sent.
func ExampleEngine_InjectFault() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		rateLimit := tensorpooltest.Fault{Status: 429, RetryAfter: "0"}

		srv.Engine.InjectFault("StorageDestroy", 1, rateLimit)
		resp, err := srv.Client.StorageDestroyWithResponse(context.Background(), "s-1")
		fmt.Println("Client:", resp.StatusCode(), err, "after", srv.Engine.Calls("StorageDestroy"), "calls")

		srv.Engine.InjectFault("StorageDestroy", 4, rateLimit)
		_, err = srv.Client.StorageDestroyWithResponse(context.Background(), "s-1")
		fmt.Println("Client:", err)

		srv.Engine.InjectFault("StorageDestroy", 1, rateLimit)
		raw, err := srv.RawClient.StorageDestroyWithResponse(context.Background(), "s-1")
		if err != nil {
			t.Fatalf("destroy: %v", err)
		}
		fmt.Println("RawClient:", raw.StatusCode(), "Retry-After:", raw.HTTPResponse.Header.Get("Retry-After"))
	})
	// Output:
	// Client: 202 <nil> after 2 calls
	// Client: tensorpool: DELETE /storage/s-1: 429 Too Many Requests: injected fault: 429 Too Many Requests
	// RawClient: 429 Retry-After: 0
}

// ClearFaults drops the faults a scenario did not use, before the next.
func ExampleEngine_ClearFaults() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.InjectFault("GetRequestInfo", 5, tensorpooltest.Fault{Status: 503})
		fmt.Println(srv.Engine.ClearFaults(), "faults dropped")
		_, err := srv.Client.GetRequestInfoWithResponse(context.Background(), "req_000001")
		fmt.Println(err)
	})
	// Output:
	// 5 faults dropped
	// tensorpool: GET /request/info/req_000001: 404 Not Found: Request req_000001 not found
}

// QueueLifecycles decides how the next asynchronous requests end: here the
// attach fails, and the cluster stays without storage.
func ExampleEngine_QueueLifecycles() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		srv.Engine.QueueLifecycles(tensorpooltest.Fail(0, 0, "cluster is restarting"))

		resp, err := srv.Client.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		})
		if err != nil {
			t.Fatalf("attach: %v", err)
		}
		info, err := srv.Client.GetRequestInfoWithResponse(context.Background(), resp.JSON202.RequestIDs[0])
		if err != nil {
			t.Fatalf("request info: %v", err)
		}
		c, _ := srv.Engine.Cluster("c-1")
		fmt.Printf("%s %q, cluster storage %q\n", info.JSON200.Status, text(info.JSON200.ExternalMessage), c.Storage)
	})
	// Output: FAILED "cluster is restarting", cluster storage ""
}

// A request the OpenAPI document forbids is answered 422 with an
// HTTPValidationError, as upstream's FastAPI does.
func ExampleEngine_ServeHTTP() {
	e := tensorpooltest.New()
	req := httptest.NewRequest("POST", "/storage/attach", strings.NewReader(`{"storage_id": "s-1"}`))
	req.Header.Set("Authorization", "Bearer "+e.APIKey())
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)

	var body gen.HTTPValidationError
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		panic(err)
	}
	for _, d := range body.Detail {
		loc, _ := json.Marshal(d.Loc)
		fmt.Println(w.Code, string(loc), d.Type)
	}
	// Output: 422 ["body","cluster_ids"] missing
}

// Lifecycles can pass through RETRYING; Retry-After can be an HTTP-date.
func ExampleLifecycle() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t,
			tensorpooltest.WithRetryAfter(5*time.Second, tensorpooltest.RetryAfterHTTPDate),
			tensorpooltest.WithLifecycle(tensorpooltest.Lifecycle{
				{Status: gen.RequestStatusRETRYING, For: time.Hour, Message: "capacity is short, retrying"},
				{Status: gen.RequestStatusCOMPLETED},
			}))
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		info, err := srv.Client.GetRequestInfoWithResponse(context.Background(), destroyRequest(t, srv, "s-1"))
		if err != nil {
			t.Fatalf("request info: %v", err)
		}
		h := info.HTTPResponse.Header
		retryAt, _ := http.ParseTime(h.Get("Retry-After"))
		date, _ := http.ParseTime(h.Get("Date"))
		fmt.Println(info.JSON200.Status, text(info.JSON200.ExternalMessage), retryAt.Sub(date))
	})
	// Output: RETRYING capacity is short, retrying 5s
}

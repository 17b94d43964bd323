package tensorpool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// fakeEngine stands in for https://engine.tensorpool.dev in these examples.
// It accepts attaching s-1 to c-1, says s-busy is already attached, and
// rate-limits the first request for request info once.
func fakeEngine() *httptest.Server {
	var limited atomic.Bool
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer tp-example-key" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"detail":"Invalid API key"}`)
			return
		}
		switch {
		case r.Method == "POST" && r.URL.Path == "/storage/attach":
			var in gen.StorageAttachRestRequest
			_ = json.NewDecoder(r.Body).Decode(&in)
			if in.StorageID == "s-busy" {
				w.WriteHeader(http.StatusConflict)
				fmt.Fprint(w, `{"detail":"Cluster already has storage attached"}`)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprintf(w, `{"storage_id":%q,"cluster_ids":[%q],"request_ids":["req-1"],"message":"Attaching"}`, in.StorageID, in.ClusterIDs[0])
		case r.Method == "GET" && r.URL.Path == "/request/info/req-1":
			if !limited.Swap(true) {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprint(w, `{"detail":"Rate limit exceeded"}`)
				return
			}
			fmt.Fprint(w, `{"request_id":"req-1","created_at":"2026-11-22T08:00:00Z","request_type":"STORAGE_ATTACH","status":"COMPLETED"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not Found"}`)
		}
	}))
}

// The shortest correct program: the key comes from $TENSORPOOL_KEY and the
// base URL is https://engine.tensorpool.dev unless $TENSORPOOL_ENGINE says
// otherwise. Here both are given as options, for the example's fake engine.
func ExampleNewClient() {
	engine := fakeEngine()
	defer engine.Close()

	c, err := tensorpool.NewClient(
		tensorpool.WithAPIKey("tp-example-key"), // default: $TENSORPOOL_KEY
		tensorpool.WithBaseURL(engine.URL),      // default: $TENSORPOOL_ENGINE, else https://engine.tensorpool.dev
	)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	resp, err := tensorpool.Check(c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageID:  "s-1",
		ClusterIDs: []string{"c-1"},
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode(), resp.JSON202.Message, resp.JSON202.RequestIDs)
	// Output: 202 Attaching [req-1]
}

// Without a key, NewClient says so before anything is sent.
func ExampleNewClient_noKey() {
	_, err := tensorpool.NewClient(tensorpool.WithAPIKey("")) // as if $TENSORPOOL_KEY were unset
	fmt.Println(errors.Is(err, tensorpool.ErrNoAPIKey))
	fmt.Println(err)
	// Output:
	// true
	// tensorpool: no API key: set TENSORPOOL_KEY or use WithAPIKey
}

// Check turns a non-2xx response into an *APIError, which errors.As and the
// Is helpers recognise.
func ExampleCheck() {
	engine := fakeEngine()
	defer engine.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL(engine.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = tensorpool.Check(c.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
		StorageID:  "s-busy",
		ClusterIDs: []string{"c-1"},
	}))
	var apiErr *tensorpool.APIError
	switch {
	case tensorpool.IsConflict(err):
		fmt.Println("conflict:", err)
	case errors.As(err, &apiErr):
		fmt.Println("API error", apiErr.StatusCode, apiErr.Message)
	case err != nil:
		fmt.Println("no response:", err)
	}
	// Output: conflict: tensorpool: POST /storage/attach: 409 Conflict: Cluster already has storage attached
}

// Branch on the fields of *APIError.
func ExampleAPIError() {
	engine := fakeEngine()
	defer engine.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("wrong-key"), tensorpool.WithBaseURL(engine.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = tensorpool.Check(c.StorageDestroyWithResponse(context.Background(), "s-1"))
	var apiErr *tensorpool.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Method, apiErr.Path)
		fmt.Println(apiErr.Message)
		fmt.Println(tensorpool.IsUnauthorized(err))
	}
	// Output:
	// 401 DELETE /storage/s-1
	// Invalid API key
	// true
}

// A request that breaks a rule of the API spec fails before it is sent.
func ExampleInvalidRequestError() {
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
		StorageID:  "vol-1",
		ClusterIDs: []string{"c-1", "c-2"},
	})
	fmt.Println(errors.Is(err, tensorpool.ErrInvalidRequest))
	fmt.Println(err)
	// Output:
	// true
	// tensorpool: POST /storage/attach: invalid storage_id: must start with "s-", got "vol-1" (nothing was sent)
}

// Retries are logged at info level, each attempt at debug level. Here the
// fake engine answers 429 once, with Retry-After: 0.
func ExampleWithLogger() {
	engine := fakeEngine()
	defer engine.Close()
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "url" {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	c, err := tensorpool.NewClient(
		tensorpool.WithAPIKey("tp-example-key"),
		tensorpool.WithBaseURL(engine.URL),
		tensorpool.WithLogger(logger),
	)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := tensorpool.Check(c.GetRequestInfoWithResponse(context.Background(), "req-1"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.JSON200.Status)
	// Output:
	// level=INFO msg="tensorpool: retrying" method=GET attempt=1 reason="429 Too Many Requests" delay=0s
	// COMPLETED
}

// Tune retries and timeouts; the package documentation lists what is
// retried. Here the engine answers 429 (Retry-After: 0) twice before it
// answers the request.
func ExampleWithRetryPolicy() {
	engine := tensorpooltest.New(tensorpooltest.WithAPIKey("tp-example-key"))
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	engine.InjectFault("DELETE /storage/{storage_id}", 2, tensorpooltest.Fault{Status: 429, RetryAfter: "0"})

	p := tensorpool.DefaultRetryPolicy()
	p.MaxRetries = 5
	p.MaxRetryAfter = 2 * time.Minute
	c, err := tensorpool.NewClient(
		tensorpool.WithAPIKey("tp-example-key"),
		tensorpool.WithBaseURL("https://engine.tensorpool.test"), // default: https://engine.tensorpool.dev
		tensorpool.WithHTTPClient(engine.HTTPClient()),           // the in-process engine answers
		tensorpool.WithRetryPolicy(p),
		tensorpool.WithTimeout(5*time.Minute), // the whole call, retries included
	)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := tensorpool.Check(c.StorageDestroyWithResponse(context.Background(), "s-1"))
	fmt.Println(resp.StatusCode(), err, "after", engine.Calls("DELETE /storage/{storage_id}"), "attempts")
	// Output: 202 <nil> after 3 attempts
}

package tensorpool_test

import (
	"context"
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
// It knows request req-1, COMPLETED, and rate-limits the first request for
// its info once.
func fakeEngine() *httptest.Server {
	var limited atomic.Bool
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer tp-example-key" {
			w.WriteHeader(http.StatusForbidden) // the spec's 403 "Access denied"
			fmt.Fprint(w, `{"detail":"Access denied"}`)
			return
		}
		switch {
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
// otherwise. Here the built-in engine stands in for the API, so both are
// given as options. This is the README's "Make a call".
func ExampleNewClient() {
	engine := tensorpooltest.New() // stands in for the API in this example
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	api := httptest.NewServer(engine)
	defer api.Close()

	c, err := tensorpool.NewClient(
		tensorpool.WithAPIKey(engine.APIKey()), // default: $TENSORPOOL_KEY
		tensorpool.WithBaseURL(api.URL),        // default: $TENSORPOOL_ENGINE, else https://engine.tensorpool.dev
	)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	resp, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageID:  "s-1",
		ClusterIDs: []string{"c-1"},
	})
	if err != nil {
		log.Fatal(err) // every failure is an error: resp.JSON202 is set
	}
	fmt.Println(resp.StatusCode(), resp.JSON202.RequestIDs, resp.JSON202.Message)
	// Output: 202 [req_000001] Storage attachment initiated; attaching restarts all nodes of c-1
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

// Every answer but a declared success is an error: outside 2xx an
// *APIError, which errors.As and IsStatus recognise. This is the README's
// "Errors".
func Example_errors() {
	engine := tensorpooltest.New() // stands in for the API: c-1 already has s-1
	engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1", AttachedTo: []string{"c-1"}})
	api := httptest.NewServer(engine)
	defer api.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey(engine.APIKey()), tensorpool.WithBaseURL(api.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = c.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
		StorageID: "s-1", ClusterIDs: []string{"c-1"},
	})
	var apiErr *tensorpool.APIError
	switch {
	case tensorpool.IsStatus(err, http.StatusConflict):
		fmt.Println("conflict:", err)
	case errors.As(err, &apiErr):
		fmt.Println("API error", apiErr.StatusCode, apiErr.Message)
	case err != nil:
		fmt.Println("no response:", err)
	}
	// Output: conflict: tensorpool: POST /storage/attach: 409 Conflict: Cluster c-1 already has storage attached
}

// Branch on the fields of *APIError.
func ExampleAPIError() {
	engine := fakeEngine()
	defer engine.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("wrong-key"), tensorpool.WithBaseURL(engine.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = c.StorageDestroyWithResponse(context.Background(), "s-1")
	var apiErr *tensorpool.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Method, apiErr.Path)
		fmt.Println(apiErr.Message)
		fmt.Println(tensorpool.IsStatus(err, http.StatusForbidden))
	}
	// Output:
	// 403 DELETE /storage/s-1
	// Access denied
	// true
}

// A request that breaks a constraint the API spec states (cluster_ids:
// minItems 1, maxItems 1) fails before it is sent.
func ExampleNewClient_invalidRequest() {
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
		StorageID:  "s-1",
		ClusterIDs: []string{"c-1", "c-2"},
	})
	fmt.Println(errors.Is(err, tensorpool.ErrInvalidRequest))
	fmt.Println(err)
	// Output:
	// true
	// tensorpool: POST /storage/attach: invalid cluster_ids: must have exactly one element, got 2 (nothing was sent)
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
	resp, err := c.GetRequestInfoWithResponse(context.Background(), "req-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.JSON200.Status)
	// Output:
	// level=INFO msg="tensorpool: retrying" operation="GET /request/info/{request_id}" method=GET attempt=1 reason="429 Too Many Requests" delay=0s
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
	resp, err := c.StorageDestroyWithResponse(context.Background(), "s-1")
	fmt.Println(resp.StatusCode(), err, "after", engine.Calls("DELETE /storage/{storage_id}"), "attempts")
	// Output: 202 <nil> after 3 attempts
}

// Check applies the client's response check to a client NewClient did not
// make: here a bare generated client, whose methods return any answer
// without an error.
func ExampleCheck() {
	engine := tensorpooltest.New() // stands in for the API
	raw, err := gen.NewClientWithResponses("https://engine.tensorpool.test", gen.WithHTTPClient(engine.HTTPClient()),
		gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+engine.APIKey())
			return nil
		}))
	if err != nil {
		log.Fatal(err)
	}
	resp, err := raw.StorageDestroyWithResponse(context.Background(), "s-404")
	fmt.Println(resp.StatusCode(), err, resp.JSON202 == nil)
	_, err = tensorpool.Check(resp, err)
	fmt.Println(err)
	// Output:
	// 404 <nil> true
	// tensorpool: DELETE /storage/s-404: 404 Not Found: Storage s-404 not found
}

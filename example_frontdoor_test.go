package tensorpool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// inProcess returns a client made by NewClient whose requests the
// in-process engine e answers, with no network: what a test of your code
// would use (see package tensorpooltest).
func inProcess(e *tensorpooltest.Engine, opts ...tensorpool.Option) *gen.ClientWithResponses {
	c, err := tensorpool.NewClient(append([]tensorpool.Option{
		tensorpool.WithAPIKey(e.APIKey()),
		tensorpool.WithBaseURL("https://engine.tensorpool.test"),
		tensorpool.WithHTTPClient(e.HTTPClient()),
	}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

var ctx = context.Background()

// IsStatus branches on the status of an *APIError anywhere in an error's
// chain, one status or several; without codes, on any *APIError.
func ExampleIsStatus() {
	engine := tensorpooltest.New()
	engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	engine.AddCluster(tensorpooltest.Cluster{ID: "c-2", Ineligible: true})
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1", AttachedTo: []string{"c-1"}})
	engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
	c := inProcess(engine)
	attach := func(storage, cluster string) error {
		_, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
			StorageID: storage, ClusterIDs: []string{cluster},
		})
		return err
	}
	_, notFound := c.GetRequestInfoWithResponse(ctx, "req-unknown")

	fmt.Println(tensorpool.IsStatus(attach("s-2", "c-1"), http.StatusConflict))   // a cluster holds one volume at most
	fmt.Println(tensorpool.IsStatus(attach("s-2", "c-2"), http.StatusBadRequest)) // a cluster that cannot have storage
	fmt.Println(tensorpool.IsStatus(fmt.Errorf("polling: %w", notFound), http.StatusNotFound, http.StatusGone))
	fmt.Println(tensorpool.IsStatus(notFound), tensorpool.IsStatus(context.Canceled))
	// Output:
	// true
	// true
	// true
	// true false
}

// The fields of an *APIError: here the server's own validation, reached
// because client-side validation is off, with its field errors in Details.
func ExampleAPIError_details() {
	c := inProcess(tensorpooltest.New(), tensorpool.WithoutClientValidation())
	_, err := c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
		StorageID: "s-1", ClusterIDs: []string{"c-1", "c-2"},
	})
	var apiErr *tensorpool.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, len(apiErr.Details) > 0, apiErr.Details[0].Loc)
	}
	// Output: 422 true [body cluster_ids]
}

// A 429 whose Retry-After is longer than the client waits for
// (RetryPolicy.MaxRetryAfter) is returned at once, saying when to retry.
func ExampleAPIError_retryAfter() {
	engine := tensorpooltest.New()
	engine.InjectFault("GET /request/info/{request_id}", 1, tensorpooltest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "3600"})
	_, err := inProcess(engine).GetRequestInfoWithResponse(ctx, "req-1")
	var apiErr *tensorpool.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, "retry after", apiErr.RetryAfter)
	}
	// Output: 429 retry after 1h0m0s
}

// A 2xx body past the cap fails; it is never silently cut.
func ExampleWithMaxResponseBytes() {
	engine := tensorpooltest.New()
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	c := inProcess(engine, tensorpool.WithMaxResponseBytes(32))
	_, err := c.StorageDestroyWithResponse(ctx, "s-1")
	fmt.Println(errors.Is(err, tensorpool.ErrResponseTooLarge))
	fmt.Println(err)
	// Output:
	// true
	// tensorpool: DELETE /storage/s-1: 202 response (Content-Type "application/json"): response body too large (see WithMaxResponseBytes): more than 32 bytes
}

// A success the spec does not declare for the operation is no success: here
// a 200 where DELETE /storage/{storage_id} declares 202, whose JSON202
// field would be nil.
func ExampleDecodeError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer srv.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.StorageDestroyWithResponse(ctx, "s-1")
	var decodeErr *tensorpool.DecodeError
	if errors.As(err, &decodeErr) {
		fmt.Println(decodeErr.StatusCode, decodeErr.Method, decodeErr.Path, string(decodeErr.Body))
	}
	// Output: 200 DELETE /storage/s-1 {"ok":true}
}

// Bound each attempt, rather than the whole call, with the transport's own
// timeouts: a GET that times out there is retried, a POST is not.
func ExampleWithHTTPClient() {
	engine := fakeEngine()
	defer engine.Close()
	transport := &http.Transport{ResponseHeaderTimeout: 10 * time.Second}
	defer transport.CloseIdleConnections()
	c, err := tensorpool.NewClient(
		tensorpool.WithAPIKey("tp-example-key"),
		tensorpool.WithBaseURL(engine.URL),
		tensorpool.WithHTTPClient(&http.Client{Transport: transport}),
	)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := c.GetRequestInfoWithResponse(ctx, "req-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.JSON200.Status)
	// Output: COMPLETED
}

// A request editor sees (and may refuse) every request before it is sent,
// without the Authorization header, which the transport adds.
func ExampleWithRequestEditorFn() {
	engine := tensorpooltest.New()
	engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	c := inProcess(engine, tensorpool.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Correlation-Id", "job-42")
		fmt.Println(r.Method, r.URL.Path, "authorization:", r.Header.Get("Authorization") != "")
		return nil
	}))
	resp, err := c.StorageDestroyWithResponse(ctx, "s-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode())
	// Output:
	// DELETE /storage/s-1 authorization: false
	// 202
}

// Plain http is refused to a host that is not loopback, unless you say the
// network is trusted (here nothing leaves the process).
func ExampleWithInsecureHTTP() {
	_, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL("http://10.0.0.5:8000"))
	fmt.Println(err)

	engine := tensorpooltest.New()
	c, err := tensorpool.NewClient(
		tensorpool.WithAPIKey(engine.APIKey()),
		tensorpool.WithBaseURL(tensorpooltest.InProcessURL), // http://engine.tensorpool.test
		tensorpool.WithInsecureHTTP(),
		tensorpool.WithHTTPClient(engine.HTTPClient()),
	)
	fmt.Println(c != nil, err)
	// Output:
	// tensorpool: refusing plain http to "http://10.0.0.5:8000", not a loopback host: the API key would travel in clear text (use https, or WithInsecureHTTP)
	// true <nil>
}

// Name your program in front of the library's own User-Agent token.
func ExampleWithUserAgent() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fields := strings.Fields(r.UserAgent())
		fmt.Println(fields[0], strings.HasPrefix(fields[1], "tensorpool-go/"))
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL(srv.URL),
		tensorpool.WithUserAgent("my-app/1.2"))
	if err != nil {
		log.Fatal(err)
	}
	_, _ = c.GetRequestInfoWithResponse(ctx, "req-1")
	// Output: my-app/1.2 true
}

// Without client-side validation, a request that breaks a rule of the spec
// reaches the server, whose 422 says what is wrong.
func ExampleWithoutClientValidation() {
	engine := tensorpooltest.New()
	bad := gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1", "c-2"}}

	_, err := inProcess(engine).StorageAttachWithResponse(ctx, bad)
	fmt.Println(errors.Is(err, tensorpool.ErrInvalidRequest), engine.Calls("POST /storage/attach"))

	_, err = inProcess(engine, tensorpool.WithoutClientValidation()).StorageAttachWithResponse(ctx, bad)
	fmt.Println(tensorpool.IsStatus(err, http.StatusUnprocessableEntity), engine.Calls("POST /storage/attach"))
	// Output:
	// true 0
	// true 1
}

// WithTimeout bounds a call as a whole, retries and body included.
func ExampleWithTimeout() {
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer stalled.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL(stalled.URL),
		tensorpool.WithTimeout(50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.GetRequestInfoWithResponse(ctx, "req-1")
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output: true
}

// WithAPIKey takes precedence over $TENSORPOOL_KEY; surrounding white space
// is trimmed, and a key that cannot travel in a header is refused.
func ExampleWithAPIKey() {
	engine := tensorpooltest.New()
	c := inProcess(engine, tensorpool.WithAPIKey(" "+engine.APIKey()+"\n"))
	_, err := c.GetRequestInfoWithResponse(ctx, "req-unknown")
	fmt.Println(tensorpool.IsStatus(err, http.StatusNotFound)) // authenticated: the request id is what is wrong

	_, err = tensorpool.NewClient(tensorpool.WithAPIKey("tp key"))
	fmt.Println(err)
	// Output:
	// true
	// tensorpool: invalid API key: it contains spaces, control or non-ASCII characters
}

// WithBaseURL takes precedence over $TENSORPOOL_ENGINE. Plain http is
// accepted only to a loopback host.
func ExampleWithBaseURL() {
	for _, u := range []string{"https://engine.tensorpool.dev", "http://localhost:8000", "http://engine.tensorpool.dev", "https://tp-key@engine.tensorpool.dev"} {
		_, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL(u))
		fmt.Println(err)
	}
	// Output:
	// <nil>
	// <nil>
	// tensorpool: refusing plain http to "http://engine.tensorpool.dev", not a loopback host: the API key would travel in clear text (use https, or WithInsecureHTTP)
	// tensorpool: invalid base URL "https://engine.tensorpool.dev": it must not carry credentials (the API key goes in TENSORPOOL_KEY or WithAPIKey)
}

// The default policy, which WithRetryPolicy replaces.
func ExampleDefaultRetryPolicy() {
	p := tensorpool.DefaultRetryPolicy()
	fmt.Println(p.MaxRetries, p.MinBackoff, p.MaxBackoff, p.MaxRetryAfter)
	// Output: 3 500ms 8s 30s
}

// The vendored OpenAPI document the client was generated from.
func ExampleOpenAPIDocument() {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(tensorpool.OpenAPIDocument(), &doc); err != nil {
		log.Fatal(err)
	}
	_, ok := doc.Paths["/request/info/{request_id}"]["get"]
	fmt.Println(strings.HasPrefix(doc.OpenAPI, "3."), ok)
	// Output: true true
}

// A request that changes something (any method but GET and HEAD) never
// follows a redirect: net/http would replay it as a GET, and the call would
// seem to succeed although it never ran. The redirect is the answer.
func ExampleAPIError_redirect() {
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v2"+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer moved.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey("tp-example-key"), tensorpool.WithBaseURL(moved.URL))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.StorageDestroyWithResponse(ctx, "s-1")
	var apiErr *tensorpool.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Method, apiErr.Path, strings.Replace(apiErr.Message, moved.URL, "", 1))
	}
	// Output: 301 DELETE /storage/s-1 redirect to /v2/storage/s-1 not followed
}

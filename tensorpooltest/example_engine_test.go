package tensorpooltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// editedSpec returns the vendored OpenAPI document changed by edit.
func editedSpec(edit func(doc map[string]any)) []byte {
	var doc map[string]any
	if err := json.Unmarshal(tensorpool.OpenAPIDocument(), &doc); err != nil {
		panic(err)
	}
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// uuidRequestIDs is a document stricter than the engine: request ids must
// be UUIDs, where the engine's are "req_000001", ...
func uuidRequestIDs() []byte {
	return editedSpec(func(doc map[string]any) {
		schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
		id := schemas["RequestInfoResponse"].(map[string]any)["properties"].(map[string]any)["request_id"].(map[string]any)
		id["pattern"] = "^[0-9a-f-]{36}$"
	})
}

// A newer upstream document may have operations the engine does not model:
// they are routed, authenticated and validated, and answer as the document
// says, here with a value built from the schema.
func ExampleWithSpec() {
	bigger := editedSpec(func(doc map[string]any) {
		doc["paths"].(map[string]any)["/storage/list"] = map[string]any{"get": map[string]any{
			"operationId": "storage_list",
			"responses": map[string]any{"200": map[string]any{"description": "The organization's volumes",
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
					"type": "object", "required": []any{"storage_ids"}, "properties": map[string]any{"storage_ids": map[string]any{
						"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "pattern": "^s-[0-9]{3}$"}}}}}}}},
			"security": []any{map[string]any{"HTTPBearer": []any{}}},
		}}
	})
	e := tensorpooltest.New(tensorpooltest.WithSpec(bigger))

	req := httptest.NewRequest("GET", "/storage/list", nil)
	req.Header.Set("Authorization", "Bearer "+e.APIKey())
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body)
	// Output: 200 {"storage_ids":["s-000"]}
}

// RoundTrip answers in-process, whatever the host; a dropped connection is
// an error wrapping io.ErrUnexpectedEOF.
func ExampleEngine_RoundTrip() {
	e := tensorpooltest.New()
	e.InjectFault("GET /request/info/{request_id}", 1, tensorpooltest.Fault{Drop: true})
	for range 2 {
		req, err := http.NewRequest("GET", "http://anywhere.test/request/info/req_000042", nil)
		if err != nil {
			panic(err)
		}
		req.Header.Set("Authorization", "Bearer "+e.APIKey())
		resp, err := e.RoundTrip(req)
		if err != nil {
			fmt.Println("dropped:", errors.Is(err, io.ErrUnexpectedEOF))
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	// Output:
	// dropped: true
	// 404 {"detail":"Request req_000042 not found"}
}

// SetLifecycle changes how a request in flight ends, counted from its
// creation: here an attach pending for a second completes at once.
func ExampleEngine_SetLifecycle() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t) // DefaultLifecycle: 3s
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		resp, err := srv.Client.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		})
		if err != nil {
			t.Fatalf("attach: %v", err)
		}
		id := resp.JSON202.RequestIDs[0]

		fmt.Println(srv.Engine.SetLifecycle(id, tensorpooltest.Succeed(0, 0)))
		c, _ := srv.Engine.Cluster("c-1")
		fmt.Printf("c-1 has %q\n", c.Storage)
		fmt.Println(srv.Engine.SetLifecycle(id, tensorpooltest.Fail(0, 0, "too late"))) // already terminal
	})
	// Output:
	// true
	// c-1 has "s-1"
	// false
}

// Calls counts the requests that reached an operation, faults included:
// here the code under test retried twice after 503s.
func ExampleEngine_Calls() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		srv.Engine.InjectFault("storage_destroy", 2, tensorpooltest.Fault{Status: 503})

		for { // the code under test: retry on 503
			_, err := srv.Client.StorageDestroyWithResponse(context.Background(), "s-1")
			if tensorpool.IsStatus(err, http.StatusServiceUnavailable) {
				continue
			}
			if err != nil {
				t.Fatalf("destroy: %v", err)
			}
			break
		}
		fmt.Println(srv.Engine.Calls("storage_destroy"), srv.Engine.Calls("DELETE /storage/{storage_id}"), srv.Engine.Calls("POST /storage/attach"))
	})
	// Output: 3 3 0
}

// Violations lists the engine's answers that broke its document: here one
// stricter than the engine (request ids must be UUIDs).
func ExampleEngine_Violations() {
	e := tensorpooltest.New(tensorpooltest.WithSpec(uuidRequestIDs()))
	e.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	c, err := gen.NewClientWithResponses(tensorpooltest.InProcessURL, gen.WithHTTPClient(e.HTTPClient()),
		gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+e.APIKey())
			return nil
		}))
	if err != nil {
		panic(err)
	}
	if _, err := c.StorageDestroyWithResponse(context.Background(), "s-1"); err != nil {
		panic(err)
	}
	if _, err := c.GetRequestInfoWithResponse(context.Background(), "req_000001"); err != nil {
		panic(err)
	}
	for _, v := range e.Violations() {
		fmt.Println(v.Status, v.Operation)
	}
	// Output: 200 GET /request/info/{request_id}
}

// A violation handler sees each non-conforming answer as it is sent;
// NewServer's fails the test.
func ExampleWithViolationHandler() {
	e := tensorpooltest.New(tensorpooltest.WithSpec(uuidRequestIDs()),
		tensorpooltest.WithViolationHandler(func(v tensorpooltest.Violation) {
			fmt.Println("violation:", v.Status, v.Operation)
		}))
	e.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	for _, r := range []*http.Request{
		httptest.NewRequest("DELETE", "/storage/s-1", nil),
		httptest.NewRequest("GET", "/request/info/req_000001", nil),
	} {
		r.Header.Set("Authorization", "Bearer "+e.APIKey())
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		fmt.Println(w.Code)
	}
	// Output:
	// 202
	// violation: 200 GET /request/info/{request_id}
	// 200
}

// A Violation says which answer broke the document, and how (kin-openapi's
// explanation follows the first line).
func ExampleViolation_Error() {
	e := tensorpooltest.New(tensorpooltest.WithSpec(uuidRequestIDs()))
	e.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	for _, r := range []*http.Request{
		httptest.NewRequest("DELETE", "/storage/s-1", nil),
		httptest.NewRequest("GET", "/request/info/req_000001", nil),
	} {
		r.Header.Set("Authorization", "Bearer "+e.APIKey())
		e.ServeHTTP(httptest.NewRecorder(), r)
	}
	first, _, _ := strings.Cut(e.Violations()[0].Error(), "\n")
	fmt.Println(first)
	// Output: tensorpooltest: response 200 to GET /request/info/{request_id} does not conform to the OpenAPI document: response body doesn't match schema #/components/schemas/RequestInfoResponse: Error at "/request_id": string doesn't match the regular expression "^[0-9a-f-]{36}$"
}

// WithAPIKey sets the one key the engine accepts. A wrong key is a 403 that
// does not repeat what was sent.
func ExampleWithAPIKey() {
	e := tensorpooltest.New(tensorpooltest.WithAPIKey("my-test-key"))
	for _, key := range []string{"my-test-key", "leaked-prod-key"} {
		r := httptest.NewRequest("GET", "/request/info/req_000001", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Body)
	}
	// Output:
	// 404 {"detail":"Request req_000001 not found"}
	// 403 {"detail":"Access denied: missing or wrong API key"}
}

// APIKey is the key to send: DefaultAPIKey unless WithAPIKey says otherwise.
func ExampleEngine_APIKey() {
	fmt.Println(tensorpooltest.New().APIKey())
	fmt.Println(tensorpooltest.New(tensorpooltest.WithAPIKey("k-2")).APIKey())
	// Output:
	// tp-test-key
	// k-2
}

// destroyRequest destroys storageID on srv and returns the request id to
// poll; the spec allows a null one, which fails t.
func destroyRequest(t tensorpooltest.TB, srv *tensorpooltest.Server, storageID string) string {
	resp, err := srv.Client.StorageDestroyWithResponse(context.Background(), storageID)
	if err != nil || resp.JSON202.RequestID == nil {
		t.Fatalf("destroy %s: %v, and no request id to poll", storageID, err)
	}
	return *resp.JSON202.RequestID
}

// text is a nullable string of the spec, or "<null>".
func text(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// retryAfter destroys s-1 on srv and returns the Retry-After of the first
// GET /request/info answer.
func retryAfter(t tensorpooltest.TB, srv *tensorpooltest.Server) string {
	info, err := srv.Client.GetRequestInfoWithResponse(context.Background(), destroyRequest(t, srv, "s-1"))
	if err != nil {
		t.Fatalf("request info: %v", err)
	}
	return info.HTTPResponse.Header.Get("Retry-After")
}

// WithRetryAfter sets the poll hint of requests in flight; a fraction of a
// second rounds up.
func ExampleWithRetryAfter() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithRetryAfter(1500*time.Millisecond, tensorpooltest.RetryAfterSeconds))
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		fmt.Printf("Retry-After: %q\n", retryAfter(t, srv))
	})
	// Output: Retry-After: "2"
}

// SetRetryAfter changes the hint mid-test, for example to test a client's
// fallback when the header is missing.
func ExampleEngine_SetRetryAfter() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		srv.Engine.SetRetryAfter(0, tensorpooltest.RetryAfterOmitted)
		fmt.Printf("Retry-After: %q\n", retryAfter(t, srv))
	})
	// Output: Retry-After: ""
}

// WithLifecycle sets how every request ends (unless one is queued): here at
// once, so the destroy is done by the first poll.
func ExampleWithLifecycle() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		fmt.Printf("Retry-After: %q\n", retryAfter(t, srv)) // none: terminal
		_, ok := srv.Engine.Storage("s-1")
		fmt.Println("s-1 exists:", ok)
	})
	// Output:
	// Retry-After: ""
	// s-1 exists: false
}

// DefaultLifecycle takes three seconds: run the test in a synctest bubble,
// or choose shorter lifecycles.
func ExampleDefaultLifecycle() {
	for _, p := range tensorpooltest.DefaultLifecycle() {
		fmt.Println(p.Status, p.For)
	}
	// Output:
	// PENDING 1s
	// PROCESSING 2s
	// COMPLETED 0s
}

// Succeed(0, d) skips PENDING: the request is PROCESSING from the start.
func ExampleSucceed() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Hour)))
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		info, err := srv.Client.GetRequestInfoWithResponse(context.Background(), destroyRequest(t, srv, "s-1"))
		if err != nil {
			t.Fatalf("request info: %v", err)
		}
		fmt.Println(info.JSON200.Status, text(info.JSON200.ExternalMessage))
	})
	// Output: PROCESSING Destroying storage s-1
}

// A FAILED request changes nothing: the volume survives its destroy.
func ExampleFail() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Fail(0, 0, "volume is busy")))
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		info, err := srv.Client.GetRequestInfoWithResponse(context.Background(), destroyRequest(t, srv, "s-1"))
		if err != nil {
			t.Fatalf("request info: %v", err)
		}
		_, ok := srv.Engine.Storage("s-1")
		fmt.Println(info.JSON200.Status, text(info.JSON200.ExternalMessage), "| s-1 exists:", ok)
	})
	// Output: FAILED volume is busy | s-1 exists: true
}

// AddStorage seeds a volume; AttachedTo attaches it on both sides, so the
// volume cannot be destroyed until it is detached.
func ExampleEngine_AddStorage() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1", AttachedTo: []string{"c-1"}})
		c, _ := srv.Engine.Cluster("c-1")
		fmt.Printf("c-1 has %q\n", c.Storage)

		_, err := srv.Client.StorageDestroyWithResponse(context.Background(), "s-1")
		fmt.Println(err)
	})
	// Output:
	// c-1 has "s-1"
	// tensorpool: DELETE /storage/s-1: 409 Conflict: Storage s-1 is attached to clusters c-1
}

// AddCluster seeds a cluster; an ineligible one refuses storage.
func ExampleEngine_AddCluster() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t)
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1", Ineligible: true})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		_, err := srv.Client.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		})
		fmt.Println(err)
	})
	// Output: tensorpool: POST /storage/attach: 400 Bad Request: Cluster c-1 is not eligible for storage attachment
}

// Storage reads a volume back as of now, and whether it exists (a completed
// destroy removes it).
func ExampleEngine_Storage() {
	e := tensorpooltest.New()
	e.AddStorage(tensorpooltest.Storage{ID: "s-1", DeletionProtection: true})
	s, ok := e.Storage("s-1")
	fmt.Println(ok, s.DeletionProtection)
	_, ok = e.Storage("s-2")
	fmt.Println(ok)
	// Output:
	// true true
	// false
}

// Cluster reads a cluster back as of now: an attach takes effect only when
// its request completes.
func ExampleEngine_Cluster() {
	runTest(func(t tensorpooltest.TB) {
		srv := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Hour)))
		srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
		srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
		resp, err := srv.Client.StorageAttachWithResponse(context.Background(), gen.StorageAttachRestRequest{
			StorageID: "s-1", ClusterIDs: []string{"c-1"},
		})
		if err != nil {
			t.Fatalf("attach: %v", err)
		}
		c, _ := srv.Engine.Cluster("c-1")
		fmt.Printf("%d, c-1 has %q while the attach is in flight\n", resp.StatusCode(), c.Storage)
	})
	// Output: 202, c-1 has "" while the attach is in flight
}

// Operations lists the operations of the engine's document in matching
// order, methods of a path in a fixed order; here of a small document.
func ExampleEngine_Operations() {
	const doc = `{"openapi": "3.1.0", "info": {"title": "items", "version": "1"}, "paths": {
	  "/items/{id}": {
	    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
	    "delete": {"responses": {"204": {"description": "Deleted"}}},
	    "get": {"responses": {"200": {"description": "The item"}}}},
	  "/items": {"post": {"responses": {"201": {"description": "Created"}}}}}}`
	for _, op := range tensorpooltest.New(tensorpooltest.WithSpec([]byte(doc))).Operations() {
		fmt.Println(op)
	}
	// Output:
	// POST /items
	// GET /items/{id}
	// DELETE /items/{id}
}

// SpecProblems lists what is wrong in the document and the engine
// tolerates: here an empty info.version, and an operation it does not model
// that names a security scheme the document lacks.
func ExampleEngine_SpecProblems() {
	doc := `{"openapi": "3.1.0", "info": {"title": "ping", "version": ""}, "paths": {"/ping": {"get": {
	  "security": [{"Missing": []}],
	  "responses": {"200": {"description": "pong"}}}}}}`
	e := tensorpooltest.New(tensorpooltest.WithSpec([]byte(doc)))
	for _, p := range e.SpecProblems() {
		fmt.Println(p)
	}
	// Output:
	// invalid info: value of version must be a non-empty string
	// invalid paths: invalid path /ping: invalid operation GET: security requirement /paths/~1ping/get/security/0/Missing refers to undefined security scheme "Missing"
	// GET /ping declares no status for a request that breaks the document: the engine answers 422
	// GET /ping declares no status for a missing or wrong credential: the engine answers 403
}

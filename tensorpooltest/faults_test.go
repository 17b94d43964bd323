package tensorpooltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestFaultStatusForTheNextNRequests(t *testing.T) {
	for _, tc := range []struct {
		status     int
		retryAfter string
	}{
		{429, "3"}, {429, ""}, {500, ""}, {502, ""}, {503, "Sun, 06 Nov 1994 08:49:37 GMT"}, {503, ""},
	} {
		t.Run(http.StatusText(tc.status)+" "+tc.retryAfter, func(t *testing.T) {
			s := seeded(t)
			s.Engine.InjectFault("GET /request/info/{request_id}", 2, tensorpooltest.Fault{Status: tc.status, RetryAfter: tc.retryAfter})
			for i := range 2 {
				resp := info(t, s, "req_000001")
				wantStatus(t, resp, tc.status)
				if got := resp.HTTPResponse.Header.Get("Retry-After"); got != tc.retryAfter {
					t.Fatalf("request %d: Retry-After %q, want %q", i, got, tc.retryAfter)
				}
				detail(t, resp.Body)
			}
			// Faults are used up: the third request reaches the engine.
			wantStatus(t, info(t, s, "req_000001"), 404)
			if n := s.Engine.Calls("GET /request/info/{request_id}"); n != 3 {
				t.Fatalf("Calls = %d, want 3", n)
			}
		})
	}
}

func TestFaultsQueuePerOperation(t *testing.T) {
	s := seeded(t)
	s.Engine.InjectFault("storage_attach", 1, tensorpooltest.Fault{Status: 503})
	s.Engine.InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Status: 429})
	wantStatus(t, destroy(t, s, "s-nope"), 404) // another operation: untouched
	wantStatus(t, attach(t, s, "s-1", "c-1"), 503)
	wantStatus(t, attach(t, s, "s-1", "c-1"), 429)
	wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
}

func TestFaultStatusDoesNotRunTheOperation(t *testing.T) {
	s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
	s.Engine.InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Status: 502})
	wantStatus(t, attach(t, s, "s-1", "c-1"), 502)
	if c, _ := s.Engine.Cluster("c-1"); c.Storage != "" {
		t.Fatalf("a 502 fault attached: %+v", c)
	}
}

func TestFaultProcessRunsTheOperationAndLosesTheAnswer(t *testing.T) {
	s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 0)))
	s.Engine.InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Status: 504, Process: true})
	wantStatus(t, attach(t, s, "s-1", "c-1"), 504)
	if c, _ := s.Engine.Cluster("c-1"); c.Storage != "s-1" {
		t.Fatalf("the processed attach did not attach: %+v", c)
	}
	// The retry a client would send now meets the state the lost answer left.
	wantStatus(t, attach(t, s, "s-1", "c-1"), 409)
}

func TestFaultLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		s.Engine.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Latency: 90 * time.Second})
		start := time.Now()
		wantStatus(t, destroy(t, s, "s-1"), 202) // latency alone keeps the normal answer
		if d := time.Since(start); d != 90*time.Second {
			t.Fatalf("answered after %v, want 90s", d)
		}
	})
}

func TestFaultLatencyHonoursTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		s.Engine.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Latency: time.Hour})
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := s.RawClient.StorageDestroyWithResponse(cctx, "s-1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		if _, ok := s.Engine.Storage("s-1"); !ok {
			t.Fatal("a cancelled request ran")
		}
	})
}

func TestFaultDropInProcess(t *testing.T) {
	s := seeded(t)
	s.Engine.InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Drop: true})
	_, err := s.RawClient.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want one wrapping io.ErrUnexpectedEOF", err)
	}
	wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
}

func TestFaultDropOnLoopback(t *testing.T) {
	s := tensorpooltest.NewServer(t)
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	s.Engine.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Drop: true, Process: true})
	if _, err := s.RawClient.StorageDestroyWithResponse(ctx, "s-1"); err == nil {
		t.Fatal("no error from a dropped connection")
	}
	// Process: the destroy was accepted before the connection dropped.
	wantStatus(t, destroy(t, s, "s-1"), 409)
}

func TestFaultMalformedJSON(t *testing.T) {
	s := seeded(t)
	s.Engine.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{MalformedJSON: true})
	resp, err := s.RawClient.StorageDestroyWithResponse(ctx, "s-1")
	if err == nil {
		t.Fatalf("the generated client parsed a malformed body: %d %s", resp.StatusCode(), resp.Body)
	}
	if len(s.Engine.Violations()) != 0 {
		t.Fatal("a deliberately malformed answer was reported as a violation")
	}
}

// Status and MalformedJSON together: the injected status with a cut body.
func TestFaultStatusWithMalformedJSON(t *testing.T) {
	s := seeded(t)
	s.Engine.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Status: 503, RetryAfter: "1", MalformedJSON: true})
	status, body := raw(t, s, "DELETE", "/storage/s-1", "", "")
	if status != 503 || json.Valid([]byte(body)) || !strings.HasPrefix(body, `{"detail"`) {
		t.Fatalf("%d %q: want 503 with half a JSON body", status, body)
	}
	if len(s.Engine.Violations()) != 0 {
		t.Fatal("a deliberately malformed answer was reported as a violation")
	}
}

func TestFaultUnknownStatus(t *testing.T) {
	s := seeded(t)
	id := *destroy(t, s, "s-1").JSON202.RequestID
	s.Engine.InjectFault("GET /request/info/{request_id}", 1, tensorpooltest.Fault{UnknownStatus: "HIBERNATING"})
	resp := info(t, s, id)
	wantStatus(t, resp, 200)
	if resp.JSON200.Status != "HIBERNATING" || resp.JSON200.Status.Valid() {
		t.Fatalf("status %q, want the injected unknown value", resp.JSON200.Status)
	}
	if got := info(t, s, id).JSON200.Status; !got.Valid() {
		t.Fatalf("the fault outlived its one request: %q", got)
	}
}

func TestInjectFaultUnknownOperationPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "POST /nope") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	tensorpooltest.New().InjectFault("POST /nope", 1, tensorpooltest.Fault{Status: 500})
}

// A Status net/http cannot write as an error answer (WriteHeader(42)
// panics in the handler) is refused when the fault is injected.
func TestInjectFaultRefusesNonErrorStatuses(t *testing.T) {
	for _, status := range []int{42, 100, 103, 200, 204, 302, 399, 600} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			defer wantPanic(t, "Status "+strconv.Itoa(status)+" is not an error status")
			tensorpooltest.New().InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Status: status})
		})
	}
	for _, status := range []int{400, 599} {
		s := tensorpooltest.NewServer(t)
		s.Engine.InjectFault("GET /request/info/{request_id}", 1, tensorpooltest.Fault{Status: status})
		wantStatus(t, info(t, s, "req_1"), status)
	}
}

func TestInjectFaultRefusesANegativeCount(t *testing.T) {
	defer wantPanic(t, "negative count -1")
	tensorpooltest.New().InjectFault("POST /storage/attach", -1, tensorpooltest.Fault{Status: 500})
}

// Calls refuses an operation the document lacks, as InjectFault does: a
// misspelt name must not pass for an operation that was never called.
func TestCallsUnknownOperationPanics(t *testing.T) {
	e := tensorpooltest.New()
	for _, op := range []string{"storage_destroy", "DELETE /storage/{storage_id}", "delete /storage/{storage_id}"} {
		if n := e.Calls(op); n != 0 {
			t.Fatalf("Calls(%q) = %d on a new engine", op, n)
		}
	}
	defer wantPanic(t, `Calls: no operation "storage_destory"`)
	e.Calls("storage_destory")
}

// A fault's 422 has the HTTPValidationError shape every operation declares,
// so it conforms.
func TestFault422IsAnHTTPValidationError(t *testing.T) {
	s := seeded(t) // a violation fails the test
	s.Engine.InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Status: 422, RetryAfter: "1"})
	resp := attach(t, s, "s-1", "c-1")
	wantStatus(t, resp, 422)
	if resp.JSON422 == nil || len(resp.JSON422.Detail) != 1 {
		t.Fatalf("422 body %s", resp.Body)
	}
}

// A Status fault's answer is validated: for a status the operation
// declares, the engine's body must conform; Retry-After, sent or not, is the
// test's choice and never reported.
func TestFaultAnswersAreValidated(t *testing.T) {
	doc := specWith(t, func(doc map[string]any) {
		responses := obj(obj(obj(obj(doc["paths"])["/storage/{storage_id}"])["delete"])["responses"])
		responses["503"] = map[string]any{
			"description": "Overloaded",
			"headers": map[string]any{"Retry-After": map[string]any{
				"required": true, "schema": map[string]any{"type": "integer"},
			}},
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
				"type": "object", "required": []any{"retry_in"},
			}}},
		}
	})
	for _, retryAfter := range []string{"", "7", "Sun, 06 Nov 1994 08:49:37 GMT"} {
		t.Run(retryAfter, func(t *testing.T) {
			e := tensorpooltest.New(tensorpooltest.WithSpec(doc))
			e.AddStorage(tensorpooltest.Storage{ID: "s-1"})
			e.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Status: 503, RetryAfter: retryAfter})
			e.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Status: 502, RetryAfter: retryAfter})
			for _, want := range []int{503, 502} {
				req := httptest.NewRequest("DELETE", "/storage/s-1", nil)
				w := httptest.NewRecorder()
				e.ServeHTTP(w, req)
				if w.Code != want || want == 503 && !strings.Contains(w.Body.String(), `"retry_in"`) {
					t.Fatalf("status %d %s, want %d (a 503 with the retry_in its schema requires)", w.Code, w.Body, want)
				}
			}
			if v := e.Violations(); len(v) != 0 {
				t.Fatalf("violations %v, want none: the 503's body is the document's, and Retry-After and the undeclared 502 are the test's", v)
			}
		})
	}
	// A declared 429 whose schema no body satisfies (a required property
	// that additionalProperties: false forbids): the fault's answer is
	// checked, and reported.
	unsatisfiable := specWith(t, func(doc map[string]any) {
		responses := obj(obj(obj(obj(doc["paths"])["/storage/{storage_id}"])["delete"])["responses"])
		responses["429"] = map[string]any{"description": "Slow down", "content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"type": "object", "required": []any{"a"}, "additionalProperties": false},
		}}}
	})
	e := tensorpooltest.New(tensorpooltest.WithSpec(unsatisfiable), tensorpooltest.WithViolationHandler(func(tensorpooltest.Violation) {}))
	e.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	e.InjectFault("DELETE /storage/{storage_id}", 1, tensorpooltest.Fault{Status: 429})
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("DELETE", "/storage/s-1", nil))
	if v := e.Violations(); len(v) != 1 {
		t.Errorf("a fault's 429 that breaks its schema: violations %v, want that one", v)
	}
}

// TestNullRequestIDFault: the operation runs, and its 202 carries a null
// request_id, which the spec allows: the production client takes it, with
// nothing to wait for, and the answer is validated like any other.
func TestNullRequestIDFault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Second)))
		s.Engine.InjectFault("StorageDestroy", 1, tensorpooltest.Fault{NullRequestID: true})
		resp, err := s.Client.StorageDestroyWithResponse(ctx, "s-1")
		if err != nil {
			t.Fatal(err)
		}
		if resp.JSON202 == nil || resp.JSON202.RequestID != nil || !strings.Contains(string(resp.Body), `"request_id":null`) {
			t.Fatalf("body %s: want a 202 with a null request_id", resp.Body)
		}
		time.Sleep(time.Second)
		if _, ok := s.Engine.Storage("s-1"); ok {
			t.Error("the destroy did not run")
		}
		if v := s.Engine.Violations(); len(v) != 0 {
			t.Errorf("violations: %v", v)
		}
	})
}

// TestOperationNamesAsGenPrintsThem: every operation's name in gen (the
// methods of gen.ClientInterface, as its docs print them) is taken wherever
// the engine takes an operation, beside its key and its operationId.
func TestOperationNamesAsGenPrintsThem(t *testing.T) {
	s := seeded(t)
	it := reflect.TypeFor[gen.ClientInterface]()
	for i := range it.NumMethod() {
		name := it.Method(i).Name
		if j := strings.LastIndex(name, "With"); j > 0 && strings.HasSuffix(name, "Body") {
			name = name[:j] // XWithBody, XWithFormdataBody: X's variants
		}
		s.Engine.InjectFault(name, 0, tensorpooltest.Fault{}) // panics on a name it does not take
		if n := s.Engine.Calls(name); n != 0 {
			t.Errorf("Calls(%q) = %d", name, n)
		}
	}
	s.Engine.InjectFault("StorageDestroy", 1, tensorpooltest.Fault{Status: 409})
	wantStatus(t, destroy(t, s, "s-1"), 409)
	for _, op := range []string{"StorageDestroy", "storage_destroy", "storageDestroy", "DELETE /storage/{storage_id}", "delete /storage/{storage_id}"} {
		if n := s.Engine.Calls(op); n != 1 {
			t.Errorf("Calls(%q) = %d, want 1", op, n)
		}
	}
	for _, op := range []string{"GetRequestInfo", "get_request_info", "get_request_info_request_info__request_id__get"} {
		if n := s.Engine.Calls(op); n != 0 {
			t.Errorf("Calls(%q) = %d, want 0", op, n)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `no operation "StorageDestroyy"`) {
			t.Errorf("a misspelt name: %v", r)
		}
	}()
	s.Engine.Calls("StorageDestroyy")
}

// TestOperationNamedTwice: a name two operations answer to equally (two
// operationIds with one Go name) is refused, naming both, by InjectFault
// and Calls alike, never resolved to either; an operationId as written is
// that operation, and a Go name that is one operation's id and another's
// FastAPI route name is the former's, as scripts/specprep names them.
func TestOperationNamedTwice(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "items", "version": "1"}, "paths": {
	  "/items": {"get": {"operationId": "list_items", "responses": {"200": {"description": "Items"}}}},
	  "/v2/items": {"get": {"operationId": "listItems", "responses": {"200": {"description": "Items"}}}},
	  "/things": {"get": {"operationId": "list_things_things_get", "responses": {"200": {"description": "Things"}}}},
	  "/v2/things": {"get": {"operationId": "listThings", "responses": {"200": {"description": "Things"}}}}}}`
	e := tensorpooltest.New(tensorpooltest.WithSpec([]byte(doc)))
	const both = `"%s" names 2 operations, listItems (GET /v2/items), list_items (GET /items)`
	for _, op := range []string{"ListItems", "list-items", "LISTITEMS"} {
		t.Run("InjectFault "+op, func(t *testing.T) {
			defer wantPanic(t, "InjectFault: "+fmt.Sprintf(both, op))
			e.InjectFault(op, 1, tensorpooltest.Fault{Status: 503})
		})
		t.Run("Calls "+op, func(t *testing.T) {
			defer wantPanic(t, "Calls: "+fmt.Sprintf(both, op))
			e.Calls(op)
		})
	}
	if n := e.ClearFaults(); n != 0 {
		t.Fatalf("a refused name queued %d faults", n)
	}
	e.InjectFault("listItems", 1, tensorpooltest.Fault{Status: 503})
	e.InjectFault("ListThings", 1, tensorpooltest.Fault{Status: 502})
	for path, want := range map[string]int{"/items": 200, "/v2/items": 503, "/things": 200, "/v2/things": 502} {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != want {
			t.Errorf("GET %s: status %d, want %d", path, w.Code, want)
		}
	}
	for op, want := range map[string]int{"list_items": 1, "listItems": 1, "GET /v2/items": 1, "ListThings": 1, "list_things_things_get": 1} {
		if n := e.Calls(op); n != want {
			t.Errorf("Calls(%q) = %d, want %d", op, n, want)
		}
	}
}

// TestClearFaults: faults not yet used are dropped, and counted.
func TestClearFaults(t *testing.T) {
	s := seeded(t)
	s.Engine.InjectFault("GetRequestInfo", 3, tensorpooltest.Fault{Status: 503})
	s.Engine.InjectFault("StorageAttach", 1, tensorpooltest.Fault{Status: 500})
	wantStatus(t, info(t, s, "req_000001"), 503)
	if n := s.Engine.ClearFaults(); n != 3 {
		t.Errorf("ClearFaults() = %d, want 3 (2 + 1 unused)", n)
	}
	wantStatus(t, info(t, s, "req_000001"), 404)
	wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
	if n := s.Engine.ClearFaults(); n != 0 {
		t.Errorf("ClearFaults() again = %d", n)
	}
}

// TestRespondBodies: a scripted body goes as given, valid JSON or not (a
// json.RawMessage or []byte), or marshalled; a handler answers from the
// request without the key, instead of the other fields; answers queue, and ClearFaults drops the rest.
func TestRespondBodies(t *testing.T) {
	e := tensorpooltest.New(tensorpooltest.WithViolationHandler(func(tensorpooltest.Violation) {}))
	e.Respond("GetRequestInfo",
		tensorpooltest.Answer{Status: 500, Body: []byte("not JSON")},
		tensorpooltest.Answer{Status: 404, Body: map[string]string{"detail": "gone"}},
		tensorpooltest.Answer{Status: 200, Body: "the handler's instead", Header: http.Header{"X-Ignored": {"1"}}, Handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(418)
			fmt.Fprintf(w, "%s %q", r.URL.Path, r.Header.Get("Authorization"))
		}},
		tensorpooltest.Answer{Status: 503})
	for _, want := range []string{"500 not JSON", `404 {"detail":"gone"}`, `418 /request/info/r-3 ""`} {
		req := httptest.NewRequest("GET", "/request/info/r-"+strconv.Itoa(len(e.Requests("GetRequestInfo"))+1), nil)
		req.Header.Set("Authorization", "Bearer "+e.APIKey())
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if got := fmt.Sprintf("%d %s", w.Code, w.Body); got != want || w.Header().Get("X-Ignored") != "" {
			t.Errorf("got %s (X-Ignored: %q), want %s: a handler answers instead of the other fields", got, w.Header().Get("X-Ignored"), want)
		}
	}
	if n := e.ClearFaults(); n != 1 {
		t.Errorf("ClearFaults dropped %d, want the 1 answer left", n)
	}
}

// TestErrorsFollowTheDocument: the package doc's promise for a document
// that is not FastAPI's: a request that breaks it gets the operation's
// declared 400 when it declares no 422, and a bad key its declared 401
// when it declares no 403; each body valid for its status.
func TestErrorsFollowTheDocument(t *testing.T) {
	doc := specWith(t, func(doc map[string]any) {
		responses := obj(obj(obj(doc["paths"])["/storage/attach"])["post"])["responses"].(map[string]any)
		delete(responses, "422")
		delete(responses, "403")
		responses["400"] = map[string]any{"description": "Bad request", "content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"type": "object", "required": []any{"code", "message"}, "properties": map[string]any{
				"code": map[string]any{"type": "integer"}, "message": map[string]any{"type": "string"}}},
		}}}
		responses["401"] = map[string]any{"description": "No key"}
	})
	e := tensorpooltest.New(tensorpooltest.WithSpec(doc))
	for _, tc := range []struct {
		key, body string
		want      int
	}{{e.APIKey(), `{"storage_id": 7}`, 400}, {"wrong", `{"storage_id":"s-1","cluster_ids":["c-1"]}`, 401}} {
		req := httptest.NewRequest("POST", "/storage/attach", strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+tc.key)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != tc.want {
			t.Errorf("%s: status %d %s, want %d", tc.body, w.Code, w.Body, tc.want)
		}
		if tc.want == 400 && !strings.Contains(w.Body.String(), `"message"`) {
			t.Errorf("the 400's body %s lacks the message its schema requires", w.Body)
		}
	}
	if v := e.Violations(); len(v) != 0 {
		t.Errorf("violations %v, want none: each answer is one the document declares, with a valid body", v)
	}
}

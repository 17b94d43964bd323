package tensorpooltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// A contract case runs one call against a fresh engine (request and
// response validation on: a violation fails the test) and checks the
// outcome. want is the status it must get; the cases of an operation must
// between them cover every status the operation declares.
type contractCase struct {
	name string
	want int
	run  func(t *testing.T) int // returns the status it got
}

// contracts holds the contract tests of the operations the engine models,
// keyed like the engine's operations ("METHOD /path"): their behaviour is
// the engine's, beyond the document. TestEveryOperationAnswers covers
// every operation of the document.
var contracts = map[string][]contractCase{
	"POST /storage/attach":           storageAttachContract,
	"DELETE /storage/{storage_id}":   storageDestroyContract,
	"GET /request/info/{request_id}": requestInfoContract,
}

func TestContracts(t *testing.T) {
	doc := loadDoc(t, tensorpool.OpenAPIDocument())
	for op, cases := range contracts {
		t.Run(op, func(t *testing.T) {
			covered := map[int]bool{}
			for _, c := range cases {
				t.Run(fmt.Sprintf("%d %s", c.want, c.name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						if got := c.run(t); got != c.want {
							t.Errorf("status %d, want %d", got, c.want)
						}
					})
				})
				covered[c.want] = true
			}
			for _, status := range declaredStatuses(t, doc, op) {
				if !covered[status] {
					t.Errorf("%s declares status %d but no contract case covers it", op, status)
				}
			}
		})
	}
}

// TestContractsThroughNewClient runs the success cases again through the
// front door (tensorpool.NewClient: its auth, retry, body-cap and logging
// transports and client-side validation) over the same validating engine,
// so what the front door sends is held to the spec too. The error cases
// stay with the plain client: the front door refuses some before sending.
func TestContractsThroughNewClient(t *testing.T) {
	frontDoor = true
	t.Cleanup(func() { frontDoor = false })
	for op, cases := range contracts {
		for _, c := range cases {
			if c.want >= 300 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d %s", op, c.want, c.name), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					if got := c.run(t); got != c.want {
						t.Errorf("status %d, want %d", got, c.want)
					}
				})
			})
		}
	}
}

func loadDoc(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func declaredStatuses(t *testing.T, doc *openapi3.T, op string) []int {
	t.Helper()
	method, path, _ := strings.Cut(op, " ")
	item := doc.Paths.Value(path)
	if item == nil || item.GetOperation(method) == nil {
		t.Fatalf("contract for %s, which openapi.json does not have", op)
	}
	var out []int
	for code := range item.GetOperation(method).Responses.Map() {
		n, err := strconv.Atoi(code)
		if err != nil {
			t.Fatalf("%s: response %q is not a status code", op, code)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// forbidden checks a 403 for a call made with a wrong key: the answer never
// repeats the key.
func forbidden(t *testing.T, status int, body []byte) int {
	t.Helper()
	if strings.Contains(string(body), "wrong-secret") {
		t.Errorf("403 body %s echoes the API key", body)
	}
	detail(t, body)
	return status
}

var wrongKey = gen.RequestEditorFn(func(_ context.Context, r *http.Request) error {
	r.Header.Set("Authorization", "Bearer wrong-secret")
	return nil
})

var storageAttachContract = []contractCase{
	{"attaches once the request completes", 202, func(t *testing.T) int {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Second, 2*time.Second)))
		resp := attach(t, s, "s-1", "c-1")
		wantStatus(t, resp, 202)
		body := resp.JSON202
		if body.StorageID != "s-1" || len(body.RequestIDs) != 1 || body.Message == "" {
			t.Fatalf("202 body %s: want storage_id s-1, one request id, a message", resp.Body)
		}
		if c, _ := s.Engine.Cluster("c-1"); c.Storage != "" {
			t.Fatalf("attached before the request completed: %+v", c)
		}
		time.Sleep(3 * time.Second)
		if st := info(t, s, body.RequestIDs[0]).JSON200.Status; st != gen.RequestStatusCOMPLETED {
			t.Fatalf("status %s after the lifecycle, want COMPLETED", st)
		}
		c, _ := s.Engine.Cluster("c-1")
		v, _ := s.Engine.Storage("s-1")
		if c.Storage != "s-1" || !slices.Equal(v.AttachedTo, []string{"c-1"}) {
			t.Fatalf("after COMPLETED: cluster %+v, storage %+v", c, v)
		}
		return resp.StatusCode()
	}},
	{"a failed attach changes nothing", 202, func(t *testing.T) int {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Fail(0, time.Second, "no capacity")))
		resp := attach(t, s, "s-1", "c-1")
		time.Sleep(time.Second)
		got := info(t, s, resp.JSON202.RequestIDs[0]).JSON200
		if got.Status != gen.RequestStatusFAILED || got.ExternalMessage == nil || *got.ExternalMessage != "no capacity" {
			t.Fatalf("request info %+v, want FAILED with external_message", got)
		}
		if c, _ := s.Engine.Cluster("c-1"); c.Storage != "" {
			t.Fatalf("a FAILED attach attached: %+v", c)
		}
		if again := attach(t, s, "s-1", "c-1"); again.StatusCode() != 202 {
			t.Fatalf("attach after a failed one: %d %s", again.StatusCode(), again.Body)
		}
		return resp.StatusCode()
	}},
	{"storage id without s- prefix", 400, func(t *testing.T) int {
		resp := attach(t, seeded(t), "vol-1", "c-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"cluster not eligible", 400, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-cpu", Ineligible: true})
		resp := attach(t, s, "s-1", "c-cpu")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"no API key", 403, func(t *testing.T) int {
		s := seeded(t)
		status, body := raw(t, s, "POST", "/storage/attach", "application/json",
			`{"storage_id":"s-1","cluster_ids":["c-1"]}`, "Authorization", "")
		detail(t, []byte(body))
		return status
	}},
	{"wrong API key", 403, func(t *testing.T) int {
		s := seeded(t)
		resp, err := s.RawClient.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}}, wrongKey)
		if err != nil {
			t.Fatal(err)
		}
		return forbidden(t, resp.StatusCode(), resp.Body)
	}},
	{"storage not found", 404, func(t *testing.T) int {
		resp := attach(t, seeded(t), "s-nope", "c-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"cluster not found", 404, func(t *testing.T) int {
		resp := attach(t, seeded(t), "s-1", "c-nope")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"cluster already has storage attached", 409, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-old", AttachedTo: []string{"c-1"}})
		resp := attach(t, s, "s-1", "c-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"storage not ready", 409, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-new", NotReady: true})
		resp := attach(t, s, "s-new", "c-1")
		if d := detail(t, resp.Body); d != "Storage s-new is not ready" {
			t.Errorf("detail %q", d)
		}
		return resp.StatusCode()
	}},
	{"storage busy with an attach in flight", 409, func(t *testing.T) int {
		s := seeded(t)
		wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
		resp := attach(t, s, "s-1", "c-2")
		if d := detail(t, resp.Body); d != "Storage s-1 is busy: request req_000001 is in progress" {
			t.Errorf("detail %q", d)
		}
		return resp.StatusCode()
	}},
	{"missing cluster_ids", 422, func(t *testing.T) int {
		s := seeded(t)
		resp, err := s.RawClient.StorageAttachWithBodyWithResponse(ctx, "application/json", strings.NewReader(`{"storage_id":"s-1"}`))
		if err != nil {
			t.Fatal(err)
		}
		wantValidationError(t, resp.JSON422, "cluster_ids")
		return resp.StatusCode()
	}},
	{"two cluster ids (maxItems 1)", 422, func(t *testing.T) int {
		resp := attach(t, seeded(t), "s-1", "c-1", "c-2")
		wantValidationError(t, resp.JSON422, "cluster_ids")
		return resp.StatusCode()
	}},
	{"not JSON", 422, func(t *testing.T) int {
		s := seeded(t)
		resp, err := s.RawClient.StorageAttachWithBodyWithResponse(ctx, "text/plain", strings.NewReader(`s-1 c-1`))
		if err != nil {
			t.Fatal(err)
		}
		wantValidationError(t, resp.JSON422, "")
		return resp.StatusCode()
	}},
	{"internal error (injected)", 500, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.InjectFault("POST /storage/attach", 1, tensorpooltest.Fault{Status: 500})
		resp := attach(t, s, "s-1", "c-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
}

var storageDestroyContract = []contractCase{
	{"destroys once the request completes", 202, func(t *testing.T) int {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Second, time.Second)))
		resp := destroy(t, s, "s-1")
		wantStatus(t, resp, 202)
		if resp.JSON202.StorageID != "s-1" || resp.JSON202.RequestID == nil || resp.JSON202.Message == "" {
			t.Fatalf("202 body %s: want storage_id, request_id, message", resp.Body)
		}
		if _, ok := s.Engine.Storage("s-1"); !ok {
			t.Fatal("destroyed before the request completed")
		}
		time.Sleep(2 * time.Second)
		got := info(t, s, *resp.JSON202.RequestID).JSON200
		if got.Status != gen.RequestStatusCOMPLETED || got.RequestType != gen.RequestTypeSTORAGEDESTROY || got.ObjectID == nil || *got.ObjectID != "s-1" {
			t.Fatalf("request info %+v", got)
		}
		if _, ok := s.Engine.Storage("s-1"); ok {
			t.Fatal("storage still exists after COMPLETED")
		}
		again, err := s.RawClient.StorageDestroyWithResponse(ctx, "s-1")
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, again, 404)
		return resp.StatusCode()
	}},
	{"the id is path-escaped and unescaped intact", 202, func(t *testing.T) int {
		s := seeded(t)
		odd := "s-a/b c?d%e#ü"
		if frontDoor {
			odd = "s-a b?c%d#ü:e" // the front door refuses a '/' (its id rule)
		}
		s.Engine.AddStorage(tensorpooltest.Storage{ID: odd})
		resp := destroy(t, s, odd)
		wantStatus(t, resp, 202)
		if resp.JSON202.StorageID != odd {
			t.Fatalf("storage_id %q, want %q", resp.JSON202.StorageID, odd)
		}
		return resp.StatusCode()
	}},
	{"invalid storage id format", 400, func(t *testing.T) int {
		resp := destroy(t, seeded(t), "vol-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"wrong API key", 403, func(t *testing.T) int {
		s := seeded(t)
		resp, err := s.RawClient.StorageDestroyWithResponse(ctx, "s-1", wrongKey)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Engine.Storage("s-1"); !ok {
			t.Fatal("an unauthenticated destroy destroyed")
		}
		return forbidden(t, resp.StatusCode(), resp.Body)
	}},
	{"storage not found", 404, func(t *testing.T) int {
		resp := destroy(t, seeded(t), "s-nope")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"deletion protection enabled", 409, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-keep", DeletionProtection: true})
		resp := destroy(t, s, "s-keep")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"still attached to a cluster", 409, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-used", AttachedTo: []string{"c-2"}})
		resp := destroy(t, s, "s-used")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"attached by a completed attach", 409, func(t *testing.T) int {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Second)))
		wantStatus(t, attach(t, s, "s-1", "c-1"), 202)
		time.Sleep(time.Second)
		resp := destroy(t, s, "s-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"a body on a DELETE", 422, func(t *testing.T) int {
		status, body := raw(t, seeded(t), "DELETE", "/storage/s-1", "application/json", `{"force":true}`)
		var v gen.HTTPValidationError
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		wantValidationError(t, &v, "")
		return status
	}},
	{"internal error (injected)", 500, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.InjectFault("storage_destroy", 1, tensorpooltest.Fault{Status: 500})
		resp := destroy(t, s, "s-1")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
}

var requestInfoContract = []contractCase{
	{"walks PENDING, PROCESSING, RETRYING to COMPLETED", 200, func(t *testing.T) int {
		s := seeded(t, tensorpooltest.WithRetryAfter(3*time.Second, tensorpooltest.RetryAfterSeconds))
		s.Engine.QueueLifecycles(tensorpooltest.Lifecycle{
			{Status: gen.RequestStatusPENDING, For: time.Second},
			{Status: gen.RequestStatusPROCESSING, For: time.Second},
			{Status: gen.RequestStatusRETRYING, For: time.Second, Message: "node restart, retrying"},
			{Status: gen.RequestStatusPROCESSING, For: time.Second},
			{Status: gen.RequestStatusCOMPLETED},
		})
		id := attach(t, s, "s-1", "c-1").JSON202.RequestIDs[0]
		var seen []gen.RequestStatus
		var last *gen.GetRequestInfoResponse
		for range 5 {
			last = info(t, s, id)
			wantStatus(t, last, 200)
			got := last.JSON200
			seen = append(seen, got.Status)
			ra := last.HTTPResponse.Header.Get("Retry-After")
			if got.Status == gen.RequestStatusCOMPLETED {
				if ra != "" {
					t.Errorf("Retry-After %q on a terminal status", ra)
				}
			} else if ra != "3" {
				t.Errorf("%s: Retry-After %q, want \"3\"", got.Status, ra)
			}
			if got.RequestID != id || got.RequestType != gen.RequestTypeSTORAGEATTACH || got.CreatedAt == "" {
				t.Errorf("request info %+v", got)
			}
			if _, err := time.Parse(time.RFC3339Nano, got.CreatedAt); err != nil {
				t.Errorf("created_at %q: %v", got.CreatedAt, err)
			}
			time.Sleep(time.Second)
		}
		want := []gen.RequestStatus{"PENDING", "PROCESSING", "RETRYING", "PROCESSING", "COMPLETED"}
		if !slices.Equal(seen, want) {
			t.Fatalf("statuses %v, want %v", seen, want)
		}
		return last.StatusCode()
	}},
	{"Retry-After as an HTTP-date, with Date", 200, func(t *testing.T) int {
		s := seeded(t, tensorpooltest.WithRetryAfter(5*time.Second, tensorpooltest.RetryAfterHTTPDate))
		id := attach(t, s, "s-1", "c-1").JSON202.RequestIDs[0]
		resp := info(t, s, id)
		h := resp.HTTPResponse.Header
		ra, err := http.ParseTime(h.Get("Retry-After"))
		if err != nil {
			t.Fatalf("Retry-After %q: %v", h.Get("Retry-After"), err)
		}
		date, err := http.ParseTime(h.Get("Date"))
		if err != nil {
			t.Fatalf("Date %q: %v", h.Get("Date"), err)
		}
		if d := ra.Sub(date); d != 5*time.Second {
			t.Fatalf("Retry-After - Date = %v, want 5s", d)
		}
		return resp.StatusCode()
	}},
	{"FAILED carries external_message and no Retry-After", 200, func(t *testing.T) int {
		s := seeded(t)
		s.Engine.QueueLifecycles(tensorpooltest.Fail(time.Second, 0, "cluster unreachable"))
		id := *destroy(t, s, "s-1").JSON202.RequestID
		time.Sleep(time.Second)
		resp := info(t, s, id)
		got := resp.JSON200
		if got.Status != gen.RequestStatusFAILED || got.ExternalMessage == nil || *got.ExternalMessage != "cluster unreachable" {
			t.Fatalf("request info %s", resp.Body)
		}
		if ra := resp.HTTPResponse.Header.Get("Retry-After"); ra != "" {
			t.Fatalf("Retry-After %q on FAILED", ra)
		}
		if _, ok := s.Engine.Storage("s-1"); !ok {
			t.Fatal("a FAILED destroy destroyed")
		}
		return resp.StatusCode()
	}},
	{"unknown request id (undeclared 404)", 404, func(t *testing.T) int {
		resp := info(t, seeded(t), "req_nope")
		detail(t, resp.Body)
		return resp.StatusCode()
	}},
	{"wrong API key (undeclared 403)", 403, func(t *testing.T) int {
		s := seeded(t)
		resp, err := s.RawClient.GetRequestInfoWithResponse(ctx, "req_000001", wrongKey)
		if err != nil {
			t.Fatal(err)
		}
		return forbidden(t, resp.StatusCode(), resp.Body)
	}},
	{"a body on a GET", 422, func(t *testing.T) int {
		s := seeded(t)
		status, body := raw(t, s, "GET", "/request/info/req_000001", "application/json", `{}`)
		var v gen.HTTPValidationError
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		wantValidationError(t, &v, "")
		return status
	}},
}

// wantValidationError checks a 422 body: at least one item, each with loc,
// msg and type, and field (if not empty) named in some item's loc.
func wantValidationError(t *testing.T, v *gen.HTTPValidationError, field string) {
	t.Helper()
	if v == nil || len(v.Detail) == 0 {
		t.Fatalf("422 without an HTTPValidationError body: %+v", v)
	}
	found := field == ""
	for _, item := range v.Detail {
		if len(item.Loc) == 0 || item.Msg == "" || item.Type == "" {
			t.Errorf("validation item %+v lacks loc, msg or type", item)
		}
		for _, l := range item.Loc {
			if l == field {
				found = true
			}
		}
	}
	if !found {
		b, _ := json.Marshal(v)
		t.Errorf("422 body %s does not name %q in any loc", b, field)
	}
}

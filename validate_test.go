package tensorpool

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/gen/operations"
)

// TestValidationBeforeSending: a request breaking a constraint that
// openapi.json states (cluster_ids: minItems 1, maxItems 1) fails with
// ErrInvalidRequest, and nothing reaches the transport; rules the spec
// does not state (the "s-" prefix of its prose) are the server's.
func TestValidationBeforeSending(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, okStatus(r.Method), nil, okBody(r.Method)), nil
	}}
	c := fakeClient(t, f)
	for name, tc := range map[string]struct {
		call func() error
		want string
	}{
		"two clusters": {func() error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1", "c-2"}})
			return err
		}, "tensorpool: POST /storage/attach: invalid cluster_ids: must have exactly one element, got 2 (nothing was sent)"},
		"no cluster (null)": {func() error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1"})
			return err
		}, "invalid cluster_ids: must have exactly one element, got 0"},
		"empty list, streamed": {func() error {
			_, err := c.StorageAttachWithBodyWithResponse(bg, "application/json", io.MultiReader(strings.NewReader(`{"storage_id":"s-1","cluster_ids":[]}`)))
			return err
		}, "invalid cluster_ids: must have exactly one element, got 0"},
		"storage_id missing": {func() error {
			_, err := c.StorageAttachWithBodyWithResponse(bg, "application/json", strings.NewReader(`{"cluster_ids":["c-1"]}`))
			return err
		}, "invalid storage_id: is required"},
	} {
		err := tc.call()
		if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
		noKey(t, name, err)
	}
	if f.n() != 0 {
		t.Errorf("%d invalid requests were sent", f.n())
	}

	// valid requests go through, a streamed body intact; so do rules the
	// spec states only in prose, and JSON the server should judge
	if _, err := Check(c.StorageAttachWithResponse(bg, attachBody)); err != nil {
		t.Error(err)
	}
	if _, err := Check(c.StorageDestroyWithResponse(bg, "not-an-s-id")); err != nil {
		t.Error(err)
	}
	streamed := `{"storage_id":"s-9","cluster_ids":["c-9"]}`
	if _, err := Check(c.StorageAttachWithBodyWithResponse(bg, "application/json", io.MultiReader(strings.NewReader(streamed)))); err != nil {
		t.Error(err)
	}
	for _, body := range []string{`{"storage_id":`, `{"storage_id":7,"cluster_ids":"c-1"}`} {
		_, _ = c.StorageAttachWithBodyWithResponse(bg, "application/json", strings.NewReader(body))
	}
	if f.n() != 5 || f.get(2).body != streamed {
		t.Errorf("%d sent, want 5; streamed body %q", f.n(), f.get(2).body)
	}
}

// grownSpec states the constraints openapi.json may grow: required, enum
// and pattern on a body and a path parameter, through a $ref.
const grownSpec = `{"paths":{
  "/v/{kind}/items":{"parameters":[],"post":{
    "parameters":[{"name":"kind","in":"path","schema":{"enum":["a","b"]}}],
    "requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Item"}}}}}},
  "/v/list/items":{"post":{}}},
 "components":{"schemas":{"Item":{"required":["id"],"properties":{
   "id":{"pattern":"^i-"},
   "size":{"enum":[1,2]},
   "tags":{"maxItems":2,"items":{"pattern":"^[a-z]+$"}},
   "nested":{"properties":{"mode":{"enum":["on","off"]}}}}}}}}`

// TestValidationFromTheSpec: the check is driven by the document alone, for
// any operation it holds: a path parameter's schema before the request is
// built, the JSON body's before it is sent.
func TestValidationFromTheSpec(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 200, nil, `{}`), nil }}
	ops := []operations.Operation{
		{Method: "POST", Path: "/v/{kind}/items", PathParams: []string{"kind"}, Other2xx: operations.AnyBody},
		{Method: "POST", Path: "/v/list/items", Other2xx: operations.AnyBody},
		{Method: "POST", Path: "/other", Other2xx: operations.AnyBody},
	}
	d := doerOf(fakeClient(t, f))
	d.doc = loadDocument([]byte(grownSpec), ops)
	for _, tc := range []struct {
		op         int
		kind, body string
		want       string
	}{
		{0, "a", `{"id":"i-1","size":2,"tags":["x","y"],"nested":{"mode":"on"}}`, ""},
		{0, "c", `{"id":"i-1"}`, `POST /v/{kind}/items: invalid kind: must be one of [a b], got c`},
		{0, "a", `{"size":1}`, `invalid id: is required`},
		{0, "a", `{"id":"x-1"}`, `invalid id: must match "^i-", got "x-1"`},
		{0, "a", `{"id":"i-1","size":3}`, `invalid size: must be one of [1 2], got 3`},
		{0, "a", `{"id":"i-1","tags":["a","b","c"]}`, `invalid tags: must have at most 2 elements, got 3`},
		{0, "a", `{"id":"i-1","tags":["a","B"]}`, `invalid tags[1]: must match`},
		{0, "a", `{"id":"i-1","nested":{"mode":"auto"}}`, `invalid nested.mode: must be one of [on off], got auto`},
		{0, "a", `{"id":"i-1","size":{"x":1},"tags":"a"}`, ""}, // wrong types: the server's to judge
		{1, "", `{}`, ""}, // the literal route, which states nothing
		{2, "", `{}`, ""}, // no operation of the document: nothing to check
	} {
		op := &ops[tc.op]
		err := error(nil)
		if len(op.PathParams) > 0 {
			err = d.checkPath(op, 0, tc.kind)
		}
		if err == nil {
			req, _ := http.NewRequest("POST", "https://engine.test/x", strings.NewReader(tc.body))
			_, err = d.do(op, req)
		}
		if tc.want == "" && err != nil || tc.want != "" && (!errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("POST %s (%s) %s: err %v, want %q", op.Path, tc.kind, tc.body, err, tc.want)
		}
	}
	odd := []operations.Operation{{Method: "POST", Path: "/x", PathParams: []string{"a"}}}
	if d := loadDocument([]byte(`{"paths":{"/x":{"post":{"parameters":"odd","requestBody":7}}}}`), odd); d.ops[&odd[0]].body != nil || len(d.ops[&odd[0]].params) != 0 {
		t.Error("an operation the reader cannot decode has constraints")
	}
}

func TestWithoutClientValidation(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 422, nil, `{"detail":[{"loc":["body","cluster_ids"],"msg":"List should have at most 1 item","type":"too_long"}]}`), nil
	}}
	c := fakeClient(t, f, WithoutClientValidation())
	_, err := Check(c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"a", "b"}}))
	if !IsStatus(err, http.StatusUnprocessableEntity) || f.n() != 1 {
		t.Errorf("err %v after %d requests", err, f.n())
	}
}

// TestValidationWithBasePath: a base URL with a path changes nothing.
func TestValidationWithBasePath(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, attachOK), nil }}
	c := fakeClient(t, f, WithBaseURL("https://proxy.example/tensorpool/"))
	two := gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1", "c-2"}}
	if _, err := c.StorageAttachWithResponse(bg, two); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("err %v", err)
	}
	if _, err := Check(c.StorageAttachWithResponse(bg, attachBody)); err != nil || f.get(0).path != "/tensorpool/storage/attach" {
		t.Errorf("err %v", err)
	}
}

// TestLargeStreamedBodySentUnvalidated: a streamed body too large to hold
// for validation (past 1 MiB, no GetBody) is sent whole, not refused: the
// spec states no size limit, so the server judges it.
func TestLargeStreamedBodySentUnvalidated(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, attachOK), nil }}
	c := fakeClient(t, f)
	big := `{"storage_id":"s-1","cluster_ids":["c-1","c-2"],"pad":"` + strings.Repeat("x", 2<<20) + `"}`
	_, err := Check(c.StorageAttachWithBodyWithResponse(bg, "application/json", io.MultiReader(strings.NewReader(big))))
	if err != nil || f.n() != 1 || string(f.calls[0].body) != big {
		t.Fatalf("err %v, %d requests; want the %d bytes sent whole", err, f.n(), len(big))
	}
}

package tensorpool

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

// TestValidationBeforeSending: a request breaking a rule of the spec fails
// with an *InvalidRequestError and nothing reaches the transport.
func TestValidationBeforeSending(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, okStatus(r.Method), nil, okBody(r.Method)), nil
	}}
	c := fakeClient(t, f)
	cases := []struct {
		name  string
		call  func() error
		field string
	}{
		{"attach: storage_id without s-", func() error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "abc", ClusterIDs: []string{"c-1"}})
			return err
		}, "storage_id"},
		{"attach: empty storage_id", func() error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{ClusterIDs: []string{"c-1"}})
			return err
		}, "storage_id"},
		{"attach: no cluster", func() error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1"})
			return err
		}, "cluster_ids"},
		{"attach: two clusters", func() error {
			_, err := c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1", "c-2"}})
			return err
		}, "cluster_ids"},
		{"attach with a streamed body", func() error {
			_, err := c.StorageAttachWithBodyWithResponse(bg, "application/json", io.MultiReader(strings.NewReader(`{"storage_id":"x-1","cluster_ids":["c-1"]}`)))
			return err
		}, "storage_id"},
		{"destroy: storage_id without s-", func() error {
			_, err := c.StorageDestroyWithResponse(bg, "c-123")
			return err
		}, "storage_id"},
		{"destroy: escaped id", func() error {
			_, err := c.StorageDestroyWithResponse(bg, "x/../s-1")
			return err
		}, "storage_id"},
	}
	for _, tc := range cases {
		err := tc.call()
		var ie *InvalidRequestError
		if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidRequest) || ie.Field != tc.field {
			t.Errorf("%s: err %v, want an invalid %s", tc.name, err, tc.field)
			continue
		}
		if !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("%s: %q", tc.name, err)
		}
		noKey(t, tc.name, err)
	}
	if f.n() != 0 {
		t.Errorf("%d invalid requests were sent", f.n())
	}

	// valid requests go through, streamed body intact
	if _, err := Check(c.StorageAttachWithResponse(bg, attachBody)); err != nil {
		t.Error(err)
	}
	if _, err := Check(c.StorageDestroyWithResponse(bg, "s-1")); err != nil {
		t.Error(err)
	}
	streamed := `{"storage_id":"s-9","cluster_ids":["c-9"]}`
	if _, err := Check(c.StorageAttachWithBodyWithResponse(bg, "application/json", io.MultiReader(strings.NewReader(streamed)))); err != nil {
		t.Error(err)
	}
	if f.n() != 3 || f.get(2).body != streamed {
		t.Errorf("%d sent; streamed body %q", f.n(), f.get(2).body)
	}
	// other routes are left alone
	if _, err := Check(c.GetRequestInfoWithResponse(bg, "anything")); err != nil {
		t.Error(err)
	}
}

// TestValidationExactKeys: JSON keys are matched exactly, as the server
// (FastAPI, Python's json) matches them; a repeated key: the last one wins.
func TestValidationExactKeys(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 202, nil, attachOK), nil
	}}
	c := fakeClient(t, f)
	for _, tc := range []struct {
		body  string
		field string // "" when the request must be sent
	}{
		{`{"storage_id":"s-1","cluster_ids":["c-1"],"STORAGE_ID":"bad"}`, ""},
		{`{"storage_id":"bad","cluster_ids":["c-1"],"Storage_Id":"s-1"}`, "storage_id"},
		{`{"Storage_Id":"s-1","cluster_ids":["c-1"]}`, "storage_id"}, // the server sees no storage_id
		{`{"storage_id":"s-1","CLUSTER_IDS":["c-1"]}`, "cluster_ids"},
		{`{"storage_id":"s-1","cluster_ids":["c-1"],"cluster_ids":["c-1","c-2"]}`, "cluster_ids"},
		{`{"storage_id":"bad","storage_id":"s-1","cluster_ids":["c-1"]}`, ""},
		{`{"storage_id":7,"cluster_ids":["c-1"]}`, ""}, // wrong type: the server's 422 says it
	} {
		n := f.n()
		_, err := c.StorageAttachWithBodyWithResponse(bg, "application/json", strings.NewReader(tc.body))
		var ie *InvalidRequestError
		switch {
		case tc.field == "" && (err != nil || f.n() != n+1):
			t.Errorf("%s: err %v, sent %t; want it sent", tc.body, err, f.n() == n+1)
		case tc.field != "" && (!errors.As(err, &ie) || ie.Field != tc.field || f.n() != n):
			t.Errorf("%s: err %v; want an invalid %s, nothing sent", tc.body, err, tc.field)
		}
	}
}

func TestValidationMalformedJSONGoesToServer(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 422, nil, `{"detail":[{"loc":["body"],"msg":"JSON decode error","type":"json_invalid"}]}`), nil
	}}
	c := fakeClient(t, f)
	_, err := Check(c.StorageAttachWithBodyWithResponse(bg, "application/json", strings.NewReader(`{"storage_id":`)))
	if !IsUnprocessable(err) || f.n() != 1 {
		t.Errorf("err %v after %d requests", err, f.n())
	}
}

func TestWithoutClientValidation(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 422, nil, `{"detail":[{"loc":["body","cluster_ids"],"msg":"List should have at most 1 item","type":"too_long"}]}`), nil
	}}
	c := fakeClient(t, f, WithoutClientValidation())
	_, err := Check(c.StorageAttachWithResponse(bg, gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"a", "b"}}))
	if !IsUnprocessable(err) || f.n() != 1 {
		t.Errorf("err %v after %d requests", err, f.n())
	}
}

// TestValidationWithBasePath: routes are matched below the base URL's path.
func TestValidationWithBasePath(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, destroyOK), nil }}
	c := fakeClient(t, f, WithBaseURL("https://proxy.example/tensorpool/"))
	if _, err := c.StorageDestroyWithResponse(bg, "nope"); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("err %v", err)
	}
	if _, err := Check(c.StorageDestroyWithResponse(bg, "s-1")); err != nil || f.get(0).path != "/tensorpool/storage/s-1" {
		t.Errorf("err %v", err)
	}
	// validateRequest on its own
	req, _ := http.NewRequest("DELETE", "https://x/storage/c-1", nil)
	if validateRequest(req, "") == nil || validateRequest(req, "/other") != nil {
		t.Error("validateRequest base path handling")
	}
}

// TestSpecStatesValidationRules ties validate.go to openapi.json: if the
// spec stops stating a rule, this fails and the rule must go.
func TestSpecStatesValidationRules(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Description string `json:"description"`
					MinItems    *int   `json:"minItems"`
					MaxItems    *int   `json:"maxItems"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Components.Schemas["StorageAttachRestRequest"].Properties
	if !strings.Contains(props["storage_id"].Description, "must start with 's-'") {
		t.Errorf("storage_id description: %q", props["storage_id"].Description)
	}
	ci := props["cluster_ids"]
	if ci.MinItems == nil || *ci.MinItems != 1 || ci.MaxItems == nil || *ci.MaxItems != 1 {
		t.Errorf("cluster_ids: minItems %v maxItems %v", ci.MinItems, ci.MaxItems)
	}
	var del struct {
		Responses map[string]struct {
			Description string `json:"description"`
		} `json:"responses"`
	}
	if raw, ok := doc.Paths["/storage/{storage_id}"]["delete"]; !ok {
		t.Error("DELETE /storage/{storage_id} is gone")
	} else if json.Unmarshal(raw, &del) != nil || !strings.Contains(del.Responses["400"].Description, "Invalid storage ID format") {
		t.Errorf("DELETE /storage/{storage_id} no longer declares 400 \"Invalid storage ID format\": %+v", del.Responses)
	}
	if _, ok := doc.Paths["/storage/attach"]["post"]; !ok {
		t.Error("POST /storage/attach is gone")
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genSource is what oapi-codegen writes for three operations, cut to what
// genops reads: the interfaces, their docs and their imports. A path
// parameter that is not a string, one used twice in its template, and
// one named as genops' receiver are there; so is the doc of an operation
// without a summary.
const genSource = `package gen

import (
	"context"
	"io"
	"net/http"

	openapi_types "github.com/oapi-codegen/runtime/types"
)

type ClientInterface interface {
	// GetThing Get a thing
	//
	// Corresponds with GET /things/{thing_id}/parts/{c} (the ` + "`GetThing`" + ` operationId).
	GetThing(ctx context.Context, thingID openapi_types.UUID, c string, params *GetThingParams, reqEditors ...RequestEditorFn) (*http.Response, error)

	// PutTwiceWithBody PutTwice performs a PUT /a/{x}/b/{x} (the ` + "`PutTwice`" + ` operationId) request,
	// with any type of body and a specified content type.
	PutTwiceWithBody(ctx context.Context, x Kind, contentType string, body io.Reader, reqEditors ...RequestEditorFn) (*http.Response, error)

	// Ping Corresponds with HEAD /ping (the ` + "`Ping`" + ` operationId).
	Ping(ctx context.Context, reqEditors ...RequestEditorFn) (*http.Response, error)
}

type ClientWithResponsesInterface interface {
	// GetThingWithResponse Corresponds with GET /things/{thing_id}/parts/{c} (the ` + "`GetThing`" + ` operationId).
	GetThingWithResponse(ctx context.Context, thingID openapi_types.UUID, c string, params *GetThingParams, reqEditors ...RequestEditorFn) (*GetThingResponse, error)
	// PutTwiceWithBodyWithResponse PutTwice performs a PUT /a/{x}/b/{x} (the ` + "`PutTwice`" + ` operationId) request.
	PutTwiceWithBodyWithResponse(ctx context.Context, x Kind, contentType string, body io.Reader, reqEditors ...RequestEditorFn) (*PutTwiceResponse, error)
	// PingWithResponse Corresponds with HEAD /ping (the ` + "`Ping`" + ` operationId).
	PingWithResponse(ctx context.Context, reqEditors ...RequestEditorFn) (*PingResponse, error)
}
`

// TestGenerate: each method of gen.ClientInterface gets its operation from
// its doc, checks its path arguments (a non-string one through pathText, a
// parameter used twice once) and calls through its operation's gen.Client,
// gen's types qualified and imported; each response type names its
// operation once.
func TestGenerate(t *testing.T) {
	responses := map[string]map[string]*response{
		"GET /things/{thing_id}/parts/{c}": {"200": {Content: map[string]json.RawMessage{"application/json": nil}}},
		"PUT /a/{x}/b/{x}":                 {"204": {}},
		"HEAD /ping":                       {},
	}
	out, err := generate([]byte(genSource), responses)
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	for _, want := range []string{
		`openapi_types "github.com/oapi-codegen/runtime/types"`,
		"var All = []Operation{", // a slice: a spec sync must not change its type
		`{Method: "GET", Path: "/things/{thing_id}/parts/{c}", PathParams: []string{"thing_id", "c"}, Statuses: map[int]Body{200: JSONBody}, Other2xx: NotDeclared},`,
		`{Method: "PUT", Path: "/a/{x}/b/{x}", PathParams: []string{"x"}, Statuses: map[int]Body{204: AnyBody}, Other2xx: NotDeclared},`,
		`{Method: "HEAD", Path: "/ping", Statuses: map[int]Body{}, Other2xx: SomeJSON},`,
		"func (c_ *Client) GetThing(ctx context.Context, thingID openapi_types.UUID, c string, params *gen.GetThingParams, reqEditors ...gen.RequestEditorFn) (*http.Response, error) {",
		"if err := c_.check(&All[0], 0, pathText(thingID)); err != nil {",
		"if err := c_.check(&All[0], 1, c); err != nil {",
		"return c_.Clients[0].GetThing(ctx, thingID, c, params, reqEditors...)",
		"if err := c.check(&All[1], 0, pathText(x)); err != nil {",
		"return c.Clients[1].PutTwiceWithBody(ctx, x, contentType, body, reqEditors...)",
		"func (c *Client) Ping(ctx context.Context, reqEditors ...gen.RequestEditorFn) (*http.Response, error) {\n\treturn c.Clients[2].Ping(ctx, reqEditors...)",
		"case *gen.PutTwiceResponse, gen.PutTwiceResponse:\n\t\treturn &All[1]",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the output lacks %q:\n%s", want, src)
		}
	}
	if _, err := generate([]byte(strings.Replace(genSource, "Corresponds with HEAD", "Sends HEAD", 2)), responses); err == nil || !strings.Contains(err.Error(), "Ping: its doc names no operation") {
		t.Errorf("a method whose doc names no operation: %v", err)
	}
	delete(responses, "HEAD /ping")
	if _, err := generate([]byte(genSource), responses); err == nil || !strings.Contains(err.Error(), "HEAD /ping is not in the spec") {
		t.Errorf("an operation the spec lacks: %v", err)
	}
}

// TestSuccesses: an exact status wins over "2XX", which wins over
// "default"; "default" counts only where no 2xx is declared; an operation
// that declares no response takes any 2xx; a response's body is JSON only,
// JSON among others, or no JSON ($refs followed).
func TestSuccesses(t *testing.T) {
	spec := `{"paths":{"/x":{"parameters":[],"get":{"responses":{
		"200":{"content":{"application/json":{}}},
		"202":{"content":{"text/plain":{},"Application/Problem+JSON":{}}},
		"204":{"description":"gone"},
		"2XX":{"content":{"application/json":{}}},
		"default":{"content":{"text/plain":{}}}}},
	  "put":{"responses":{"default":{"$ref":"#/components/responses/Any"},"404":{}}},
	  "post":{}}},
	 "components":{"responses":{"Any":{"content":{"application/json":{}}}}}}`
	file := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	responses, err := declaredResponses(file)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]string{
		"GET /x":  {"200: JSONBody, 202: SomeJSON, 204: AnyBody", "JSONBody"},
		"PUT /x":  {"", "JSONBody"},
		"POST /x": {"", "SomeJSON"},
	} {
		if statuses, other := successes(responses[key]); statuses != want[0] || other != want[1] {
			t.Errorf("%s: %q, %s; want %q, %s", key, statuses, other, want[0], want[1])
		}
	}
	if statuses, other := successes(map[string]*response{"default": {}, "201": {}}); statuses != "201: AnyBody" || other != "NotDeclared" {
		t.Errorf(`"default" beside a 2xx: %q, %s`, statuses, other)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// genSource is what oapi-codegen writes for three operations, cut to what
// genops reads: the interfaces, the client methods and their request
// builders. A path parameter that is not a string and one named as gen's
// receiver are there, and a doc that quotes another operation's line.
const genSource = `package gen

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/oapi-codegen/runtime"
	openapi_types "github.com/oapi-codegen/runtime/types"
)

type ClientInterface interface {
	// GetThing performs a HEAD /ping (the ` + "`Ping`" + ` operationId) request: a doc that names another operation.
	GetThing(ctx context.Context, thingID openapi_types.UUID, c string, params *GetThingParams, reqEditors ...RequestEditorFn) (*http.Response, error)
	PutThingWithBody(ctx context.Context, thingID openapi_types.UUID, contentType string, body io.Reader, reqEditors ...RequestEditorFn) (*http.Response, error)
	PutThing(ctx context.Context, thingID openapi_types.UUID, body PutThingJSONRequestBody, reqEditors ...RequestEditorFn) (*http.Response, error)
	Ping(ctx context.Context, reqEditors ...RequestEditorFn) (*http.Response, error)
}

func (c *Client) GetThing(ctx context.Context, thingID openapi_types.UUID, c string, params *GetThingParams, reqEditors ...RequestEditorFn) (*http.Response, error) {
	req, err := NewGetThingRequest(c.Server, thingID, c, params)
	return c.Client.Do(req)
}

func (c *Client) PutThingWithBody(ctx context.Context, thingID openapi_types.UUID, contentType string, body io.Reader, reqEditors ...RequestEditorFn) (*http.Response, error) {
	req, err := NewPutThingRequestWithBody(c.Server, thingID, contentType, body)
	return c.Client.Do(req)
}

func (c *Client) PutThing(ctx context.Context, thingID openapi_types.UUID, body PutThingJSONRequestBody, reqEditors ...RequestEditorFn) (*http.Response, error) {
	req, err := NewPutThingRequest(c.Server, thingID, body)
	return c.Client.Do(req)
}

func (c *Client) Ping(ctx context.Context, reqEditors ...RequestEditorFn) (*http.Response, error) {
	req, err := NewPingRequest(c.Server)
	return c.Client.Do(req)
}

func NewGetThingRequest(server string, thingID openapi_types.UUID, c string, params *GetThingParams) (*http.Request, error) {
	var pathParam0 string
	pathParam0, err = runtime.StyleParamWithOptions("simple", false, "thing_id", thingID, runtime.StyleParamOptions{ParamLocation: runtime.ParamLocationPath, Type: "string", Format: "uuid"})
	var pathParam1 string
	pathParam1, err = runtime.StyleParamWithOptions("simple", false, "c", c, runtime.StyleParamOptions{ParamLocation: runtime.ParamLocationPath, Type: "string", Format: ""})
	operationPath := fmt.Sprintf("/things/%s/parts/%s", pathParam0, pathParam1)
	req, err := http.NewRequest(http.MethodGet, queryURL.String(), nil)
	return req, nil
}

func NewPutThingRequest(server string, thingID openapi_types.UUID, body PutThingJSONRequestBody) (*http.Request, error) {
	return NewPutThingRequestWithBody(server, thingID, "application/json", bodyReader)
}

func NewPutThingRequestWithBody(server string, thingID openapi_types.UUID, contentType string, body io.Reader) (*http.Request, error) {
	var pathParam0 string
	pathParam0, err = runtime.StyleParamWithOptions("simple", false, "thing_id", thingID, runtime.StyleParamOptions{ParamLocation: runtime.ParamLocationPath, Type: "string", Format: "uuid"})
	operationPath := fmt.Sprintf("/things/%s", pathParam0)
	req, err := http.NewRequest(http.MethodPut, queryURL.String(), body)
	return req, nil
}

func NewPingRequest(server string) (*http.Request, error) {
	operationPath := fmt.Sprintf("/ping")
	req, err := http.NewRequest("HEAD", queryURL.String(), nil)
	return req, nil
}

type ClientWithResponsesInterface interface {
	GetThingWithResponse(ctx context.Context, thingID openapi_types.UUID, c string, params *GetThingParams, reqEditors ...RequestEditorFn) (*GetThingResponse, error)
	PutThingWithBodyWithResponse(ctx context.Context, thingID openapi_types.UUID, contentType string, body io.Reader, reqEditors ...RequestEditorFn) (*PutThingResponse, error)
	PutThingWithResponse(ctx context.Context, thingID openapi_types.UUID, body PutThingJSONRequestBody, reqEditors ...RequestEditorFn) (*PutThingResponse, error)
	PingWithResponse(ctx context.Context, reqEditors ...RequestEditorFn) (*PingResponse, error)
}

func (c *ClientWithResponses) GetThingWithResponse(ctx context.Context, thingID openapi_types.UUID, c string, params *GetThingParams, reqEditors ...RequestEditorFn) (*GetThingResponse, error) {
	rsp, err := c.GetThing(ctx, thingID, c, params, reqEditors...)
	return ParseGetThingResponse(rsp)
}

func (c *ClientWithResponses) PutThingWithBodyWithResponse(ctx context.Context, thingID openapi_types.UUID, contentType string, body io.Reader, reqEditors ...RequestEditorFn) (*PutThingResponse, error) {
	rsp, err := c.PutThingWithBody(ctx, thingID, contentType, body, reqEditors...)
	return ParsePutThingResponse(rsp)
}

func (c *ClientWithResponses) PutThingWithResponse(ctx context.Context, thingID openapi_types.UUID, body PutThingJSONRequestBody, reqEditors ...RequestEditorFn) (*PutThingResponse, error) {
	rsp, err := c.PutThing(ctx, thingID, body, reqEditors...)
	return ParsePutThingResponse(rsp)
}

func (c *ClientWithResponses) PingWithResponse(ctx context.Context, reqEditors ...RequestEditorFn) (*PingResponse, error) {
	rsp, err := c.Ping(ctx, reqEditors...)
	return ParsePingResponse(rsp)
}
`

// spec is the prepared document of genSource's operations, with their
// constraints.
const spec = `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
  "/things/{thing_id}/parts/{c}": {"parameters": [{"$ref": "#/components/parameters/ThingID"}],
    "get": {"parameters": [{"name": "c", "in": "path", "required": true, "schema": {"type": "integer", "enum": [1, 2]}}],
      "responses": {"200": {"description": "ok", "content": {"application/json": {}}}}}},
  "/things/{thing_id}": {"parameters": [{"$ref": "#/components/parameters/ThingID"}],
    "put": {"requestBody": {"content": {"application/json; charset=utf-8": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
      "responses": {"204": {"description": "done"}}}},
  "/ping": {"head": {"responses": {}}}},
 "components": {
  "parameters": {"ThingID": {"name": "thing_id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^t-"}}},
  "schemas": {
   "Thing": {"allOf": [{"$ref": "#/components/schemas/Base"}], "properties": {"parts": {"type": "array", "maxItems": 2, "items": {"$ref": "#/components/schemas/Thing"}}, "free": {"type": "object"}}},
   "Base": {"required": ["name"], "properties": {"name": {"type": "string"}}}}}}`

func load(t *testing.T, doc string) *openapi3.T {
	t.Helper()
	d, err := openapi3.NewLoader().LoadFromData([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestGenerate: each method of gen.ClientInterface gets its operation from
// its request builder, never from its doc: the method and path template it
// sends. It puts the operation in the context, checks a string path
// argument as it is and any other as gen styles it, then calls gen; gen's
// types are qualified and imported, and each response type names its
// operation once. The table has each operation's successes, path
// parameters and JSON bodies, with their constraints resolved: $refs,
// allOf, a media type with parameters, an integer enum as the text gen
// sends, a recursive schema; a schema that constrains nothing is left out.
func TestGenerate(t *testing.T) {
	out, err := generate([]byte(genSource), load(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	for _, want := range []string{
		`openapi_types "github.com/oapi-codegen/runtime/types"`,
		`{Name: "GetThing", Method: "GET", Path: "/things/{thing_id}/parts/{c}", Params: []Param{{Name: "thing_id", Schema: 1}, {Name: "c", Schema: 2}}, Successes: map[int]Success{200: SuccessJSON}},`,
		`{Name: "PutThing", Method: "PUT", Path: "/things/{thing_id}", Params: []Param{{Name: "thing_id", Schema: 1}}, Successes: map[int]Success{204: SuccessNoJSON}, Bodies: []Body{{MediaType: "application/json", Schema: 3}}},`,
		`{Name: "Ping", Method: "HEAD", Path: "/ping", OtherSuccess: SuccessMayBeJSON},`,
		`{Pattern: "^t-"}, // 1`,
		`{Enum: []string{"1", "2"}}, // 2`,
		`{Props: []Prop{{"parts", 5}}, AllOf: []int{4}}, // 3`,
		`{Required: []string{"name"}}, // 4`,
		`{Items: 3, MaxItems: atMost(2)}, // 5`,
		"func (c_ *Client) GetThing(ctx context.Context, thingID openapi_types.UUID, c string, params *gen.GetThingParams, reqEditors ...gen.RequestEditorFn) (*http.Response, error) {\n\tctx = c_.with(ctx, 0)",
		`if pathParam0, err := runtime.StyleParamWithOptions("simple", false, "thing_id", thingID, runtime.StyleParamOptions{ParamLocation: runtime.ParamLocationPath, Type: "string", Format: "uuid"}); err != nil {`,
		"} else if err := c_.styled(0, 0, pathParam0); err != nil {",
		"if err := c_.path(0, 1, c); err != nil {",
		"return c_.gen.GetThing(ctx, thingID, c, params, reqEditors...)",
		"return c.gen.PutThingWithBody(ctx, thingID, contentType, body, reqEditors...)",
		"func (c *Client) Ping(ctx context.Context, reqEditors ...gen.RequestEditorFn) (*http.Response, error) {\n\tctx = c.with(ctx, 2)\n\treturn c.gen.Ping(ctx, reqEditors...)",
		"case *gen.PutThingResponse, gen.PutThingResponse:\n\t\treturn &all[1]",
	} {
		if !strings.Contains(strings.Join(strings.Fields(src), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the output lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "free") {
		t.Error("a property without constraints is in the table")
	}
}

// TestGenerateRefuses: a builder whose method and path the spec lacks, and
// a method without a builder, fail generation, naming the method.
func TestGenerateRefuses(t *testing.T) {
	for name, c := range map[string]struct{ src, spec, want string }{
		"an operation the spec lacks": {genSource, strings.Replace(spec, `"/ping": {"head"`, `"/ping": {"get"`, 1), `Ping: its request builder sends HEAD "/ping", which is 0 operations of the spec`},
		"no builder":                  {strings.Replace(genSource, "NewPingRequest(c.Server)", "nothing()", 1), spec, "Ping: no request builder"},
	} {
		if _, err := generate([]byte(c.src), load(t, c.spec)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestSuccesses: an exact status wins over "2XX", which wins over
// "default"; "default" counts only where no 2xx is declared; an operation
// that declares no response takes any 2xx; a response's body is JSON only,
// JSON among others, or no JSON ($refs followed).
func TestSuccesses(t *testing.T) {
	doc := load(t, `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
		"get": {"responses": {
			"200": {"description": "", "content": {"application/json": {}}},
			"202": {"description": "", "content": {"text/plain": {}, "Application/Problem+JSON": {}}},
			"204": {"description": "gone"},
			"2XX": {"description": "", "content": {"application/json": {}}},
			"default": {"description": "", "content": {"text/plain": {}}}}},
		"put": {"responses": {"default": {"$ref": "#/components/responses/Any"}, "404": {"description": ""}}},
		"post": {"responses": {"default": {"description": ""}, "201": {"description": ""}}}}},
	 "components": {"responses": {"Any": {"description": "", "content": {"application/json": {}}}}}}`)
	for method, want := range map[string]struct {
		statuses map[int]string
		other    string
	}{
		"GET":  {map[int]string{200: "SuccessJSON", 202: "SuccessMayBeJSON", 204: "SuccessNoJSON"}, "SuccessJSON"},
		"PUT":  {map[int]string{}, "SuccessJSON"},
		"POST": {map[int]string{201: "SuccessNoJSON"}, "NotASuccess"},
	} {
		statuses := map[int]string{}
		other := successes(doc.Paths.Value("/x").GetOperation(method).Responses, statuses)
		if other != want.other || len(statuses) != len(want.statuses) {
			t.Errorf("%s: %v, %s; want %v, %s", method, statuses, other, want.statuses, want.other)
		}
		for code, k := range want.statuses {
			if statuses[code] != k {
				t.Errorf("%s %d: %s, want %s", method, code, statuses[code], k)
			}
		}
	}
	if other := successes(openapi3.NewResponses(), map[int]string{}); other != "SuccessMayBeJSON" {
		t.Errorf("no response declared: %s", other)
	}
}

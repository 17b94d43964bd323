package tensorpool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

// badIDs are the path parameter values the id rule refuses, each with
// the words its error holds.
var badIDs = map[string]string{
	"":        `"", "." or ".."`,
	".":       `"", "." or ".."`,
	"..":      `"", "." or ".."`,
	"req/1":   `contains '/' or '\'`,
	`req\1`:   `contains '/' or '\'`,
	"r\x001":  "contains a control character",
	"r\n1":    "contains a control character",
	"r\x7f1":  "contains a control character",
	"../info": `contains '/' or '\'`,
}

// TestIDRule: through NewClient, every path parameter the id rule refuses
// fails with ErrInvalidRequest naming the parameter, and nothing is sent;
// with validation off too (the rule is not one of the spec's constraints).
func TestIDRule(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 500, nil, ""), nil }}
	for _, c := range []*gen.ClientWithResponses{fakeClient(t, f), fakeClient(t, f, WithoutClientValidation())} {
		for id, why := range badIDs {
			_, err := c.StorageDestroyWithResponse(bg, id)
			if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "invalid storage_id: ") ||
				!strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Errorf("destroy %q: %v, want ErrInvalidRequest naming storage_id (%s)", id, err, why)
			}
			_, err = c.GetRequestInfoWithResponse(bg, id)
			if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "invalid request_id: ") || strings.ContainsAny(err.Error(), "\x00\n\x7f") {
				t.Errorf("request info %q: %v, want ErrInvalidRequest naming request_id, on one printable line", id, err)
			}
		}
	}
	if f.n() != 0 {
		t.Errorf("%d requests with a refused id were sent", f.n())
	}
	// what is allowed is sent as the spec says: escaped, in one segment
	f.respond = func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, destroyOK), nil }
	for _, id := range []string{"s-1", "s a?b#c%d", "...", ".x", "é"} {
		if _, err := fakeClient(t, f).StorageDestroyWithResponse(bg, id); err != nil {
			t.Errorf("destroy %q: %v", id, err)
		}
	}
	if f.n() != 5 || f.get(1).path != "/storage/s a?b#c%d" {
		t.Errorf("%d sent, the second to %q", f.n(), f.get(1).path)
	}
}

// TestResolvedAway: a path the generated builders can only produce from a
// "", "." or ".." parameter (url.Parse resolves dot segments) is refused,
// naming the parameter, in any document: the last segment, a middle one,
// one with a prefix and suffix; so is a path that is not under the base
// URL's.
func TestResolvedAway(t *testing.T) {
	doc := loadDocument([]byte(`{"paths":{
		"/v/{kind}/items/{item}":{"delete":{}},
		"/v/{kind}/items":{"get":{}},
		"/files/{name}.json":{"get":{}},
		"/a/{x}/b/c":{"put":{}}}}`))
	for _, tc := range []struct{ method, tmpl, param, value string }{
		{"DELETE", "/v/k/items/{}", "item", ""},
		{"DELETE", "/v/k/items/{}", "item", "."},
		{"DELETE", "/v/k/items/{}", "item", ".."},
		{"DELETE", "/v/{}/items/i", "kind", ""},
		{"DELETE", "/v/{}/items/i", "kind", "."},
		{"DELETE", "/v/{}/items/i", "kind", ".."},
		{"GET", "/v/{}/items", "kind", ".."},
		{"GET", "/files/{}.json", "name", ""},
		{"PUT", "/a/{}/b/c", "x", ".."},
	} {
		u, _ := url.Parse("https://x/base/")
		u, _ = u.Parse("." + strings.Replace(tc.tmpl, "{}", url.PathEscape(tc.value), 1)) // as gen builds it
		req, _ := http.NewRequest(tc.method, u.String(), nil)
		_, err := doc.request(req, "/base", true)
		if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "invalid "+tc.param+": ") {
			t.Errorf("%s %s with %q (sent as %s): %v, want ErrInvalidRequest naming %s", tc.method, tc.tmpl, tc.value, u.Path, err, tc.param)
		}
	}
	req, _ := http.NewRequest("GET", "https://x/elsewhere", nil)
	if _, err := doc.request(req, "/base", false); !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "not under the base URL's path") {
		t.Errorf("GET /elsewhere: %v", err)
	}
	req, _ = http.NewRequest("GET", "https://x/base/nothing/here", nil) // no generated method's: nothing to check
	if rt, err := doc.request(req, "/base", true); rt != nil || err != nil {
		t.Errorf("GET /base/nothing/here: %v, %v", rt, err)
	}
}

// TestEveryPathParameterKeepsTheIDRule: every generated method, through
// NewClient, refuses every value the id rule refuses in each of its path
// parameters, naming it, and sends nothing: whatever operations the spec
// has, even where such a value would make the path another operation's
// (FastAPI's GET /items/ beside GET /items/{id}). A method that panics on
// placeholder arguments fails its own subtest only.
func TestEveryPathParameterKeepsTheIDRule(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 500, nil, ""), nil }}
	c := fakeClient(t, f).ClientInterface.(*gen.Client)
	v := reflect.ValueOf(c)
	for i := range v.NumMethod() {
		m := v.Type().Method(i)
		ft := m.Type // In(0) is the receiver, In(1) the context
		var params []int
		for j := 2; j < ft.NumIn() && ft.In(j).Kind() == reflect.String; j++ {
			params = append(params, j) // the path parameters lead, as strings
		}
		if k := len(params); k > 0 && params[k-1]+1 < ft.NumIn() && ft.In(params[k-1]+1) == reflect.TypeFor[io.Reader]() {
			params = params[:k-1] // XWithBody's content type, before its body
		}
		for _, j := range params {
			for bad := range badIDs {
				t.Run(fmt.Sprintf("%s/arg%d=%q", m.Name, j-1, bad), func(t *testing.T) {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("gen.Client.%s panicked: %v", m.Name, r)
						}
					}()
					args := []reflect.Value{reflect.ValueOf(bg)}
					for k := 2; k < ft.NumIn(); k++ {
						switch in := ft.In(k); {
						case k == j:
							args = append(args, reflect.ValueOf(bad).Convert(in))
						case slices.Contains(params, k):
							args = append(args, reflect.ValueOf(fmt.Sprintf("p-%d", k)).Convert(in))
						case ft.IsVariadic() && k == ft.NumIn()-1:
						case in.Kind() == reflect.String:
							args = append(args, reflect.ValueOf("application/json").Convert(in))
						case in == reflect.TypeFor[io.Reader]():
							args = append(args, reflect.ValueOf(io.Reader(strings.NewReader("{}"))))
						default:
							args = append(args, reflect.New(in).Elem())
						}
					}
					n := f.n()
					out := v.Method(i).Call(args)
					err, _ := out[1].Interface().(error)
					if !errors.Is(err, ErrInvalidRequest) || f.n() != n {
						t.Errorf("err %v, %d sent: want ErrInvalidRequest and nothing sent", err, f.n()-n)
					}
				})
			}
		}
	}
}

// TestBaseURLNamingAnOperation: a base URL whose path ends in an operation's
// path is refused at NewClient, naming the operation, not the URL; a
// template with parameters only with two literal segments or more.
func TestBaseURLNamingAnOperation(t *testing.T) {
	for base, op := range map[string]string{
		"https://engine.tensorpool.dev/storage/attach":          "POST /storage/attach",
		"https://engine.tensorpool.dev/storage/attach/":         "POST /storage/attach",
		"https://proxy.example/tp/request/info/req_secretish1":  "GET /request/info/{request_id}",
		"https://engine.tensorpool.dev/storage/s-1":             "", // a gateway's prefix may look like it
		"https://gw.example/storage/eu":                         "",
		"https://engine.tensorpool.dev/storage":                 "",
		"https://engine.tensorpool.dev/":                        "",
		"https://proxy.example/tensorpool/request/info":         "",
		"https://proxy.example/tensorpool/storage/attach/extra": "",
	} {
		_, err := NewClient(WithAPIKey(testKey), WithBaseURL(base))
		switch {
		case op == "" && err != nil:
			t.Errorf("%s: %v", base, err)
		case op != "" && (err == nil || !strings.Contains(err.Error(), "("+op+")") || strings.Contains(err.Error(), "secretish") || strings.Contains(err.Error(), "s-1")):
			t.Errorf("%s: %v, want a refusal naming %s, not the URL", base, err, op)
		}
	}
}

// TestAmbiguousPathToldApartBySender: where an empty, "." or ".." id
// makes a path that another operation has (DELETE /storage/ beside DELETE
// /storage/{storage_id}), the generated method that sent it tells them
// apart: gen's StorageDestroy with "" is refused; the same request sent by
// another caller is that other operation's, and goes.
func TestAmbiguousPathToldApartBySender(t *testing.T) {
	doc := loadDocument([]byte(`{"paths":{
		"/storage/{storage_id}":{"delete":{"operationId":"storage_destroy","responses":{"202":{}}}},
		"/storage/":{"delete":{"operationId":"storage_destroy_all","responses":{"202":{}}}},
		"/request/info/{request_id}":{"get":{"operationId":"get_request_info_request_info__request_id__get"}},
		"/request/":{"get":{"operationId":"list_requests"}}}}`))
	if rt, _ := doc.match("DELETE", "/storage/"); rt == nil || !rt.ambiguous {
		t.Fatal("DELETE /storage/ is not marked ambiguous")
	}
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, ""), nil }}
	c := fakeClient(t, f)
	doerOf(c).doc = doc
	for _, id := range []string{"", "."} {
		if _, err := c.StorageDestroy(bg, id); !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "invalid storage_id") {
			t.Errorf("StorageDestroy(%q): %v", id, err)
		}
	}
	if _, err := c.GetRequestInfo(bg, ".."); !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "invalid request_id") {
		t.Errorf("GetRequestInfo(\"..\"): %v", err) // /request/info/.. is /request/
	}
	if f.n() != 0 {
		t.Fatalf("%d sent", f.n())
	}
	req, _ := http.NewRequest(http.MethodDelete, "https://engine.test/storage/", nil)
	if _, err := doerOf(c).Do(req); err != nil || f.n() != 1 {
		t.Errorf("DELETE /storage/ from another caller: %v, %d sent", err, f.n())
	}
	if _, err := c.StorageDestroy(bg, "s-1"); err != nil || f.n() != 2 {
		t.Errorf("StorageDestroy(s-1): %v", err)
	}
}

// TestSegmentWithSeveralParameters: a segment holding two parameters
// ("{name}-{version}.tgz") matches without a panic, whatever its text, and
// keeps the id rule on the whole segment, naming both.
func TestSegmentWithSeveralParameters(t *testing.T) {
	doc := loadDocument([]byte(`{"paths":{
		"/charts/{name}-{version}.tgz":{"get":{}},
		"/f/{a}.{b}":{"get":{}}}}`))
	for p, want := range map[string]string{
		"/charts/a-1.tgz":   "",
		"/f/..x":            "",
		"/f/x":              "",
		"/charts/a%2F1.tgz": "invalid name or version: contains '/'",
		"/f/%2E%2E":         `invalid a or b: is "..", which would address another path`,
	} {
		req, _ := http.NewRequest("GET", "https://x"+p, nil)
		rt, err := doc.request(req, "", true)
		switch {
		case want == "" && (err != nil || rt == nil):
			t.Errorf("GET %s: %v, %v", p, rt, err)
		case want != "" && (!errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), want)):
			t.Errorf("GET %s: %v, want %q", p, err, want)
		}
	}
}

// TestMostLiteralTemplateWins: of two templates a path fits, the one with
// more literal text wins, a segment's included ("{name}.json" over
// "{name}").
func TestMostLiteralTemplateWins(t *testing.T) {
	doc := loadDocument([]byte(`{"paths":{"/g/{name}":{"get":{}},"/g/{name}.json":{"get":{}},"/g/latest":{"get":{}}}}`))
	for p, want := range map[string]string{"/g/a.json": "/g/{name}.json", "/g/a": "/g/{name}", "/g/latest": "/g/latest"} {
		if rt, _ := doc.match("GET", p); rt == nil || rt.template != want {
			t.Errorf("GET %s: %v, want %s", p, rt, want)
		}
	}
}

// TestSenderWinsOverAMoreLiteralTemplate: where the path a generated method
// built also fits a more literal template of another operation (frigate's
// GET /{camera_name}/latest.{extension} and GET /review/{review_id}), the
// request goes, and its answer is checked against the sender's operation.
func TestSenderWinsOverAMoreLiteralTemplate(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, destroyOK), nil }}
	c := fakeClient(t, f)
	doerOf(c).doc = loadDocument([]byte(`{"paths":{
		"/{kind}/{storage_id}":{"delete":{"operationId":"storage_destroy","responses":{"202":{"content":{"application/json":{}}}}}},
		"/storage/{other}":{"delete":{"operationId":"other","responses":{"200":{"content":{"image/png":{}}}}}}}}`))
	if r, err := c.StorageDestroyWithResponse(bg, "s-1"); err != nil || r.JSON202 == nil || f.n() != 1 {
		t.Fatalf("StorageDestroy: %v, %d sent", err, f.n())
	}
}

// TestRequestEditorMovesThePath: a request editor that puts a gateway's
// prefix before the path breaks nothing: the request goes and is checked as
// its operation's; the id rule still holds.
func TestRequestEditorMovesThePath(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, destroyOK), nil }}
	gateway := gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.URL.Path = "/gw/v1" + r.URL.Path
		return nil
	})
	for _, opts := range [][]Option{nil, {WithoutClientValidation()}} {
		c, err := gen.NewClientWithResponses("https://engine.test", gen.WithHTTPClient(doerOf(fakeClient(t, f, opts...))), gateway)
		if err != nil {
			t.Fatal(err)
		}
		n := f.n()
		if r, err := c.StorageDestroyWithResponse(bg, "s-1"); err != nil || r.JSON202 == nil || f.get(n).path != "/gw/v1/storage/s-1" {
			t.Errorf("StorageDestroy(s-1): %v", err)
		}
		if _, err := c.StorageDestroyWithResponse(bg, ""); !errors.Is(err, ErrInvalidRequest) || f.n() != n+1 {
			t.Errorf(`StorageDestroy(""): %v, %d sent`, err, f.n()-n)
		}
	}
}

// TestHeadSuccessWithContentLength: a HEAD answer announces the GET's
// Content-Length and has no body: a success, not a body cut short.
func TestHeadSuccessWithContentLength(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "5")
		w.Header().Set("Content-Type", "application/json")
	}))
	defer srv.Close()
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	d := doerOf(c)
	d.doc = loadDocument([]byte(`{"paths":{"/ping":{"head":{"responses":{"204":{},"200":{}}}}}}`))
	req, _ := http.NewRequest(http.MethodHead, srv.URL+"/ping", nil)
	if resp, err := d.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /ping: %v", err)
	}
}

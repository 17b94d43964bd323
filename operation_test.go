package tensorpool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/operations"
)

// badIDs are the path parameter values the id rule refuses, each with
// the words its error holds.
var badIDs = map[string]string{
	"":        `is empty`,
	".":       `is ".", which would address another path`,
	"..":      `is "..", which would address another path`,
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
	// 400, never retried: a request sent by mistake fails the test at once
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 400, nil, ""), nil }}
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

// TestEveryPathParameterKeepsTheIDRule: every generated method, through
// NewClient, refuses every value the id rule refuses in each of its path
// parameters, naming it, and sends nothing: whatever operations the spec
// has, even where such a value would make the path another operation's
// (FastAPI's GET /items/ beside GET /items/{id}). A method that panics on
// placeholder arguments fails its own subtest only.
func TestEveryPathParameterKeepsTheIDRule(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 400, nil, ""), nil }} // never retried
	v := reflect.ValueOf(fakeClient(t, f).ClientInterface)
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
							t.Fatalf("%s panicked: %v", m.Name, r)
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

// TestRequestEditorMovesThePath: a request editor that puts a gateway's
// prefix before the path breaks nothing: the request goes and is checked as
// its operation's; the id rule still holds.
func TestRequestEditorMovesThePath(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) { return reply(r, 202, nil, destroyOK), nil }}
	gateway := WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.URL.Path = "/gw/v1" + r.URL.Path
		return nil
	})
	for _, opts := range [][]Option{{gateway}, {gateway, WithoutClientValidation()}} {
		c := fakeClient(t, f, opts...)
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
	ping := &operations.Operation{Method: "HEAD", Path: "/ping", Successes: map[int]operations.Success{200: operations.SuccessNoJSON, 204: operations.SuccessNoJSON}}
	req, _ := http.NewRequest(http.MethodHead, srv.URL+"/ping", nil)
	if resp, err := doerOf(c).do(ping, req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /ping: %v", err)
	}
}

// TestOperationSuccesses: the response check applies the operation's
// table: an exact status, then the rule for any other 2xx; a status it
// does not declare, or a JSON-only success without JSON, is a
// *DecodeError with the response's status; what it declares passes as it
// comes.
func TestOperationSuccesses(t *testing.T) {
	var next answerOf
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, next.code, http.Header{"Content-Type": {next.ctype}}, next.body), nil
	}}
	d := doerOf(fakeClient(t, f))
	op := &operations.Operation{Method: "GET", Path: "/things/{id}", Params: []operations.Param{{Name: "id"}},
		Successes: map[int]operations.Success{200: operations.SuccessJSON, 204: operations.SuccessNoJSON, 202: operations.SuccessNoJSON}, OtherSuccess: operations.SuccessJSON}
	undeclared := &operations.Operation{Method: "GET", Path: "/things/{id}", Params: []operations.Param{{Name: "id"}}, Successes: map[int]operations.Success{200: operations.SuccessJSON}}
	for _, tc := range []struct {
		op *operations.Operation
		answerOf
		ok bool
	}{
		{op, answerOf{200, "application/json", infoOK}, true},
		{op, answerOf{204, "", ""}, true},
		{op, answerOf{204, "application/json", ""}, true}, // declared without a body: not checked
		{op, answerOf{202, "text/plain", "queued"}, true},
		{op, answerOf{206, "application/json", `{}`}, true}, // "2XX"
		{op, answerOf{206, "text/plain", "part"}, false},
		{op, answerOf{200, "text/plain", "ok"}, false},
		{op, answerOf{200, "", "ok"}, false},
		{undeclared, answerOf{201, "application/json", `{}`}, false},
		{op, answerOf{200, "application/json", `{"a":`}, false},
		{op, answerOf{202, "application/json", `{`}, true}, // declared without JSON: not checked
		{nil, answerOf{299, "text/html", "<p>"}, true},     // an unknown operation: any 2xx
		{nil, answerOf{299, "application/json", "<p>"}, false},
	} {
		next = tc.answerOf
		req, _ := http.NewRequest(http.MethodGet, "https://engine.test/things/t-1", nil)
		resp, err := d.do(tc.op, req)
		var de *DecodeError
		switch {
		case tc.ok && (err != nil || resp.StatusCode != tc.code):
			t.Errorf("GET %d %s: %v", tc.code, tc.ctype, err)
		case !tc.ok && (!errors.As(err, &de) || de.StatusCode != tc.code):
			t.Errorf("GET %d %s: %v, want a *DecodeError for %d", tc.code, tc.ctype, err, tc.code)
		}
	}
}

type answerOf struct {
	code        int
	ctype, body string
}

// FuzzOperationAt: any base URL path, against the operations of the spec,
// never panics, and what it names is one of them.
func FuzzOperationAt(f *testing.F) {
	f.Add("/storage/attach")
	f.Add("/tp/request/info/req_1/")
	f.Add("//")
	f.Fuzz(func(t *testing.T, p string) {
		if got := operationAt(p); got != "" && !slices.ContainsFunc(operations.All(), func(op operations.Operation) bool { return got == op.Method+" "+op.Path }) {
			t.Fatalf("%q names %q, no operation", p, got)
		}
	})
}

package tensorpool

import (
	"errors"
	"net/http"
	"net/url"
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
// one with a prefix and suffix; a path no template fits is refused too.
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
	for _, p := range []string{"/base/nothing/here", "/elsewhere"} {
		req, _ := http.NewRequest("GET", "https://x"+p, nil)
		if _, err := doc.request(req, "/base", false); !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "matches no operation") {
			t.Errorf("GET %s: %v", p, err)
		}
	}
}

// TestNoBadIDReachesAnotherRoute: in the vendored spec, no value the id
// rule refuses could reach another operation even if it were sent: each
// one's path, dot segments resolved, fits no template. (A spec with
// "/a/{x}/b" beside "/a/b" would break this; the client could not tell the
// two apart from the URL.)
func TestNoBadIDReachesAnotherRoute(t *testing.T) {
	doc := spec()
	for method, routes := range doc.routes {
		for _, rt := range routes {
			for i, sg := range rt.segs {
				if sg.name == "" {
					continue
				}
				for _, v := range []string{"", ".", ".."} {
					p := "/" + strings.Join(append(append(placeholders(rt.segs[:i]), sg.prefix+v+sg.suffix), placeholders(rt.segs[i+1:])...), "/")
					u, _ := (&url.URL{Scheme: "https", Host: "x", Path: "/"}).Parse("." + p)
					if other, _ := doc.match(method, u.EscapedPath()); other != nil {
						t.Errorf("%s %s with %s = %q is sent to %s %s", method, rt.template, sg.name, v, method, other.template)
					}
				}
			}
		}
	}
}

func placeholders(segs []segment) []string {
	var out []string
	for _, sg := range segs {
		if sg.name != "" {
			out = append(out, sg.prefix+"p"+sg.suffix)
		} else {
			out = append(out, sg.prefix)
		}
	}
	return out
}

// TestBaseURLNamingAnOperation: a base URL whose path ends in an operation's
// path is refused at NewClient, naming the operation, not the URL.
func TestBaseURLNamingAnOperation(t *testing.T) {
	for base, op := range map[string]string{
		"https://engine.tensorpool.dev/storage/attach":          "POST /storage/attach",
		"https://engine.tensorpool.dev/storage/attach/":         "POST /storage/attach",
		"https://proxy.example/tp/request/info/req_secretish1":  "GET /request/info/{request_id}",
		"https://engine.tensorpool.dev/storage/s-1":             "DELETE /storage/{storage_id}",
		"https://engine.tensorpool.dev/v1/storage/s%2Fx":        "DELETE /storage/{storage_id}",
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

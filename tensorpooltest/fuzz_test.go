package tensorpooltest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// fuzzEngine is an engine whose violations fail the fuzz iteration.
func fuzzEngine(t *testing.T) *tensorpooltest.Engine {
	e := tensorpooltest.New(tensorpooltest.WithViolationHandler(func(v tensorpooltest.Violation) { t.Error(v) }))
	e.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
	e.AddCluster(tensorpooltest.Cluster{ID: "c-x", Ineligible: true})
	e.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	e.AddStorage(tensorpooltest.Storage{ID: "s-p", DeletionProtection: true})
	return e
}

// Request bodies are untrusted input to the engine: whatever the body, it
// must answer a declared status with a conforming response, never panic.
func FuzzStorageAttachBody(f *testing.F) {
	for _, s := range []string{
		`{"storage_id":"s-1","cluster_ids":["c-1"]}`,
		`{"storage_id":"s-1","cluster_ids":["c-x"]}`,
		`{"storage_id":"x","cluster_ids":["c-1"]}`,
		`{"storage_id":"s-1","cluster_ids":[]}`,
		`{"storage_id":"s-1","cluster_ids":["c-1","c-1"]}`,
		`{"storage_id":null}`, `[]`, `{`, ``, `"s-1"`, `{"storage_id":"s-1","cluster_ids":["c-1"],"extra":{}}`,
	} {
		f.Add(s, "application/json")
	}
	f.Add(`storage_id=s-1`, "application/x-www-form-urlencoded")
	f.Fuzz(func(t *testing.T, body, contentType string) {
		e := fuzzEngine(t)
		req := httptest.NewRequest("POST", "/storage/attach", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+e.APIKey())
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if !slices.Contains([]int{202, 400, 404, 409, 422}, w.Code) {
			t.Fatalf("status %d for body %q (%s): %s", w.Code, body, contentType, w.Body)
		}
	})
}

// Path parameters are untrusted too: any storage id, escaped by the client,
// reaches the engine intact or is refused with a declared status.
func FuzzStorageDestroyID(f *testing.F) {
	for _, s := range []string{"s-1", "s-p", "s-nope", "x", "s-a/b", "s-%2F", "s-..", "s- ", "s-\x00", "s-ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		e := fuzzEngine(t)
		req, err := http.NewRequest("DELETE", tensorpooltest.InProcessURL+"/storage/"+url.PathEscape(id), nil)
		if err != nil {
			t.Skip(err)
		}
		req.Header.Set("Authorization", "Bearer "+e.APIKey())
		resp, err := e.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ok := []int{202, 400, 404, 409, 422}
		if id == "" || id == "." || id == ".." {
			ok = append(ok, 404, 405) // not a path segment at all
		}
		if !slices.Contains(ok, resp.StatusCode) {
			t.Fatalf("status %d for storage id %q", resp.StatusCode, id)
		}
	})
}

// Whole requests are untrusted input: whatever the method, target,
// Authorization, Content-Type and body, the engine answers (never panics)
// with a status it can give and a conforming response, and never repeats a
// credential it refused.
func FuzzRequest(f *testing.F) {
	for _, s := range [][5]string{
		{"POST", "/storage/attach", "Bearer tp-test-key", "application/json", `{"storage_id":"s-1","cluster_ids":["c-1"]}`},
		{"DELETE", "/storage/s-p", "Bearer tp-test-key", "", ""},
		{"GET", "/request/info/req_000001", "bearer tp-test-key", "", ""},
		{"GET", "/request/info/req_000001?x=1&x=2", "Bearer tp-test-key", "", ""},
		{"GET", "/request/info/%2e%2e", "Bearer tp-test-key", "", ""},
		{"get", "/storage/attach", "Bearer tp-test-key", "", ""},
		{"PATCH", "/storage/s-1", "Bearer tp-test-key", "application/json", "{}"},
		{"DELETE", "/storage/s-1", "Bearer guessed-secret-value", "", ""},
		{"DELETE", "/storage/s-1", "Basic dXNlcjpwYXNz", "", ""},
		{"POST", "/storage/attach", "Bearer tp-test-key", "application/json; charset=utf-8", `{"storage_id":"s-1","cluster_ids":["c-x"]}`},
		{"POST", "/storage/attach", "Bearer tp-test-key", "multipart/form-data; boundary=x", "--x\r\n\r\n--x--"},
		{"POST", "/storage/attach", "Bearer tp-test-key", "application/json", `{"storage_id":"s-1","cluster_ids":[` + strings.Repeat("[", 200) + `]}`},
		{"GET", "/nothing/here", "", "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, method, target, auth, contentType, body string) {
		e := fuzzEngine(t)
		req, err := http.NewRequest(method, tensorpooltest.InProcessURL+target, strings.NewReader(body))
		if err != nil {
			t.Skip(err)
		}
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", contentType)
		resp, err := e.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s %q: %v", method, target, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !slices.Contains([]int{200, 202, 400, 403, 404, 405, 409, 422, 501}, resp.StatusCode) {
			t.Fatalf("%s %q: status %d: %s", method, target, resp.StatusCode, b)
		}
		_, cred, _ := strings.Cut(auth, " ")
		if resp.StatusCode == 403 && len(cred) >= 8 && !strings.Contains(method+target+contentType+body, cred) {
			var h strings.Builder
			resp.Header.Write(&h)
			if strings.Contains(string(b)+h.String(), cred) {
				t.Fatalf("the refused credential %q is in the answer: %s %s", cred, h.String(), b)
			}
		}
	})
}

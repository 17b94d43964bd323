package tensorpooltest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// The seeds name /healthz as the one endpoint that needs no API key: the
// engine answers it without one, over a socket and in-process, and refuses
// other methods; a path beside it still gets 404.
func TestHealthz(t *testing.T) {
	srv := tensorpooltest.NewServer(t)
	for name, c := range map[string]struct {
		url    string
		client *http.Client
	}{
		"loopback":   {srv.URL, http.DefaultClient},
		"in-process": {tensorpooltest.InProcessURL, srv.Engine.HTTPClient()},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := c.client.Get(c.url + "/healthz") // no Authorization header
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || body["status"] != "ok" {
				t.Fatalf("GET /healthz: %d %q %v, want 200 application/json {status: ok}", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}

	e := tensorpooltest.New()
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"POST", "/healthz", http.StatusMethodNotAllowed},
		{"DELETE", "/healthz", http.StatusMethodNotAllowed},
		{"GET", "/healthz/x/tensorpooltest/none", http.StatusNotFound}, // no template of any spec, we trust
		{"GET", "/healthzz/x/tensorpooltest/none", http.StatusNotFound},
	} {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, strings.NewReader("")))
		if w.Code != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, w.Code, tc.want)
		}
		if tc.want == http.StatusMethodNotAllowed && w.Header().Get("Allow") != "GET" {
			t.Errorf("%s %s: Allow %q, want GET", tc.method, tc.path, w.Header().Get("Allow"))
		}
	}
}

// GET /healthz needs no API key: a health probe can be tested against the
// engine. The docs give no shape for the body; the engine sends a small
// JSON object.
func Example_healthz() {
	e := tensorpooltest.New()
	srv := httptest.NewServer(e)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var body struct{ Status string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, body.Status)
	// Output: 200 ok
}

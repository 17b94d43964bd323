package tensorpooltest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestRoundTripIsAWellBehavedTransport(t *testing.T) {
	e := tensorpooltest.New()
	req, err := http.NewRequest("GET", "http://anywhere.example/request/info/req_1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.APIKey())
	resp, err := e.RoundTrip(req) // a nil Body is allowed
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || resp.Request != req || resp.ContentLength != int64(len(body)) ||
		resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Date") == "" {
		t.Fatalf("response %+v, body %s", resp, body)
	}
}

func TestRoundTripHonoursACancelledContext(t *testing.T) {
	e := tensorpooltest.New()
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(cctx, "GET", tensorpooltest.InProcessURL+"/request/info/req_1", nil)
	if _, err := e.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := e.Calls("GET /request/info/{request_id}"); n != 0 {
		t.Fatalf("a cancelled request reached the engine (%d calls)", n)
	}
}

// Requests net/http's Transport accepts or refuses without panicking: an
// empty method is GET; no URL is an error.
func TestRoundTripOddRequests(t *testing.T) {
	e := tensorpooltest.New()
	u, err := url.Parse(tensorpooltest.InProcessURL + "/request/info/req_1")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.RoundTrip(&http.Request{URL: u, Header: http.Header{"Authorization": {"Bearer " + e.APIKey()}}})
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("empty method: %v, %v; want the GET's 404", resp, err)
	}
	if _, err := e.RoundTrip(&http.Request{Method: "GET", Header: http.Header{}}); err == nil {
		t.Fatal("nil URL: no error")
	}
}

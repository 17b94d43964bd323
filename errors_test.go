package tensorpool

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

func TestAPIErrorMessages(t *testing.T) {
	long := strings.Repeat("é", 2000)
	cases := []struct {
		name, ctype, body, want string
		details                 int
	}{
		{"fastapi detail string", "application/json", `{"detail":"Storage not found"}`, "Storage not found", 0},
		{"fastapi validation list", "application/json",
			`{"detail":[{"loc":["body","storage_id"],"msg":"Field required","type":"missing"},{"loc":["body","cluster_ids",0],"msg":"Input should be a valid string","type":"string_type"}]}`,
			"body.storage_id: Field required; body.cluster_ids.0: Input should be a valid string", 2},
		{"many validation errors", "application/json",
			`{"detail":[{"loc":["a"],"msg":"1","type":"t"},{"loc":["b"],"msg":"2","type":"t"},{"loc":["c"],"msg":"3","type":"t"},{"loc":["d"],"msg":"4","type":"t"},{"loc":["e"],"msg":"5","type":"t"}]}`,
			"a: 1; b: 2; c: 3; and 2 more", 5},
		{"detail object", "application/json", `{"detail":{"message":"cluster busy","code":7}}`, "cluster busy", 0},
		{"message", "application/json", `{"message":"Cluster already has storage attached"}`, "Cluster already has storage attached", 0},
		{"error", "application/json", `{"error":"denied"}`, "denied", 0},
		{"external_message", "application/json", `{"external_message":"try later"}`, "try later", 0},
		{"message beats error", "application/json", `{"error":"e","message":"m"}`, "m", 0},
		{"detail beats message", "application/json", `{"message":"m","detail":"d"}`, "d", 0},
		{"empty detail falls through", "application/json", `{"detail":"","message":"m"}`, "m", 0},
		{"non-string message", "application/json", `{"message":42}`, "", 0},
		{"json array", "application/json", `["x"]`, "", 0},
		{"broken json", "application/json", `{"detail":`, "", 0},
		{"html", "text/html", "<html><body>502 Bad Gateway</body></html>", "", 0},
		{"plain text", "text/plain; charset=utf-8", "upstream timed out\nsecond line", `upstream timed out\nsecond line`, 0},
		{"control characters", "application/json", `{"detail":"a\nb\u0000c\u001b[31m"}`, `a\nb\x00c\x1b[31m`, 0},
		{"invalid utf-8", "text/plain", "bad \xff byte", "bad \uFFFD byte", 0},
		{"empty", "", "", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: 409, Header: http.Header{"Content-Type": {tc.ctype}}}
			e := newAPIError(resp, []byte(tc.body), nil, false)
			if e.Message != tc.want || len(e.Details) != tc.details {
				t.Errorf("Message %q (%d details), want %q (%d)", e.Message, len(e.Details), tc.want, tc.details)
			}
			if string(e.Body) != tc.body {
				t.Errorf("Body %q", e.Body)
			}
		})
	}
	e := newAPIError(&http.Response{StatusCode: 400, Header: http.Header{}}, []byte(`{"detail":"`+long+`"}`), nil, false)
	if len(e.Message) > servertext.MaxLen || !utf8.ValidString(e.Message) || !strings.HasSuffix(e.Message, "…") {
		t.Errorf("long message: %d bytes, valid %t", len(e.Message), utf8.ValidString(e.Message))
	}
	big := newAPIError(&http.Response{StatusCode: 500, Header: http.Header{}}, make([]byte, 1<<20), nil, false)
	if len(big.Body) != maxErrorBody || big.Truncated {
		t.Errorf("Body %d bytes, want the first %d", len(big.Body), maxErrorBody)
	}
}

func TestAPIErrorFields(t *testing.T) {
	req, _ := http.NewRequest("POST", "https://engine.tensorpool.dev/storage/attach?x=1", nil)
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"12"}}, Request: req}
	e := newAPIError(resp, []byte(`{"detail":"slow down"}`), nil, false)
	want := APIError{StatusCode: 429, Method: "POST", Path: "/storage/attach", Message: "slow down", RetryAfter: 12 * time.Second}
	if e.StatusCode != want.StatusCode || e.Method != want.Method || e.Path != want.Path || e.Message != want.Message || e.RetryAfter != want.RetryAfter {
		t.Errorf("got %+v", e)
	}
	if got := e.Error(); got != "tensorpool: POST /storage/attach: 429 Too Many Requests: slow down" {
		t.Errorf("Error() = %q", got)
	}
}

// TestEveryFailureIsAnError: through NewClient, a generated method returns
// a nil error only with the declared success's typed body; every other
// answer is an *APIError or a *DecodeError, and a nil response.
func TestEveryFailureIsAnError(t *testing.T) {
	var next answerOf
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, next.code, http.Header{"Content-Type": {next.ctype}}, next.body), nil
	}}
	c := fakeClient(t, f)
	raw, _ := gen.NewClientWithResponses("https://engine.test", gen.WithHTTPClient(&http.Client{Transport: f}))
	for _, tc := range []struct {
		name string
		answerOf
		destroy bool   // DELETE /storage/s-1, else POST /storage/attach
		status  int    // the *APIError's, or 0 for a *DecodeError
		want    string // in the error's text
	}{
		{"409", answerOf{409, "application/json", `{"detail":"Cluster already has storage attached"}`}, false, 409,
			"tensorpool: POST /storage/attach: 409 Conflict: Cluster already has storage attached"},
		{"409 on destroy", answerOf{409, "application/json", `{"detail":"Deletion protection enabled"}`}, true, 409, "Deletion protection enabled"},
		{"404 without a body", answerOf{404, "", ""}, true, 404, "tensorpool: DELETE /storage/s-1: 404 Not Found"},
		{"422", answerOf{422, "application/json", `{"detail":[{"loc":["body","cluster_ids"],"msg":"List should have at most 1 item","type":"too_long"}]}`}, false, 422,
			"body.cluster_ids: List should have at most 1 item"},
		{"422 whose detail is a string", answerOf{422, "application/json", `{"detail":"cluster c-1 is not eligible"}`}, false, 422, "cluster c-1 is not eligible"},
		{"500 as HTML", answerOf{500, "text/html", "<h1>oops</h1>"}, true, 500, "500 Internal Server Error"},
		{"302 not followed", answerOf{302, "", ""}, false, 302, "302 Found"},
		{"200 where 202 is declared", answerOf{200, "application/json", attachOK}, false, 0, "status 200 is not a success the API spec declares"},
		{"204 where 202 is declared", answerOf{204, "", ""}, true, 0, "status 204 is not a success"},
		{"202 as text/plain", answerOf{202, "text/plain", "accepted"}, true, 0, "the body is not the JSON the API spec declares"},
		{"202 with no body", answerOf{202, "", ""}, true, 0, "the body is not the JSON the API spec declares"},
		{"202 labelled JSON, empty", answerOf{202, "application/json", ""}, false, 0, "unexpected end of JSON input"},
		{"202 cut short", answerOf{202, "application/json", `{"storage_id":"s-1",}`}, true, 0, "invalid character '}'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next = tc.answerOf
			var err error
			if tc.destroy {
				var r *gen.StorageDestroyResponse
				r, err = c.StorageDestroyWithResponse(bg, "s-1")
				if r != nil {
					t.Errorf("a response beside the error: %+v", r)
				}
				// Check on a raw client: the same error, but where the
				// generated parser failed first (it knows no status)
				_, rawErr := Check(raw.StorageDestroyWithResponse(bg, "s-1"))
				var d *DecodeError
				if rawErr == nil || rawErr.Error() != err.Error() && !(errors.As(rawErr, &d) && d.StatusCode == 0) {
					t.Errorf("Check on a raw client: %v, want %v", rawErr, err)
				}
			} else {
				var r *gen.StorageAttachResponse
				r, err = c.StorageAttachWithResponse(bg, attachBody)
				if r != nil {
					t.Errorf("a response beside the error: %+v", r)
				}
			}
			var apiErr *APIError
			var decErr *DecodeError
			switch {
			case err == nil:
				t.Fatal("nil error")
			case tc.status != 0 && (!errors.As(err, &apiErr) || apiErr.StatusCode != tc.status):
				t.Errorf("err %v (%T), want an *APIError %d", err, err, tc.status)
			case tc.status == 0 && (!errors.As(err, &decErr) || decErr.StatusCode != tc.code || decErr.Method == "" || string(decErr.Body) != tc.body):
				t.Errorf("err %#v, want a *DecodeError for %d with method, path and body", err, tc.code)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %q, want %q in it", err, tc.want)
			}
		})
	}
	// successes: the typed body, and Check passes them through
	next = answerOf{202, "application/json", attachOK}
	if r, err := Check(c.StorageAttachWithResponse(bg, attachBody)); err != nil || r.JSON202 == nil || r.JSON202.RequestIDs[0] != "r-1" {
		t.Errorf("202: %v", err)
	}
	next = answerOf{202, "Application/JSON; charset=utf-8", destroyOK}
	if r, err := c.StorageDestroyWithResponse(bg, "s-1"); err != nil || r.JSON202 == nil {
		t.Errorf("202 with a mixed-case media type: %v", err)
	}
	// a raw client's failures keep their response, beside the error
	next = answerOf{409, "application/json", `{"detail":"busy"}`}
	if r, err := Check(raw.StorageAttachWithResponse(bg, attachBody)); !IsStatus(err, 409) || r == nil || r.StatusCode() != 409 {
		t.Errorf("raw 409: %v", err)
	}
	// a transport error passes through untouched
	sentinel := errors.New("boom")
	if _, err := Check[*gen.StorageAttachResponse](nil, sentinel); err != sentinel {
		t.Errorf("err %v", err)
	}
	// a nil response without an error does not panic
	if _, err := Check[*gen.StorageAttachResponse](nil, nil); err == nil {
		t.Error("nil response accepted")
	}
	// a response built by hand, without HTTPResponse: a status 0
	if _, err := Check(&gen.StorageAttachResponse{}, nil); !IsStatus(err, 0) {
		t.Errorf("hand-built response: %v", err)
	}
}

func TestIsStatus(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &APIError{StatusCode: 409})
	for _, tc := range []struct {
		err   error
		codes []int
		want  bool
	}{
		{err, []int{409}, true},
		{err, []int{404, 409}, true},
		{err, nil, true},
		{err, []int{404}, false},
		{errors.New("x"), nil, false},
		{nil, []int{409}, false},
		{&DecodeError{StatusCode: 409}, []int{409}, false},
	} {
		if got := IsStatus(tc.err, tc.codes...); got != tc.want {
			t.Errorf("IsStatus(%v, %v) = %t", tc.err, tc.codes, got)
		}
	}
}

// TestEchoedKeyScrubbed: a server that echoes the Authorization header in
// its error body does not get the key into the error.
func TestEchoedKeyScrubbed(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 401, nil, `{"detail":"invalid token `+r.Header.Get("Authorization")+`"}`), nil
	}}
	c := fakeClient(t, f)
	_, err := Check(c.GetRequestInfoWithResponse(bg, "r-1"))
	var e *APIError
	if !errors.As(err, &e) || !IsStatus(err, http.StatusUnauthorized) {
		t.Fatalf("err %v", err)
	}
	if e.Message != "invalid token Bearer [REDACTED]" {
		t.Errorf("Message %q", e.Message)
	}
	noKey(t, "APIError", e)
	noKey(t, "APIError.Body", string(e.Body))
}

func FuzzAPIError(f *testing.F) {
	seeds := []string{
		`{"detail":"Storage not found"}`,
		`{"detail":[{"loc":["body","storage_id"],"msg":"Field required","type":"missing"}]}`,
		`{"detail":[{"loc":[1,{"x":2}],"msg":3}]}`,
		`{"detail":{"detail":{"message":"deep"}}}`,
		`{"message":"m","error":"e","external_message":"x"}`,
		`<html>oops</html>`,
		"line1\nline2",
		`{"detail":"` + testKey + `"}`,
		`{"detail":[{"loc":["header","{key}"],"msg":"bad {key}","type":"t"}]}`,
		`{"detail":"\u0074p-live-0123456789abcdefSECRET"}`,
		"\xff\xfe",
		"",
		`{"detail":"{ukey}", broken`,
		`{"detail":"{mkey}`,
		`<html>{ukey} \ud83d\ude00 \ud800 \x</html>`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "application/json", 400)
	}
	f.Add([]byte("plain"), "text/plain", 503)
	f.Fuzz(func(t *testing.T, body []byte, ctype string, status int) {
		req, _ := http.NewRequest("GET", "https://engine.test/x", nil)
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}}, Request: req}
		e := newAPIError(resp, body, nil, false)
		if len(e.Body) > maxErrorBody || len(e.Message) > servertext.MaxLen {
			t.Fatalf("sizes: body %d, message %d", len(e.Body), len(e.Message))
		}
		if !utf8.ValidString(e.Message) || strings.ContainsAny(e.Message, "\n\r\x00") {
			t.Fatalf("message not printable: %q", e.Message)
		}
		for _, key := range []string{testKey, hostileKey} {
			// as the doer hands a body on: scrubbed
			planted := strings.NewReplacer("{key}", key, "{ukey}", uEscape(key), "{mkey}", mixedEscape(key)).Replace(string(body))
			e := newAPIError(resp, []byte(newRedactor(key).text(planted)), nil, false)
			outs := []string{e.Error(), fmt.Sprintf("%v", e), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e), fmt.Sprintf("%x", e), string(e.Body)}
			for _, d := range e.Details {
				outs = append(outs, d.Msg, d.Type, fmt.Sprintf("%+v", d))
				for _, item := range d.Loc {
					outs = append(outs, fmt.Sprint(item))
				}
			}
			for _, out := range outs {
				if f := leakedOf(out, key); f != "" {
					t.Fatalf("key leaked as %q: %s", f, out)
				}
			}
		}
	})
}

// TestCheckFindsTheOperationByType: a mock or hand-built response, without a
// request, is checked against its operation (gen's <Operation>Response):
// a declared success without its JSON, or an undeclared 2xx, is an error;
// a declared success with its typed field set is not.
func TestCheckFindsTheOperationByType(t *testing.T) {
	for _, code := range []int{202, 299} {
		r := &gen.StorageDestroyResponse{HTTPResponse: &http.Response{StatusCode: code}}
		if _, err := Check(r, nil); !errors.As(err, new(*DecodeError)) {
			t.Errorf("%d without a body: %v, want a *DecodeError", code, err)
		}
	}
	r := &gen.StorageDestroyResponse{HTTPResponse: &http.Response{StatusCode: 202}, JSON202: &gen.StorageDestroyRestResponse{}}
	if _, err := Check(r, nil); err != nil {
		t.Errorf("202 with JSON202 set: %v", err)
	}
	if _, err := Check(&gen.StorageDestroyResponse{HTTPResponse: &http.Response{StatusCode: 422}, JSON422: &gen.HTTPValidationError{}}, nil); !errors.As(err, new(*APIError)) {
		t.Errorf("422 with its typed field set: %v, want an *APIError", err)
	}
}

// TestAPIErrorKeepsHeaders: an error response's headers reach
// APIError.Header, such as the server's request id that support asks
// for, with the key redacted in every form, as in the rest of the error
// (issue 40).
func TestAPIErrorKeepsHeaders(t *testing.T) {
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 404, http.Header{"X-Request-Id": {"rq-42"}, "X-Echo": {"key=" + url.QueryEscape(hostileKey)}}, `{"detail":"not found"}`), nil
	}}
	_, err := fakeClient(t, f, WithAPIKey(hostileKey)).StorageDestroyWithResponse(bg, "s-1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Header.Get("X-Request-Id") != "rq-42" || apiErr.Header.Get("X-Echo") != "key="+redacted {
		t.Fatalf("err %v, header %v", err, apiErr)
	}
	noKey(t, "APIError", apiErr)
}

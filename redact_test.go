package tensorpool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/tensorpool/tensorpool-go/internal/operations"
	"github.com/tensorpool/tensorpool-go/internal/transient"
)

// TestNothingPrintsTheKey formats every value a caller can reach from the
// client, from a response (the response, its request, that request's
// context) and from an error, with every fmt verb and with slog. The key
// lives only in closures, which fmt prints as addresses.
func TestNothingPrintsTheKey(t *testing.T) {
	f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
		if n == 2 {
			return reply(r, 404, nil, `{"detail":"no"}`), nil
		}
		return reply(r, 200, nil, infoOK), nil
	}}
	c := fakeClient(t, f)
	ctx := context.WithValue(bg, struct{ k string }{"k"}, "v")
	resp, err := Check(c.GetRequestInfoWithResponse(ctx, "r-1"))
	if err != nil {
		t.Fatal(err)
	}
	_, apiErr := Check(c.GetRequestInfoWithResponse(ctx, "r-1"))
	if !IsStatus(apiErr, 404) {
		t.Fatalf("err %v", apiErr)
	}
	if f.get(0).auth != "Bearer "+testKey {
		t.Fatalf("the key was not sent: %q", f.get(0).auth)
	}
	cl := c.ClientInterface.(*operations.Client)
	d := doerOf(c)
	hc := *d.hc
	hc.Transport = nil // the test's fakeRT records the key it was sent
	values := map[string]any{
		"*ClientWithResponses": c, "ClientWithResponses": *c, "*operations.Client": cl, "operations.Client": *cl, "gen.Client": cl.Gen(),
		"*doer": d, "doer": *d, "*http.Client": &hc, "http.Client": hc, "redactor": d.redact,
		"response": resp, "*http.Response": resp.HTTPResponse, "http.Response": *resp.HTTPResponse,
		"request": resp.HTTPResponse.Request, "request header": resp.HTTPResponse.Request.Header,
		"request context": resp.HTTPResponse.Request.Context(), "error": apiErr,
	}
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	for name, v := range values {
		noKey(t, name, v)
		logger.Info("value", "v", v)
	}
	if leaked(buf.String()) != "" {
		t.Errorf("slog printed the key:\n%s", buf.String())
	}
}

// TestNoKeyInConstructionErrors: NewClient refuses each of these, and its
// error does not print the key. (White space around a key is trimmed, not
// refused: WithAPIKey's doc.)
func TestNoKeyInConstructionErrors(t *testing.T) {
	for i, opts := range [][]Option{
		{WithAPIKey(testKey), WithBaseURL("http://example.com")},
		{WithAPIKey(testKey), WithBaseURL("http://example.com/" + testKey)},
		{WithAPIKey(testKey), WithBaseURL("::")},
		{WithAPIKey(testKey + " x")},
		{WithAPIKey(testKey[:9] + "\n" + testKey[9:])},
		{WithAPIKey("x" + testKey + "\x7f")},
		{WithAPIKey(testKey), WithRetryPolicy(RetryPolicy{MaxRetries: -1})},
	} {
		_, err := NewClient(opts...)
		if err == nil {
			t.Errorf("case %d: NewClient accepted it, want an error", i)
			continue
		}
		noKey(t, "NewClient error", err)
	}
}

func TestNoPanicOnOddInput(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	_ = newAPIError(&http.Response{}, []byte("{"), nil, false)
	_, _ = Check[Response](nil, nil)
	_ = IsStatus(nil)
	var e *APIError
	_ = errors.As(errors.New("x"), &e)
	_, _ = NewClient(WithAPIKey(testKey), WithBaseURL(""))
	_, _ = NewClient(WithAPIKey(testKey), WithBaseURL("https://"))
	_, _ = NewClient(WithAPIKey(testKey), WithHTTPClient(&http.Client{}), WithTimeout(0))
	r := newRedactor("abcd")
	for _, in := range []string{"", "\\", "\\u", "\\u00", "\\u007", "a\\", "abc", "\\u+7f1", "\\u0x7f"} {
		_ = r.text(in)
		_ = r.data([]byte(in))
	}
}

// TestScrubRule is the rule for diagnostics: every printed form replaced
// where it is, JSON escapes decoded; a cut key (4 characters or more of a
// form) at the end of a text or a JSON string replaced; a shorter start is
// not the key.
func TestScrubRule(t *testing.T) {
	for _, tc := range []struct {
		key, in, want string
	}{
		{testKey, `{"detail":"invalid token Bearer ` + testKey + `"}`, `{"detail":"invalid token Bearer [REDACTED]"}`},
		{testKey, "a " + testKey + " b " + testKey, "a [REDACTED] b [REDACTED]"},
		{testKey, "no key here", "no key here"},
		// cut keys
		{testKey, `{"detail":"` + testKey[:20], `{"detail":"[REDACTED]`},
		{testKey, "x " + testKey[:4], "x [REDACTED]"},
		{testKey, "x " + testKey[:3], "x " + testKey[:3]},
		{testKey, testKey[:10] + " not at the end", testKey[:10] + " not at the end"},
		// a field the server cut: the key's start closes a JSON string
		{testKey, `{"detail":"bad key ` + testKey[:14] + `","n":1}`, `{"detail":"bad key [REDACTED]","n":1}`},
		{testKey, `{"a":"` + testKey[:6] + `","b":"` + testKey[:9] + `"}`, `{"a":"[REDACTED]","b":"[REDACTED]"}`},
		{testKey, `{"a":"` + testKey[:3] + `"}`, `{"a":"` + testKey[:3] + `"}`},
		// escaped forms
		{hostileKey, `GET "https://e.test/request/info/` + url.PathEscape(hostileKey) + `"`, `GET "https://e.test/request/info/[REDACTED]"`},
		{hostileKey, `?q=` + url.QueryEscape(hostileKey), `?q=[REDACTED]`},
		{hostileKey, `{"a":"tp-\"\u003c\u003e/%?#\u0026+\\;,=@SECRET2"}`, `{"a":"[REDACTED]"}`},
		{hostileKey, `{"a":"tp-\"<>/%?#&+\\;,=@SECRET2"}`, `{"a":"[REDACTED]"}`},
		// any mix of JSON escapes, whole or cut
		{testKey, `{"detail":"` + uEscape(testKey) + `"}`, `{"detail":"[REDACTED]"}`},
		{testKey, `{"detail":"x ` + mixedEscape(testKey) + ` y"}`, `{"detail":"x [REDACTED] y"}`},
		{testKey, `<p>` + mixedEscape(testKey[:12]), `<p>[REDACTED]`},
		{testKey, `{"a":"` + uEscape(testKey[:9]) + `"}`, `{"a":"[REDACTED]"}`},
		{hostileKey, `{"a":"tp-\"<>\/%?#&+\\;,=@SECRET2"}`, `{"a":"[REDACTED]"}`},
		// a backslash, then text: not the key
		{testKey, `{"a":"\\u0074p-live-0123456789abcdefSECRET"}`, `{"a":"\\u0074p-live-0123456789abcdefSECRET"}`},
		{testKey, `{"a":"\n\u00e9 \x \u12"}`, `{"a":"\n\u00e9 \x \u12"}`},
	} {
		got := newRedactor(tc.key).text(tc.in)
		if got != tc.want {
			t.Errorf("text(%s)\n = %s\nwant %s", tc.in, got, tc.want)
		}
		if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) && got != redacted {
			t.Errorf("valid JSON %s scrubbed to invalid %s", tc.in, got)
		}
		if f := leakedOf(got, tc.key); f != "" {
			t.Errorf("scrubbed %s still holds the key (%q)", got, f)
		}
	}
}

// TestScrubbedErrorKeepsItsCause: an error quoting the key is scrubbed, yet
// errors.Is still sees its cause, internal/transient still sees it as
// transient (classified before redaction), and errors.As reaches what in
// its chain does not print the key. Through the client, a GET whose
// connection error quotes the key is retried like any other.
func TestScrubbedErrorKeepsItsCause(t *testing.T) {
	s := newRedactor(testKey)
	raw := &net.OpError{Op: "read", Net: "tcp", Err: &echoErr{"proxy said " + testKey}}
	err := s.err(fmt.Errorf("wrapped: %w", raw))
	if leaked(err.Error()) != "" || !strings.Contains(err.Error(), redacted) {
		t.Fatalf("text %q", err)
	}
	if !errors.Is(err, syscall.ECONNRESET) || !transient.Is(err) {
		t.Errorf("cause lost: errors.Is(ECONNRESET) %v, transient %v", errors.Is(err, syscall.ECONNRESET), transient.Is(err))
	}
	var op *net.OpError
	if errors.As(err, &op) || op != nil {
		t.Errorf("errors.As handed out an error that prints the key: %v", op)
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno != syscall.ECONNRESET {
		t.Errorf("errors.As(Errno) = %v", errno)
	}
	if plain := errors.New("no key here"); s.err(plain) != plain {
		t.Error("an error without the key was replaced")
	}
	if err := s.err(fmt.Errorf("%w: %s", context.Canceled, testKey)); transient.Is(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancellation: %v", err)
	}

	f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
		if n < 3 {
			return nil, &net.OpError{Op: "read", Net: "tcp", Err: &echoErr{r.Header.Get("Authorization")}}
		}
		return reply(r, 200, nil, infoOK), nil
	}}
	if _, err := Check(fakeClient(t, f, fastRetries).GetRequestInfoWithResponse(bg, "r-1")); err != nil || f.n() != 3 {
		t.Errorf("err %v after %d attempts, want success on the 3rd", err, f.n())
	}
}

// TestScrubMemoryBounded: an 8 MiB error body full of \u-escaped echoes of
// the key costs a few copies of the body, not one per form or escape.
func TestScrubMemoryBounded(t *testing.T) {
	esc := uEscape(testKey)
	body := []byte(`{"detail":"` + strings.Repeat(esc+" ", (8<<20)/(len(esc)+1)-1) + `"}`)
	f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
		return reply(r, 500, nil, string(body)), nil
	}}
	c := fakeClient(t, f, WithRetryPolicy(RetryPolicy{}))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Check(c.StorageAttachWithResponse(bg, attachBody))
	runtime.ReadMemStats(&after)
	var e *APIError
	if !errors.As(err, &e) || leaked(string(e.Body)) != "" || !strings.HasPrefix(string(e.Body), `{"detail":"[REDACTED] [REDACTED]`) {
		t.Fatalf("err %v, want a 500 with every echo redacted", err)
	}
	// the fake's string, the read body (grown by doubling: up to twice its
	// size), the redacted text: 4 bodies (4.19 measured, with -race too:
	// TotalAlloc counts the Go heap, not the race detector's shadow memory)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*uint64(len(body)) {
		t.Errorf("one Check allocated %d MiB for an %d MiB body", alloc>>20, len(body)>>20)
	}
	// the rule alone: its output
	if n := testing.AllocsPerRun(1, func() { newRedactor(testKey).text(string(body)) }); n > 20 {
		t.Errorf("scrubbing an 8 MiB body: %v allocations", n)
	}
}

// Scrubbing a body without the key allocates nothing, whatever its escapes
// (\u4e2d: Python's json escapes non-ASCII so).
func TestScrubBodyAllocations(t *testing.T) {
	s := newRedactor(testKey)
	plain := (`{"detail":"` + strings.Repeat("Storage not found. ", 500) + `"}`)
	escaped := `{"detail":"` + strings.Repeat(`Storage \"s-1\" not found.\n \u4e2d`, 500) + `"}`
	for _, body := range []string{plain, escaped} {
		if n := testing.AllocsPerRun(100, func() { s.text(body) }); n != 0 {
			t.Errorf("scrub of %.20q...: %v allocations, want 0", body, n)
		}
	}
}

func BenchmarkScrubBody(b *testing.B) {
	s := newRedactor(testKey)
	for _, bc := range []struct{ name, body string }{
		{"no-backslash", `{"detail":"` + strings.Repeat("Storage not found. ", 500) + `"}`},
		{"escapes-no-key", `{"detail":"` + strings.Repeat(`Storage \"s-1\" not found.\n`, 500) + `"}`},
		{"u-escaped-key", `{"detail":"` + strings.Repeat(`Storage \"s-1\" not found.\n`, 500) + uEscape(testKey) + `"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				s.text(bc.body)
			}
		})
	}
}

// TestScrubShortKey: a key too short to be cut (minCut bytes or fewer) is
// still replaced whole, and scrubbing never panics on it.
func TestScrubShortKey(t *testing.T) {
	for _, key := range []string{"k", "ab", "abcd"} {
		s := newRedactor(key)
		if got := s.text(`{"detail":"` + key + `"}`); got != `{"detail":"[REDACTED]"}` {
			t.Errorf("key %q: got %s", key, got)
		}
	}
}

// TestKeyInSuccessData: a 2xx whose JSON strings hold the whole key, as is
// or in any escaped form, reaches the generated parser with the key
// replaced. No typed field and no body holds it, and the text around it is
// kept; a string that merely starts like the key is data, kept whole
// (issue 40).
func TestKeyInSuccessData(t *testing.T) {
	for _, key := range []string{testKey, hostileKey} {
		j, _ := json.Marshal(key)
		start, _ := json.Marshal(key[:6])
		for _, form := range []string{string(j[1 : len(j)-1]), uEscape(key), mixedEscape(key), strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`)} {
			body := `{"request_id":"r-1","request_type":"STORAGE_ATTACH","status":"PENDING","created_at":"` + form +
				`","object_id":` + string(start) + `,"external_message":"see ` + form + ` here"}`
			f := &fakeRT{respond: func(_ int, r *http.Request) (*http.Response, error) {
				return reply(r, 200, http.Header{"Content-Type": {"application/json"}, "X-Echo": {url.QueryEscape(key)}}, body), nil
			}}
			c := fakeClient(t, f, WithAPIKey(key))
			r, err := c.GetRequestInfoWithResponse(bg, "r-1")
			if err != nil {
				t.Fatalf("%s: %v", form, err)
			}
			info := r.JSON200
			if info.CreatedAt != redacted || *info.ExternalMessage != "see "+redacted+" here" || *info.ObjectID != key[:6] {
				t.Errorf("%s: created_at %q, external_message %q, object_id %q", form, info.CreatedAt, *info.ExternalMessage, *info.ObjectID)
			}
			if l := leakedOf(string(r.Body)+r.HTTPResponse.Header.Get("X-Echo"), key); l != "" {
				t.Errorf("%s: the body or a header holds the key (as %q)", form, l)
			}
		}
	}
}

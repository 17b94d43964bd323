package tensorpool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/operations"
)

// testKey is the API key every test uses; leak checks search for it.
const testKey = "tp-live-0123456789abcdefSECRET"

// hostileKey is a valid key made of the characters URLs, JSON and Go
// strings escape, so that it shows up escaped wherever it is printed.
const hostileKey = `tp-"<>/%?#&+\;,=@SECRET2`

// keyForms lists how key can appear once escaped, computed here
// independently of redact.go: as is, percent-encoded, JSON- and
// Go-escaped, every character \u-escaped, every other character
// \u-escaped, and in hex.
func keyForms(key string) []string {
	j, _ := json.Marshal(key)
	html := string(j[1 : len(j)-1])
	q := strconv.Quote(key)
	return []string{
		key, url.PathEscape(key), url.QueryEscape(key), (&url.URL{Path: key}).EscapedPath(),
		html, strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(html), q[1 : len(q)-1],
		uEscape(key), mixedEscape(key),
		fmt.Sprintf("%x", key),
	}
}

// mixedEscape writes every other character of s as a JSON \u escape (a
// '"' or '\\' that is left is backslash-escaped).
func mixedEscape(s string) string {
	var b strings.Builder
	for i, r := range []rune(s) {
		switch {
		case i%2 == 0:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unescapeLenient decodes, left to right, every JSON escape in s (\uXXXX,
// surrogate pairs included, and \" \\ \/ \b \f \n \r \t) wherever it
// is, in a string literal or not; anything else is kept as is. It is
// written independently of redact.go, for leak checks.
func unescapeLenient(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if c, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[s[i+1]]; ok {
			b.WriteByte(c)
			i++
			continue
		}
		r, ok := hexRune(s[i+1:])
		if !ok {
			b.WriteByte(s[i])
			continue
		}
		i += 5
		if utf16.IsSurrogate(r) {
			if r2, ok := hexRune(s[min(i+2, len(s)):]); ok && s[i+1] == '\\' {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				}
			}
		}
		b.WriteRune(r) // a lone surrogate is written as U+FFFD
	}
	return b.String()
}

// hexRune parses "uXXXX" at the start of s.
func hexRune(s string) (rune, bool) {
	if len(s) < 5 || s[0] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:5], 16, 32)
	return rune(n), err == nil
}

// leaked returns the form of testKey or hostileKey that s holds, or "".
func leaked(s string) string { return leakedOf(s, testKey, hostileKey) }

// leakedOf returns the form of one of keys that s holds, or "": s itself
// is searched for every form, and s with its JSON escapes decoded for the
// key as is (any mix of escapes).
func leakedOf(s string, keys ...string) string {
	for _, k := range keys {
		for _, f := range keyForms(k) {
			if strings.Contains(s, f) {
				return f
			}
		}
		if strings.Contains(unescapeLenient(s), k) {
			return "escaped: " + k
		}
	}
	return ""
}

// noKey fails the test if either test key, in any form, appears in any of
// the usual renderings of v.
func noKey(t *testing.T, what string, v any) {
	t.Helper()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		if f := leaked(fmt.Sprintf(verb, v)); f != "" {
			t.Errorf("%s printed with %s contains the API key (as %q): %s", what, verb, f, fmt.Sprintf(verb, v))
		}
	}
	if err, ok := v.(error); ok && err != nil {
		if f := leaked(err.Error()); f != "" {
			t.Errorf("%s: error string contains the API key (as %q): %s", what, f, err)
		}
	}
}

// call is one request a fake transport received.
type call struct {
	method, path, auth, ua string
	body                   string
	at                     time.Time
}

// fakeRT is an http.RoundTripper that answers from a function, recording
// every request. It runs inside synctest bubbles: no real network.
type fakeRT struct {
	mu      sync.Mutex
	calls   []call
	respond func(n int, r *http.Request) (*http.Response, error) // n counts from 1
}

func (f *fakeRT) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		_ = r.Body.Close()
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("User-Agent"), string(body), time.Now()})
	n := len(f.calls)
	f.mu.Unlock()
	return f.respond(n, r)
}

func (f *fakeRT) n() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeRT) get(i int) call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[i]
}

// reply builds a response as net/http would.
func reply(r *http.Request, code int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	if header.Get("Content-Type") == "" && body != "" {
		header.Set("Content-Type", "application/json")
	}
	return &http.Response{
		StatusCode:    code,
		Status:        fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Header:        header,
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
		Proto:         "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
}

const (
	attachOK  = `{"storage_id":"s-1","cluster_ids":["c-1"],"request_ids":["r-1"],"message":"attaching"}`
	infoOK    = `{"request_id":"r-1","created_at":"2026-01-01T00:00:00Z","request_type":"STORAGE_ATTACH","status":"PENDING"}`
	destroyOK = `{"storage_id":"s-1","request_id":"r-2","message":"destroying"}`
)

// fakeClient is a client over f, with the test key and a fixed base URL.
func fakeClient(t *testing.T, f *fakeRT, opts ...Option) *gen.ClientWithResponses {
	t.Helper()
	all := append([]Option{
		WithAPIKey(testKey),
		WithBaseURL("https://engine.test"),
		WithHTTPClient(&http.Client{Transport: f}),
		leakCheckedLogger(t),
	}, opts...)
	c, err := NewClient(all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var attachBody = gen.StorageAttachRestRequest{StorageID: "s-1", ClusterIDs: []string{"c-1"}}

// logBuffer is a concurrency-safe buffer for slog handlers.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var bg = context.Background()

// doerOf digs the doer NewClient installed out of c.
func doerOf(c *gen.ClientWithResponses) *doer {
	return c.ClientInterface.(*operations.Client).Gen().Client.(*doer)
}

// leakCheckedLogger logs everything at debug level into a buffer that is
// searched for the key when the test ends: every log line a test produces
// is checked. (A later WithLogger option replaces it.)
func leakCheckedLogger(t *testing.T) Option {
	t.Helper()
	buf := &logBuffer{}
	t.Cleanup(func() {
		if f := leaked(buf.String()); f != "" {
			t.Errorf("a log line contains the API key:\n%s", buf.String())
		}
	})
	return WithLogger(slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

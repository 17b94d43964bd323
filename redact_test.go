package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

func TestSecretNeverPrints(t *testing.T) {
	k := newSecret(testKey)
	noKey(t, "secret", k)
	noKey(t, "*secret", &k)
	noKey(t, "[]secret", []secret{k})
	noKey(t, "map", map[string]any{"k": k})
	if got := fmt.Sprintf("%v|%#v|%d", k, k, k); got != `[REDACTED]|"[REDACTED]"|[REDACTED]` {
		t.Errorf("got %s", got)
	}
	if got := (secret{}).String(); got != "" {
		t.Errorf("empty secret prints %q", got)
	}
	if k.reveal() != testKey {
		t.Error("reveal")
	}
}

// TestNothingPrintsTheKey formats every value of ours that holds the key,
// and the generated client around them, every way fmt and slog can.
func TestNothingPrintsTheKey(t *testing.T) {
	cfg := defaultConfig()
	for _, o := range []Option{WithAPIKey(testKey), WithLogger(slog.Default())} {
		if err := o(&cfg); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewClient(WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	gc := c.ClientInterface.(*gen.Client)
	inner := clientTransport(t, c)
	values := map[string]any{
		"config": cfg, "*config": &cfg, "transport": inner, "*transport": *inner,
		"ClientWithResponses": c, "*ClientWithResponses": *c, "*gen.Client": gc, "gen.Client": *gc,
		"http.Client": httpClientOf(c), "*http.Client": *httpClientOf(c),
	}
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	for name, v := range values {
		noKey(t, name, v)
		logger.Info("value", "v", v)
	}
	if bytes.Contains(buf.Bytes(), []byte(testKey)) {
		t.Errorf("slog printed the key:\n%s", buf.String())
	}
}

func TestNoKeyInConstructionErrors(t *testing.T) {
	for _, opts := range [][]Option{
		{WithAPIKey(testKey), WithBaseURL("http://example.com")},
		{WithAPIKey(testKey), WithBaseURL("::")},
		{WithAPIKey(testKey + " ")},
		{WithAPIKey(testKey + "\n")},
		{WithAPIKey("x" + testKey + "\x7f")},
		{WithAPIKey(testKey), WithRetryPolicy(RetryPolicy{MaxRetries: -1})},
	} {
		_, err := NewClient(opts...)
		noKey(t, "NewClient error", err)
	}
}

func TestNoPanicOnOddInput(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	_ = NewAPIError(nil, nil)
	_ = NewAPIError(&http.Response{}, []byte("{"))
	_, _ = Check[Response](nil, nil)
	_ = StatusCode(nil)
	var e *APIError
	_ = errors.As(errors.New("x"), &e)
	_, _ = NewClient(WithAPIKey(testKey), WithBaseURL(""))
	_, _ = NewClient(WithAPIKey(testKey), WithBaseURL("https://"))
	_, _ = NewClient(WithAPIKey(testKey), WithHTTPClient(&http.Client{}), WithTimeout(0))
}

// The key written with JSON escapes is scrubbed from a body whatever its
// shape: valid JSON (which stays valid), JSON cut inside the key or
// broken, HTML; surrogate pairs, \/ and mixed escapes included; a
// backslash that starts no escape changes nothing.
func TestScrubEscapedKey(t *testing.T) {
	const emojiKey = "tp-😀-é/SECRET3"
	for _, tc := range []struct {
		key, in, want string
	}{
		{testKey, `{"detail":"` + uEscape(testKey) + `"}`, `{"detail":"[REDACTED]"}`},
		{testKey, `{"detail":"x ` + mixedEscape(testKey) + ` y"}`, `{"detail":"x [REDACTED] y"}`},
		{testKey, `{"detail":"` + uEscape(testKey), `{"detail":"[REDACTED]`},
		{testKey, `{"detail":"` + uEscape(testKey) + `", oops`, `{"detail":"[REDACTED]", oops`},
		{testKey, `<p>` + uEscape(testKey) + `</p>` + uEscape(testKey[:5]), `<p>[REDACTED]</p>` + uEscape(testKey[:5])},
		{hostileKey, `{"a":"` + mixedEscape(hostileKey) + `","b":"` + uEscape(hostileKey) + `"}`, `{"a":"[REDACTED]","b":"[REDACTED]"}`},
		{hostileKey, `{"a":"tp-\"<>\/%?#&+\\;,=@SECRET2"}`, `{"a":"[REDACTED]"}`},
		{emojiKey, `{"a":"tp-\ud83d\ude00-\u00e9\/SECRET3"`, `{"a":"[REDACTED]"`},
		{emojiKey, `{"a":"tp-\ud83d\ude00-\u00e9\/SECRET\x \ud800 \u12"`, `{"a":"tp-\ud83d\ude00-\u00e9\/SECRET\x \ud800 \u12"`},
		{testKey, `{"a":"\\u0074p-live-0123456789abcdefSECRET"}`, `{"a":"\\u0074p-live-0123456789abcdefSECRET"}`}, // not the key: a backslash, then text
	} {
		k := newSecret(tc.key)
		got := string(k.scrubBytes([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("scrubBytes(%s)\n = %s\nwant %s", tc.in, got, tc.want)
		}
		if s := k.scrub(tc.in); s != tc.want {
			t.Errorf("scrub(%s) = %s, want %s", tc.in, s, tc.want)
		}
		if k.in(tc.in) != (got != tc.in) {
			t.Errorf("in(%s) = %v", tc.in, k.in(tc.in))
		}
		if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
			t.Errorf("valid JSON %s scrubbed to invalid %s", tc.in, got)
		}
		if f := leakedOf(got, tc.key); f != "" {
			t.Errorf("scrubbed %s still holds the key (%q)", got, f)
		}
	}
}

// Scrubbing a body without the key allocates nothing without a backslash,
// and one buffer (the decoded copy) with one.
func TestScrubBodyAllocations(t *testing.T) {
	k := newSecret(testKey)
	plain := []byte(`{"detail":"` + strings.Repeat("Storage not found. ", 500) + `"}`)
	escaped := []byte(`{"detail":"` + strings.Repeat(`Storage \"s-1\" not found.\n`, 500) + `"}`)
	for _, tc := range []struct {
		body []byte
		max  float64
	}{{plain, 0}, {escaped, 1}} {
		if n := testing.AllocsPerRun(100, func() { k.scrubBytes(tc.body) }); n > tc.max {
			t.Errorf("scrubBytes of %.20q...: %v allocations, want at most %v", tc.body, n, tc.max)
		}
	}
}

func BenchmarkScrubBody(b *testing.B) {
	k := newSecret(testKey)
	for _, bc := range []struct{ name, body string }{
		{"no-backslash", `{"detail":"` + strings.Repeat("Storage not found. ", 500) + `"}`},
		{"escapes-no-key", `{"detail":"` + strings.Repeat(`Storage \"s-1\" not found.\n`, 500) + `"}`},
		{"u-escaped-key", `{"detail":"` + strings.Repeat(`Storage \"s-1\" not found.\n`, 500) + uEscape(testKey) + `"}`},
	} {
		body := []byte(bc.body)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				k.scrubBytes(body)
			}
		})
	}
}

package tensorpool

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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

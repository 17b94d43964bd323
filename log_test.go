package tensorpool

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
)

// TestLogging: attempts at debug, retries at info, no headers, no bodies,
// no key; nothing at all without a logger.
func TestLogging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf logBuffer
		logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
			switch n {
			case 1:
				return reply(r, 503, http.Header{"Retry-After": {"2"}}, `{"detail":"echo `+r.Header.Get("Authorization")+`"}`), nil
			case 2:
				return nil, &echoErr{r.Header.Get("Authorization")}
			default:
				return reply(r, 200, nil, infoOK), nil
			}
		}}
		c := fakeClient(t, f, WithLogger(logger))
		if _, err := Check(c.GetRequestInfoWithResponse(bg, "r-1")); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, testKey) {
			t.Fatalf("the key is in the log:\n%s", out)
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			lines = append(lines, m)
		}
		// 3 attempts, 2 retries
		want := []struct{ level, msg string }{
			{"DEBUG", "tensorpool: request"}, {"INFO", "tensorpool: retrying"},
			{"DEBUG", "tensorpool: request"}, {"INFO", "tensorpool: retrying"},
			{"DEBUG", "tensorpool: request"},
		}
		if len(lines) != len(want) {
			t.Fatalf("%d lines:\n%s", len(lines), out)
		}
		for i, w := range want {
			if lines[i]["level"] != w.level || lines[i]["msg"] != w.msg {
				t.Errorf("line %d: %v", i, lines[i])
			}
		}
		if lines[0]["status"] != 503.0 || lines[0]["method"] != "GET" || lines[0]["url"] != "https://engine.test/request/info/r-1" {
			t.Errorf("first attempt: %v", lines[0])
		}
		if lines[1]["reason"] != "503 Service Unavailable" || lines[1]["delay"] != 2e9 {
			t.Errorf("first retry: %v", lines[1])
		}
		if e, _ := lines[2]["error"].(string); !strings.Contains(e, "[REDACTED]") {
			t.Errorf("transport error not logged with the key redacted: %v", lines[2])
		}
		for _, l := range lines {
			for k := range l {
				if strings.EqualFold(k, "authorization") || strings.EqualFold(k, "headers") || strings.EqualFold(k, "body") {
					t.Errorf("logged %q", k)
				}
			}
		}
	})
}

// echoErr is a transient transport error (a reset) whose text includes what
// it was given.
type echoErr struct{ s string }

func (e *echoErr) Error() string { return "proxy said: " + e.s }

func (e *echoErr) Unwrap() error { return syscall.ECONNRESET }

func TestLoggingInfoLevelOnlyRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf logBuffer
		logger := slog.New(slog.NewTextHandler(&buf, nil)) // info
		f := &fakeRT{respond: func(n int, r *http.Request) (*http.Response, error) {
			if n == 1 {
				return reply(r, 429, nil, ""), nil
			}
			return reply(r, 200, nil, infoOK), nil
		}}
		c := fakeClient(t, f, WithLogger(logger))
		_, _ = c.GetRequestInfoWithResponse(bg, "r-1")
		if out := buf.String(); strings.Count(out, "\n") != 1 || !strings.Contains(out, "retrying") {
			t.Errorf("log:\n%s", out)
		}
	})
}

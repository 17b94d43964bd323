package hostile_test

// This test runs, as package hostile, in a copy of the repository whose
// openapi.json holds the operations of testdata/hostile/operations.json
// beside the vendored ones, GetRequestInfo's description quoting attach's
// "Corresponds with" line, and created_at as a date-time
// (internal/specgrowth, TestHostileDocument). Each case is a defect of
// issue 40, reproduced through NewClient.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/wait"
)

const (
	auditKey = "tp-AUDITKEY-0123456789"
	escaped  = `\u0074p-AUDITKEY-0123456789` // the key, as JSON may escape it
)

// hostileServer answers each path as the audit did, and records what it
// was sent.
type hostileServer struct {
	mu   sync.Mutex
	seen []string
}

func (s *hostileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Method+" "+r.URL.EscapedPath())
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	info := `{"request_id":"%s","request_type":"STORAGE_ATTACH","status":"COMPLETED","created_at":"%s","external_message":"` + escaped + `"}`
	switch r.Method + " " + r.URL.Path {
	case "GET /request/info/req-date":
		fmt.Fprintf(w, info, "req-date", escaped)
	case "GET /request/info/req-1":
		fmt.Fprintf(w, info, "req-1", "2026-12-01T10:00:00Z")
	case "GET /volumes/s-1":
		io.WriteString(w, `{"id":"s-1","made":"`+escaped+`"}`)
	case "GET /volumes/s-2":
		io.WriteString(w, `{"id":"s-2","at":"`+escaped+`"}`)
	case "GET /volumes/s-3":
		io.WriteString(w, `{"id":"s-3","note":"`+escaped+`"}`)
	case "HEAD /volumes/s-1":
		w.Header().Set("Content-Length", "11") // the GET's
	case "POST /pings":
		w.WriteHeader(http.StatusNoContent)
	default:
		if r.Method == http.MethodPost || r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusAccepted) // what they declare
		}
		io.WriteString(w, `{"id":"s-9"}`)
	}
}

func (s *hostileServer) sent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

func (s *hostileServer) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[len(s.seen)-1]
}

// leaks reports whether text holds the key, as is or escaped.
func leaks(text string) bool {
	return strings.Contains(text, auditKey) || strings.Contains(text, escaped) || strings.Contains(text, "AUDITKEY")
}

func TestHostile(t *testing.T) {
	s := &hostileServer{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, err := tensorpool.NewClient(tensorpool.WithAPIKey(auditKey), tensorpool.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("a description quoting another operation binds nothing", func(t *testing.T) {
		info, err := c.GetRequestInfoWithResponse(ctx, "req-1")
		if err != nil || info.JSON200 == nil || s.last() != "GET /request/info/req-1" {
			t.Fatalf("GetRequestInfo: %v, the server saw %s", err, s.last())
		}
		n := s.sent()
		if _, err := c.GetRequestInfoWithResponse(ctx, ""); !errors.Is(err, tensorpool.ErrInvalidRequest) || s.sent() != n {
			t.Errorf("GetRequestInfo(\"\"): %v, %d sent: want the id rule", err, s.sent()-n)
		}
		if _, err := c.CreateVolumeWithResponse(ctx, gen.CreateVolumeJSONRequestBody{Name: "s-1"}); err != nil || s.last() != "POST /volumes" {
			t.Errorf("CreateVolume: %v, the server saw %s", err, s.last())
		}
	})

	t.Run("the key reaches no error and no typed data", func(t *testing.T) {
		for _, id := range []string{"s-1", "s-2"} { // format: date, format: date-time
			_, err := c.GetVolumeWithResponse(ctx, id)
			if err == nil || leaks(err.Error()) {
				t.Errorf("GetVolume(%s): %v, want a parse error without the key", id, err)
			}
		}
		v, err := c.GetVolumeWithResponse(ctx, "s-3") // a plain string
		if err != nil || v.JSON200.Note == nil || leaks(*v.JSON200.Note) || leaks(string(v.Body)) {
			t.Errorf("GetVolume(s-3): %v, note %v", err, v)
		}
		if _, err := c.GetRequestInfoWithResponse(ctx, "req-date"); err == nil || leaks(err.Error()) {
			t.Errorf("GetRequestInfo(req-date): %v, want a parse error without the key", err)
		}
		var messages []string
		p := wait.New(c, wait.WithMaxFailures(1), wait.WithProgress(func(u wait.Update) { messages = append(messages, u.Message) }))
		if _, err := p.Wait(ctx, "req-date"); err == nil || leaks(err.Error()) {
			t.Errorf("wait for req-date: %v, want a parse error without the key", err)
		}
		info, err := p.Wait(ctx, "req-1")
		if err != nil || info.ExternalMessage == nil || leaks(*info.ExternalMessage) || leaks(strings.Join(messages, " ")) {
			t.Errorf("wait for req-1: %v, message %q, updates %q", err, *info.ExternalMessage, messages)
		}
	})

	t.Run("every constraint the document states is checked", func(t *testing.T) {
		for name, call := range map[string]func(string) error{
			"a $ref parameter": func(v string) error { _, err := c.GetVolumeWithResponse(ctx, v); return err },
			"a renamed parameter": func(v string) error {
				_, err := c.DeleteDiskWithResponse(ctx, v)
				return err
			},
			"a $ref body": func(v string) error {
				_, err := c.CreateVolumeWithResponse(ctx, gen.CreateVolumeJSONRequestBody{Name: v})
				return err
			},
			"a body of application/json; charset=utf-8": func(v string) error {
				_, err := c.LabelVolumeWithApplicationJSONCharsetUTF8BodyWithResponse(ctx, "s-1", gen.LabelVolumeApplicationJSONCharsetUTF8RequestBody{Label: v})
				return err
			},
		} {
			n := s.sent()
			if err := call("BAD"); !errors.Is(err, tensorpool.ErrInvalidRequest) || s.sent() != n {
				t.Errorf("%s, BAD: %v, %d sent: want ErrInvalidRequest, nothing sent", name, err, s.sent()-n)
			}
			if err := call("s-9"); err != nil || s.sent() != n+1 {
				t.Errorf("%s, s-9: %v, %d sent", name, err, s.sent()-n)
			}
		}
	})

	t.Run("an integer enum on a path parameter", func(t *testing.T) {
		if _, err := c.GetTierWithResponse(ctx, 1); err != nil || s.last() != "GET /tiers/1" {
			t.Errorf("GetTier(1): %v", err)
		}
		n := s.sent()
		if _, err := c.GetTierWithResponse(ctx, 3); !errors.Is(err, tensorpool.ErrInvalidRequest) || s.sent() != n {
			t.Errorf("GetTier(3): %v", err)
		}
	})

	t.Run("a format: byte path parameter keeps the id rule", func(t *testing.T) {
		n := s.sent()
		if _, err := c.GetBlobWithResponse(ctx, []byte{255, 255, 255}); !errors.Is(err, tensorpool.ErrInvalidRequest) || s.sent() != n {
			t.Errorf("GetBlob(////): %v, %d sent", err, s.sent()-n)
		}
		if _, err := c.GetBlobWithResponse(ctx, []byte("ok")); err != nil || s.last() != "GET /blobs/b2s=" {
			t.Errorf("GetBlob(ok): %v, the server saw %s", err, s.last())
		}
	})

	t.Run("no body where HTTP has none", func(t *testing.T) {
		if r, err := c.HeadVolumeWithResponse(ctx, "s-1"); err != nil || r.StatusCode() != http.StatusOK {
			t.Errorf("HEAD: %v", err)
		}
		if r, err := c.PingWithResponse(ctx); err != nil || r.StatusCode() != http.StatusNoContent {
			t.Errorf("204 under a JSON default: %v", err)
		}
	})

	t.Run("a path parameter named path_text", func(t *testing.T) {
		if _, err := c.GetTextWithResponse(ctx, 7); err != nil || s.last() != "GET /texts/7" {
			t.Errorf("GetText(7): %v, the server saw %s", err, s.last())
		}
	})
}

package wait

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
)

// FuzzResponse feeds arbitrary responses to one poll: whatever the server
// sends, Step must not panic, must classify it, and must schedule the next
// poll within [min, max] or end with an error.
func FuzzResponse(f *testing.F) {
	f.Add(200, "application/json", `{"request_id":"r","status":"PROCESSING","request_type":"STORAGE_ATTACH","created_at":""}`, "5", "")
	f.Add(200, "application/json", `{"request_id":"r","status":"COMPLETED"}`, "", "")
	f.Add(200, "application/json", `{"request_id":"r","status":"FAILED","external_message":"boom"}`, "", "")
	f.Add(200, "application/json", `{"status":"NEW"}`, "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:48:37 GMT")
	f.Add(200, "application/json", `{"status":`, "2.5", "")
	f.Add(200, "text/html", `<html>`, "-1", "")
	f.Add(200, "application/json", `[]`, "", "")
	f.Add(200, "application/json", `{"status":7}`, "", "")
	f.Add(503, "application/json", `{"detail":"busy"}`, "120", "")
	f.Add(429, "", ``, "Sunday, 06-Nov-94 08:49:37 GMT", "")
	f.Add(404, "application/json", `{"detail":"Not Found"}`, "", "")
	f.Add(401, "application/json", `{"detail":"bad key"}`, "", "")
	f.Add(422, "application/json", `{"detail":[{"loc":["path"],"msg":"x","type":"y"}]}`, "", "")
	f.Add(422, "application/json", `{"detail":`, "", "")
	f.Add(999, "", "", "99999999999999999999", "")
	f.Fuzz(func(t *testing.T, code int, ctype, body, ra, date string) {
		if code < 100 || code > 999 {
			t.Skip()
		}
		fk := newFake().on("r", reply{code: code, ctype: ctype, body: body, retryAfter: ra, date: orNone(date)})
		p := fk.poller(t, 0.999)
		s, err := p.Step(context.Background(), "r", nil)
		if s == nil {
			t.Fatal("nil Step")
		}
		switch {
		case s.Done:
			if s.Info == nil || s.Next != 0 {
				t.Fatalf("done step %+v", s)
			}
			if failed := s.Info.Status == gen.RequestStatusFAILED; failed != errors.Is(err, ErrFailed) {
				t.Fatalf("status %q with error %v", s.Info.Status, err)
			}
		case err != nil:
			if s.Next != 0 {
				t.Fatalf("error %v with a next poll %v", err, s.Next)
			}
		default:
			if s.Next < p.cfg.minInterval || s.Next > p.cfg.maxInterval {
				t.Fatalf("next poll %v outside bounds", s.Next)
			}
			if code == http.StatusOK && s.Err == nil && !s.Status.Valid() {
				t.Fatalf("unknown status %q accepted as running", s.Status)
			}
		}
	})
}

func orNone(date string) string {
	if date == "" {
		return "-"
	}
	return date
}

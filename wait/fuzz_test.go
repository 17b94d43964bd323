package wait

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// FuzzResponse feeds arbitrary responses to one poll, under arbitrary
// interval options: whatever the server sends, Step must not panic, must
// classify it, and must schedule the next poll within [min, max] or end with
// an error.
func FuzzResponse(f *testing.F) {
	f.Add(200, "application/json", `{"request_id":"r","status":"PROCESSING","request_type":"STORAGE_ATTACH","created_at":""}`, "5", "", int64(0), int64(0))
	f.Add(200, "application/json", `{"request_id":"r","status":"COMPLETED"}`, "", "", int64(0), int64(0))
	f.Add(200, "application/json", `{"request_id":"r","status":"FAILED","external_message":"boom"}`, "", "", int64(0), int64(0))
	f.Add(200, "application/json", `{"status":"NEW"}`, "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:48:37 GMT", int64(0), int64(0))
	f.Add(200, "application/json", `{"status":`, "2.5", "", int64(0), int64(0))
	f.Add(200, "text/html", `<html>`, "-1", "", int64(0), int64(0))
	f.Add(200, "application/json", `[]`, "", "", int64(0), int64(0))
	f.Add(200, "application/json", `{"status":7}`, "", "", int64(0), int64(0))
	f.Add(503, "application/json", `{"detail":"busy"}`, "120", "", int64(0), int64(0))
	f.Add(429, "", ``, "Sunday, 06-Nov-94 08:49:37 GMT", "", int64(0), int64(0))
	f.Add(404, "application/json", `{"detail":"Not Found"}`, "", "", int64(0), int64(0))
	f.Add(401, "application/json", `{"detail":"bad key"}`, "", "", int64(0), int64(0))
	f.Add(422, "application/json", `{"detail":[{"loc":["path"],"msg":"x","type":"y"}]}`, "", "", int64(0), int64(0))
	f.Add(422, "application/json", `{"detail":`, "", "", int64(0), int64(0))
	f.Add(999, "", "", "99999999999999999999", "", int64(0), int64(0))
	f.Add(200, "application/json", `{"request_id":"r","status":"PENDING"}`, "9223372035", "", int64(0), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, code int, ctype, body, ra, date string, minNs, maxNs int64) {
		if code < 100 || code > 999 {
			t.Skip()
		}
		lo, hi := time.Duration(minNs), time.Duration(maxNs)
		if lo < 0 || hi < 0 || hi != 0 && hi < cmp.Or(lo, DefaultMinInterval) {
			defer func() {
				if recover() == nil {
					t.Errorf("WithInterval(%v, %v): New did not panic", lo, hi)
				}
			}()
		}
		fk := newFake().on("r", reply{code: code, ctype: ctype, body: body, retryAfter: ra, date: orNone(date)})
		p := fk.poller(t, 0.999, WithInterval(lo, hi))
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

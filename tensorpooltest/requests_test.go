package tensorpooltest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestQueuedLifecyclesApplyInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-2"})
		s.Engine.QueueLifecycles(
			tensorpooltest.Fail(0, time.Second, "first fails"),
			tensorpooltest.Succeed(0, 5*time.Second),
		)
		first := *destroy(t, s, "s-1").JSON202.RequestID
		second := *destroy(t, s, "s-2").JSON202.RequestID
		time.Sleep(time.Second)
		if st := info(t, s, first).JSON200.Status; st != gen.RequestStatusFAILED {
			t.Fatalf("first: %s", st)
		}
		if st := info(t, s, second).JSON200.Status; st != gen.RequestStatusPROCESSING {
			t.Fatalf("second after 1s: %s", st)
		}
		time.Sleep(4 * time.Second)
		if st := info(t, s, second).JSON200.Status; st != gen.RequestStatusCOMPLETED {
			t.Fatalf("second after 5s: %s", st)
		}
		if _, ok := s.Engine.Storage("s-1"); !ok {
			t.Fatal("the failed destroy destroyed s-1")
		}
		if _, ok := s.Engine.Storage("s-2"); ok {
			t.Fatal("the completed destroy left s-2")
		}
		// The queue is used up: the next request gets the default lifecycle.
		third := attach(t, s, "s-1", "c-1").JSON202.RequestIDs[0]
		if st := info(t, s, third).JSON200.Status; st != gen.RequestStatusPENDING {
			t.Fatalf("third: %s, want PENDING (default lifecycle)", st)
		}
	})
}

func TestBusyVolumeRefusesAnotherRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(time.Second, time.Second)))
		wantStatus(t, destroy(t, s, "s-1"), 202)
		wantStatus(t, attach(t, s, "s-1", "c-1"), 409) // being destroyed: busy
		wantStatus(t, destroy(t, s, "s-1"), 409)       // already being destroyed
		time.Sleep(2 * time.Second)
		wantStatus(t, attach(t, s, "s-1", "c-1"), 404) // gone
	})
}

func TestSetLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		id := *destroy(t, s, "s-1").JSON202.RequestID
		if !s.Engine.SetLifecycle(id, tensorpooltest.Fail(0, 2*time.Second, "changed my mind")) {
			t.Fatal("SetLifecycle on a request in flight returned false")
		}
		time.Sleep(2 * time.Second)
		if got := info(t, s, id).JSON200; got.Status != gen.RequestStatusFAILED || *got.ExternalMessage != "changed my mind" {
			t.Fatalf("request info %+v", got)
		}
		if s.Engine.SetLifecycle(id, tensorpooltest.Succeed(0, 0)) {
			t.Fatal("SetLifecycle on a terminal request returned true")
		}
		if s.Engine.SetLifecycle("req_nope", tensorpooltest.Succeed(0, 0)) {
			t.Fatal("SetLifecycle on an unknown request returned true")
		}
	})
}

func TestMalformedLifecyclesPanic(t *testing.T) {
	for name, l := range map[string]tensorpooltest.Lifecycle{
		"empty":                 nil,
		"no terminal phase":     {{Status: gen.RequestStatusPENDING, For: time.Second}},
		"terminal in the midst": {{Status: gen.RequestStatusCOMPLETED}, {Status: gen.RequestStatusFAILED}},
		"unknown status":        {{Status: "SLEEPING"}, {Status: gen.RequestStatusCOMPLETED}},
		"negative duration":     {{Status: gen.RequestStatusPENDING, For: -1}, {Status: gen.RequestStatusCOMPLETED}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tensorpooltest.New().QueueLifecycles(l)
		})
	}
}

func TestRetryAfterSecondsRoundUp(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", 1500 * time.Millisecond: "2", time.Minute: "60"} {
		s := seeded(t, tensorpooltest.WithRetryAfter(d, tensorpooltest.RetryAfterSeconds))
		id := *destroy(t, s, "s-1").JSON202.RequestID
		if got := info(t, s, id).HTTPResponse.Header.Get("Retry-After"); got != want {
			t.Errorf("Retry-After for %v = %q, want %q", d, got, want)
		}
	}
}

// The HTTP-date form rounds a fraction of a second up, like the seconds
// form, measured from the answer's Date.
func TestRetryAfterHTTPDateRoundsUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t, tensorpooltest.WithRetryAfter(1500*time.Millisecond, tensorpooltest.RetryAfterHTTPDate))
		id := *destroy(t, s, "s-1").JSON202.RequestID
		time.Sleep(300 * time.Millisecond) // mid-second: Date is truncated
		h := info(t, s, id).HTTPResponse.Header
		ra, err1 := http.ParseTime(h.Get("Retry-After"))
		date, err2 := http.ParseTime(h.Get("Date"))
		if err1 != nil || err2 != nil {
			t.Fatalf("Retry-After %q, Date %q", h.Get("Retry-After"), h.Get("Date"))
		}
		if !date.Equal(time.Now().Truncate(time.Second)) || ra.Sub(date) != 2*time.Second {
			t.Fatalf("Date %v, Retry-After %v at %v: want Date = now truncated, Retry-After = Date + 2s", date, ra, time.Now())
		}
	})
}

func TestSetRetryAfterSwitchesForm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t)
		id := *destroy(t, s, "s-1").JSON202.RequestID
		if got := info(t, s, id).HTTPResponse.Header.Get("Retry-After"); got != "2" {
			t.Fatalf("default Retry-After %q, want \"2\"", got)
		}
		s.Engine.SetRetryAfter(7*time.Second, tensorpooltest.RetryAfterHTTPDate)
		h := info(t, s, id).HTTPResponse.Header
		ra, err := http.ParseTime(h.Get("Retry-After"))
		if err != nil || ra.Sub(time.Now().Truncate(time.Second)) != 7*time.Second {
			t.Fatalf("Retry-After %q (%v), want now+7s", h.Get("Retry-After"), err)
		}
		if v := s.Engine.Violations(); len(v) != 0 {
			t.Fatalf("the HTTP-date deviation was reported: %v", v)
		}
	})
}

func TestRetryAfterOmitted(t *testing.T) {
	s := seeded(t, tensorpooltest.WithRetryAfter(time.Second, tensorpooltest.RetryAfterOmitted))
	id := *destroy(t, s, "s-1").JSON202.RequestID
	resp := info(t, s, id)
	if resp.JSON200.Status.Valid() && resp.JSON200.Status == gen.RequestStatusPENDING {
		if _, ok := resp.HTTPResponse.Header["Retry-After"]; ok {
			t.Fatal("Retry-After sent with RetryAfterOmitted")
		}
		return
	}
	t.Fatalf("status %s, want PENDING", resp.JSON200.Status)
}

// The engine keeps its own copy of every lifecycle it is given: a caller
// changing its slice afterwards (here: the terminal phase made
// non-terminal) changes nothing, and races with nothing.
func TestLifecyclesAreCopied(t *testing.T) {
	for name, tc := range map[string]struct {
		opt           func(l tensorpooltest.Lifecycle) tensorpooltest.Option
		before, after func(t *testing.T, s *tensorpooltest.Server, l tensorpooltest.Lifecycle)
	}{
		"WithLifecycle": {opt: tensorpooltest.WithLifecycle},
		"QueueLifecycles": {before: func(_ *testing.T, s *tensorpooltest.Server, l tensorpooltest.Lifecycle) {
			s.Engine.QueueLifecycles(l)
		}},
		"SetLifecycle": {after: func(t *testing.T, s *tensorpooltest.Server, l tensorpooltest.Lifecycle) {
			if !s.Engine.SetLifecycle("req_000001", l) {
				t.Fatal("SetLifecycle returned false")
			}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := tensorpooltest.Succeed(0, time.Second)
				opt := tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, time.Hour))
				if tc.opt != nil {
					opt = tc.opt(l)
				}
				s := seeded(t, opt)
				if tc.before != nil {
					tc.before(t, s, l)
				}
				id := *destroy(t, s, "s-1").JSON202.RequestID
				if tc.after != nil {
					tc.after(t, s, l)
				}
				l[2].Status = gen.RequestStatusPROCESSING
				time.Sleep(time.Second)
				if st := info(t, s, id).JSON200.Status; st != gen.RequestStatusCOMPLETED {
					t.Fatalf("status %s after the caller changed its slice, want COMPLETED", st)
				}
			})
		})
	}
}

func TestRetryAfterMisusePanics(t *testing.T) {
	for name, tc := range map[string]struct {
		f    func()
		want string
	}{
		"WithRetryAfter negative": {func() {
			tensorpooltest.New(tensorpooltest.WithRetryAfter(-3*time.Second, tensorpooltest.RetryAfterSeconds))
		}, "WithRetryAfter: negative delay -3s"},
		"SetRetryAfter negative": {func() { tensorpooltest.New().SetRetryAfter(-time.Nanosecond, tensorpooltest.RetryAfterHTTPDate) }, "SetRetryAfter: negative delay -1ns"},
		"WithRetryAfter form":    {func() { tensorpooltest.New(tensorpooltest.WithRetryAfter(time.Second, 7)) }, "unknown RetryAfterForm 7"},
		"SetRetryAfter form":     {func() { tensorpooltest.New().SetRetryAfter(time.Second, -1) }, "unknown RetryAfterForm -1"},
	} {
		t.Run(name, func(t *testing.T) {
			defer wantPanic(t, tc.want)
			tc.f()
		})
	}
}

// The HTTP-date is Date plus the delay rounded up to whole seconds: never
// before Date, never short of the delay measured from Date, whatever the
// delay and the instant within the second.
func TestRetryAfterHTTPDateBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := seeded(t, tensorpooltest.WithLifecycle(tensorpooltest.Succeed(0, 1<<62)))
		id := *destroy(t, s, "s-1").JSON202.RequestID
		for _, d := range []time.Duration{0, 1, time.Second, time.Second + 1, 90 * time.Minute, 1<<63 - 1} {
			for _, into := range []time.Duration{0, 999 * time.Millisecond} {
				time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + into)))
				s.Engine.SetRetryAfter(d, tensorpooltest.RetryAfterHTTPDate)
				h := info(t, s, id).HTTPResponse.Header
				ra, _ := http.ParseTime(h.Get("Retry-After"))
				date, _ := http.ParseTime(h.Get("Date"))
				gotSecs := ra.Unix() - date.Unix()
				wantSecs := int64(d / time.Second) // in seconds: the largest d rounded up overflows a Duration
				if d%time.Second != 0 {
					wantSecs++
				}
				if gotSecs != wantSecs || !date.Equal(time.Now().Truncate(time.Second)) {
					t.Errorf("delay %v at +%v into the second: Retry-After %q is Date %q + %ds, want + %ds", d, into, h.Get("Retry-After"), h.Get("Date"), gotSecs, wantSecs)
				}
			}
		}
	})
}

// TestRequestsHideTheKeyInEveryForm: Requests shows the key nowhere, as
// sent, query-escaped (a space as '+'), percent-encoded or behind a JSON
// escape, in the path, the query, a header or the body.
func TestRequestsHideTheKeyInEveryForm(t *testing.T) {
	const key = "tp-AUDIT key/0123456789"
	e := tensorpooltest.New(tensorpooltest.WithAPIKey(key))
	body := `{"storage_id":"tp-AUDIT\u0020key\/0123456789","cluster_ids":["c"]}`
	u := "http://engine.invalid/storage/attach?a=" + url.QueryEscape(key) + "&b=" + url.PathEscape(key) + "&" + url.QueryEscape(key) + "=1"
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Echo", "k="+key)
	resp, err := e.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := e.Requests("POST /storage/attach")
	if len(got) != 1 {
		t.Fatalf("%d requests recorded, want 1", len(got))
	}
	out := fmt.Sprintf("%s %v %v %s", got[0].Path, got[0].Query, got[0].Header, got[0].Body)
	for _, form := range []string{key, url.QueryEscape(key), url.PathEscape(key), `\u0020key`, "AUDIT key"} {
		if strings.Contains(out, form) {
			t.Errorf("Requests shows the key as %q: %s", form, out)
		}
	}
	if strings.Count(out, "[REDACTED]") != 5 {
		t.Errorf("want the key redacted 5 times (a, b, a query name, X-Echo, the body): %s", out)
	}
}

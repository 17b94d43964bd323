package wait

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/retryafter"
)

var (
	_ Client = (*gen.Client)(nil)
	_ Client = (*gen.ClientWithResponses)(nil)
	_ Client = gen.ClientInterface(nil)
)

// checkGaps fails unless each gap lies in [want, want*1.25] (positive jitter
// of at most 25 %), or equals want exactly when exact is set.
func checkGaps(t *testing.T, got []time.Duration, want ...time.Duration) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("gaps = %v; want %d gaps like %v", got, len(want), want)
	}
	for i := range want {
		if got[i] < want[i] || got[i] > want[i]+want[i]/4 {
			t.Errorf("gap %d = %v; want in [%v, %v]", i, got[i], want[i], want[i]+want[i]/4)
		}
	}
}

func TestFirstPollImmediateThenRetryAfterSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("90"), running("300"), running("45"), completed)
		start := time.Now()
		info, err := f.poller(t, -1).Wait(t.Context(), "r")
		if err != nil || info == nil || info.Status != gen.RequestStatusCOMPLETED {
			t.Fatalf("Wait = %+v, %v", info, err)
		}
		if first := f.callsFor("r")[0].at; !first.Equal(start) {
			t.Errorf("first poll after %v; want at once", first.Sub(start))
		}
		checkGaps(t, f.gaps("r"), 90*time.Second, 300*time.Second, 45*time.Second)
	})
}

func TestRetryAfterHTTPDateMeasuredAgainstServerDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The server's clock is 3 hours behind ours; its hint is 2 minutes.
		serverNow := time.Now().Add(-3 * time.Hour)
		for _, layout := range []string{http.TimeFormat, time.RFC850, time.ANSIC} {
			id := "r-" + strings.ReplaceAll(layout, " ", "")[:6]
			f := newFake().on(id, reply{status: gen.RequestStatusPENDING,
				retryAfter: serverNow.Add(2 * time.Minute).UTC().Format(layout),
				date:       serverNow.UTC().Format(http.TimeFormat)}, completed)
			if _, err := f.poller(t, 0).Wait(t.Context(), id); err != nil {
				t.Fatal(err)
			}
			// Measured against the local clock, the hint would be in the past
			// (raised to 1 s); against the Date header it is 2 minutes.
			checkGaps(t, f.gaps(id), 2*time.Minute)
			serverNow = serverNow.Add(2 * time.Minute)
		}
	})
}

func TestRetryAfterDecimalTolerated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("2.5"), running("61.75"), completed)
		if _, err := f.poller(t, 0).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		checkGaps(t, f.gaps("r"), 2500*time.Millisecond, 61750*time.Millisecond)
	})
}

func TestUnusableRetryAfterFallsBackToBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("soon"), running("-5"), running(""), running("5s"),
			running("120"), running("NaN"), completed)
		var reasons []Reason
		p := f.poller(t, 0, WithProgress(func(u Update) { reasons = append(reasons, u.Reason) }))
		if _, err := p.Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		// 2 s each time, but after the usable hint.
		checkGaps(t, f.gaps("r"), 2*time.Second, 2*time.Second, 2*time.Second, 2*time.Second, 120*time.Second, 2*time.Second)
		want := []Reason{ReasonBackoff, ReasonBackoff, ReasonBackoff, ReasonBackoff, ReasonRetryAfter, ReasonBackoff, ReasonDone}
		if fmt.Sprint(reasons) != fmt.Sprint(want) {
			t.Errorf("reasons = %v; want %v", reasons, want)
		}
	})
}

// TestNoHintEveryTwoSeconds: without a Retry-After, a running request is
// polled every 2 s (the CLI's interval) plus at most 25 % jitter, however
// long it runs: never more polls than the CLI, completion noticed at most
// 2.5 s late. Failures without one back off from the minimum interval up to
// 30 s.
func TestNoHintEveryTwoSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := time.Second
		f := newFake().on("r", seq(repeat(8, running("")), completed)...)
		if _, err := f.poller(t, 0).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		checkGaps(t, f.gaps("r"), 2*s, 2*s, 2*s, 2*s, 2*s, 2*s, 2*s, 2*s)

		f = newFake().on("r", seq(repeat(8, running("")), completed)...)
		if _, err := f.poller(t, 0.999999).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		for i, g := range f.gaps("r") {
			if g < 2*s || g > 2500*time.Millisecond {
				t.Errorf("gap %d: %v, want within [2 s, 2.5 s]", i, g)
			}
		}

		busy := reply{code: 500}
		f = newFake().on("r", busy, busy, busy, busy, running(""), busy, completed)
		if _, err := f.poller(t, 0).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		checkGaps(t, f.gaps("r"), s, 2*s, 4*s, 8*s, 2*s, s)

		f = newFake().on("r", seq(repeat(3, running("")), completed)...)
		if _, err := f.poller(t, 0, WithInterval(5*s, 0)).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		checkGaps(t, f.gaps("r"), 5*s, 5*s, 5*s)
	})
}

func TestHintBelowMinRaised(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("0"), running("0.2"), running("3"), completed)
		var reasons []Reason
		p := f.poller(t, 0, WithInterval(5*time.Second, 0), WithProgress(func(u Update) { reasons = append(reasons, u.Reason) }))
		if _, err := p.Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		checkGaps(t, f.gaps("r"), 5*time.Second, 5*time.Second, 5*time.Second)
		if reasons[0] != ReasonRaised {
			t.Errorf("reason = %q; want %q", reasons[0], ReasonRaised)
		}
	})
}

func TestHintAboveMaxClamped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("3600"), running("99999999999999"), completed)
		var reasons []Reason
		p := f.poller(t, 0.99, WithProgress(func(u Update) { reasons = append(reasons, u.Reason) }))
		if _, err := p.Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		// Exactly the maximum: jitter never pushes past it.
		if g := f.gaps("r"); len(g) != 2 || g[0] != 10*time.Minute || g[1] != 10*time.Minute {
			t.Errorf("gaps = %v; want [10m 10m]", g)
		}
		if reasons[0] != ReasonClamped {
			t.Errorf("reason = %q; want %q", reasons[0], ReasonClamped)
		}
	})
}

func TestJitterPositiveAndAtMost25Percent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", seq(repeat(200, running("40")), completed)...)
		// Real randomness: every gap must be within [40 s, 50 s].
		if _, err := f.poller(t, -1).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		gaps := f.gaps("r")
		want := make([]time.Duration, len(gaps))
		distinct := map[time.Duration]bool{}
		for i := range want {
			want[i] = 40 * time.Second
			distinct[gaps[i]] = true
		}
		checkGaps(t, gaps, want...)
		if len(distinct) < 100 {
			t.Errorf("only %d distinct gaps in 200: no jitter?", len(distinct))
		}
	})
}

func TestTransientFailuresRetriedHonouringRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    reply
	}{
		{"network error", reply{err: errNet}},
		{"408", httpErr(408, "")},
		{"425", httpErr(425, "")},
		{"429", httpErr(429, "120")},
		{"500", httpErr(500, "")},
		{"502", httpErr(502, "")},
		{"503", httpErr(503, "600")},
		{"504", httpErr(504, "")},
		{"200 bad JSON", reply{body: `{"status":`}},
		{"200 not JSON", reply{body: "<html>maintenance</html>", ctype: "text/html", retryAfter: "30"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake().on("r", tc.r, tc.r, running("7"), tc.r, completed)
				var errs []error
				p := f.poller(t, 0, WithProgress(func(u Update) { errs = append(errs, u.Err) }))
				info, err := p.Wait(t.Context(), "r")
				if err != nil || info.Status != gen.RequestStatusCOMPLETED {
					t.Fatalf("Wait = %v, %v", info, err)
				}
				want := []time.Duration{time.Second, 2 * time.Second, 7 * time.Second, time.Second}
				if ra := tc.r.retryAfter; ra != "" {
					d, _ := retryafter.Parse(http.Header{"Retry-After": {ra}}, time.Now())
					want = []time.Duration{d, d, 7 * time.Second, d}
				}
				checkGaps(t, f.gaps("r"), want...)
				if errs[0] == nil || errs[1] == nil || errs[2] != nil || errs[3] == nil {
					t.Errorf("progress errors = %v; want transient errors on polls 1, 2, 4", errs)
				}
			})
		})
	}
}

func TestTransientGivesUpAfterMaxConsecutive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("2"), httpErr(502, "3"))
		info, err := f.poller(t, 0).Wait(t.Context(), "r")
		var we *Error
		if !errors.Is(err, ErrTooManyFailures) || !errors.As(err, &we) || we.RequestID != "r" || we.Info.Status != gen.RequestStatusPROCESSING ||
			!strings.Contains(err.Error(), fmt.Sprintf("(%d in a row)", DefaultMaxFailures)) {
			t.Fatalf("err = %v; want ErrTooManyFailures after %d failures", err, DefaultMaxFailures)
		}
		var apiErr *tensorpool.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 {
			t.Errorf("err = %v; want it to wrap the 502 *tensorpool.APIError", err)
		}
		if info == nil || info.Status != gen.RequestStatusPROCESSING {
			t.Errorf("info = %+v; want the last info seen", info)
		}
		if n := len(f.callsFor("r")); n != 1+DefaultMaxFailures {
			t.Errorf("%d polls; want %d", n, 1+DefaultMaxFailures)
		}

		// A success in between resets the count; WithMaxFailures changes it.
		f = newFake().on("r", seq(repeat(2, reply{err: errNet}), running("1"), repeat(2, reply{err: errNet}), completed)...)
		if _, err := f.poller(t, 0, WithMaxFailures(3)).Wait(t.Context(), "r"); err != nil {
			t.Fatalf("interleaved failures: %v", err)
		}
		f = newFake().on("r", reply{err: errNet})
		if _, err := f.poller(t, 0, WithMaxFailures(2)).Wait(t.Context(), "r"); !errors.Is(err, errNet) || len(f.allCalls()) != 2 {
			t.Errorf("WithMaxFailures(2): err = %v after %d polls; want errNet after 2", err, len(f.allCalls()))
		}
	})
}

func TestPermanentStatusFailsAfterOneRequest(t *testing.T) {
	for _, code := range []int{400, 401, 403, 405, 409, 410, 422, 501, 505} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := httpErr(code, "1")
				if code == 422 { // the spec's body: one the generated parser does not reject
					r.body = `{"detail":[{"loc":["path","request_id"],"msg":"bad","type":"x"}]}`
				}
				f := newFake().on("r", r, completed)
				_, err := f.poller(t, 0).Wait(t.Context(), "r")
				var apiErr *tensorpool.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != code {
					t.Fatalf("err = %v; want a %d *tensorpool.APIError", err, code)
				}
				if n := len(f.allCalls()); n != 1 {
					t.Errorf("%d requests; want 1", n)
				}
			})
		})
	}
}

func TestNotFoundGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Not visible for a moment, then found.
		f := newFake().on("r", httpErr(404, ""), httpErr(404, ""), running("5"), completed)
		if _, err := f.poller(t, 0).Wait(t.Context(), "r"); err != nil {
			t.Fatalf("404 within grace: %v", err)
		}
		// Never found: polls at 0, 2, 4, 6, 8 s, then 10 s is past the 10 s grace.
		f = newFake().on("r", httpErr(404, ""))
		start := time.Now()
		_, err := f.poller(t, 0).Wait(t.Context(), "r")
		var apiErr *tensorpool.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
			t.Fatalf("err = %v; want a 404 *tensorpool.APIError", err)
		}
		if n, el := len(f.allCalls()), time.Since(start); n != 6 || el != 10*time.Second {
			t.Errorf("gave up after %d polls and %v; want 6 polls and 10s", n, el)
		}
		// Once seen, a 404 is final.
		f = newFake().on("r", running("1"), httpErr(404, ""), completed)
		if _, err := f.poller(t, 0).Wait(t.Context(), "r"); !errors.As(err, &apiErr) || len(f.allCalls()) != 2 {
			t.Errorf("404 after being seen: %v after %d polls; want failure after 2", err, len(f.allCalls()))
		}
		// No grace.
		f = newFake().on("r", httpErr(404, ""), completed)
		if _, err := f.poller(t, 0, WithNotFoundGrace(0)).Wait(t.Context(), "r"); err == nil || len(f.allCalls()) != 1 {
			t.Errorf("WithNotFoundGrace(0): %v after %d polls; want failure after 1", err, len(f.allCalls()))
		}
	})
}

func TestUnknownStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, st := range []gen.RequestStatus{"EXPLODED", "completed", ""} {
			f := newFake().on("r", running("1"), status(st), completed)
			info, err := f.poller(t, 0).Wait(t.Context(), "r")
			if !errors.Is(err, ErrUnknownStatus) || info == nil || info.Status != st || len(f.allCalls()) != 2 {
				t.Errorf("status %q: %v, %v after %d polls; want ErrUnknownStatus after 2", st, info, err, len(f.allCalls()))
			}
			var we *Error
			if !errors.As(err, &we) || we.RequestID != "r" || we.Info != info || !strings.Contains(err.Error(), fmt.Sprintf("%q", st)) {
				t.Errorf("status %q: err = %#v; want an *Error carrying the id and info", st, err)
			}
		}
		f := newFake().on("r", reply{status: "QUEUED_V2", retryAfter: "240"}, completed)
		if _, err := f.poller(t, 0, WithUnknownStatusAsRunning()).Wait(t.Context(), "r"); err != nil {
			t.Fatalf("WithUnknownStatusAsRunning: %v", err)
		}
		checkGaps(t, f.gaps("r"), 240*time.Second)
	})
}

func TestRetryingReportedAndPolled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", reply{status: gen.RequestStatusPENDING, retryAfter: "10"},
			reply{status: gen.RequestStatusRETRYING, retryAfter: "120", msg: "node lost; retrying"},
			completed)
		var ups []Update
		p := f.poller(t, 0, WithProgress(func(u Update) { ups = append(ups, u) }))
		if _, err := p.Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		u := ups[1]
		if u.Status != gen.RequestStatusRETRYING || u.Message != "node lost; retrying" || u.Attempt != 2 ||
			u.Next != 120*time.Second || u.Reason != ReasonRetryAfter || u.Err != nil || u.RequestID != "r" {
			t.Errorf("update = %+v", u)
		}
		if len(ups) != 3 || ups[2].Status != gen.RequestStatusCOMPLETED || ups[2].Next != 0 || ups[2].Reason != ReasonDone {
			t.Errorf("last update = %+v", ups[len(ups)-1])
		}
	})
}

func TestFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r-9", running("60"), reply{status: gen.RequestStatusFAILED, msg: "cluster c-1 has no capacity"})
		info, err := f.poller(t, 0).Wait(t.Context(), "r-9")
		var fe *Error
		if !errors.Is(err, ErrFailed) || !errors.As(err, &fe) || fe.Info != info || fe.RequestID != "r-9" || info.Status != gen.RequestStatusFAILED {
			t.Fatalf("Wait = %v, %v; want an *Error wrapping ErrFailed, carrying the id and info", info, err)
		}
		for _, s := range []string{`"r-9"`, "STORAGE_ATTACH", "cluster c-1 has no capacity"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q lacks %s", err, s)
			}
		}
	})
}

func TestContextCancelledWhileSleeping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("300"))
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(2*time.Minute, cancel)
		start := time.Now()
		info, err := f.poller(t, 0).Wait(ctx, "r")
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "PROCESSING") {
			t.Fatalf("err = %v; want context.Canceled naming PROCESSING", err)
		}
		if info == nil || time.Since(start) != 2*time.Minute {
			t.Errorf("info %v, returned after %v; want the last info, at the cancel", info, time.Since(start))
		}
		// A cause is kept too.
		cause := errors.New("operator pressed ^C")
		ctx, cancelCause := context.WithCancelCause(t.Context())
		time.AfterFunc(time.Minute, func() { cancelCause(cause) })
		if _, err := f.poller(t, 0).Wait(ctx, "r"); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
			t.Errorf("err = %v; want both context.Canceled and the cause", err)
		}
		// Already cancelled: no request, still an error.
		n := len(f.allCalls())
		if _, err := f.poller(t, 0).Wait(ctx, "r"); err == nil || len(f.allCalls()) != n {
			t.Errorf("cancelled ctx: err %v, %d new requests", err, len(f.allCalls())-n)
		}
	})
}

func TestContextCancelledDuringRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", reply{status: gen.RequestStatusPENDING, hold: time.Hour})
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		_, err := f.poller(t, 0).Wait(ctx, "r")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "none seen") {
			t.Fatalf("err = %v; want DeadlineExceeded naming no status", err)
		}
		if errors.Is(err, ErrTooManyFailures) {
			t.Errorf("a cancelled request counted as a transient failure: %v", err)
		}
	})
}

func TestDeadlineBeforeNextPollReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("20"), reply{status: gen.RequestStatusRETRYING, retryAfter: "600", msg: "retrying"})
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		info, err := f.poller(t, 0).Wait(ctx, "r")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "RETRYING") {
			t.Fatalf("err = %v; want DeadlineExceeded naming RETRYING", err)
		}
		// The second poll (at 20 s) asks for 10 min: past the deadline, so
		// Wait returns then rather than sleeping until the deadline.
		if el := time.Since(start); el != 20*time.Second || info.Status != gen.RequestStatusRETRYING {
			t.Errorf("returned after %v with %v; want 20s with RETRYING", el, info.Status)
		}
	})
}

func TestInvalidIDsRejectedBeforeAnyRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		p := f.poller(t, 0)
		for _, id := range []string{"", ".", "..", "../x", "a/b", "/", "..\\x", "a\\b", "x\n", "x\x00", "x\x7f"} {
			if _, err := p.Wait(t.Context(), id); !errors.Is(err, ErrInvalidRequestID) || !errors.Is(err, tensorpool.ErrInvalidRequest) {
				t.Errorf("Wait(%q) = %v; want ErrInvalidRequestID, which is a tensorpool.ErrInvalidRequest", id, err)
			}
			// the client's rule, the same: through NewClient, GetRequestInfo refuses the id too
			c, _ := tensorpool.NewClient(tensorpool.WithAPIKey("tp-test-key"), tensorpool.WithBaseURL("http://127.0.0.1:1"))
			if _, err := c.GetRequestInfo(t.Context(), id); !errors.Is(err, tensorpool.ErrInvalidRequest) {
				t.Errorf("the client sends %q, which wait refuses: %v", id, err)
			}
			if s, err := p.Step(t.Context(), id, nil); !errors.Is(err, ErrInvalidRequestID) || s == nil {
				t.Errorf("Step(%q) = %v, %v; want ErrInvalidRequestID", id, s, err)
			}
		}
		if _, err := p.WaitAll(t.Context(), "ok", "..", "a/b"); !errors.Is(err, ErrInvalidRequestID) {
			t.Errorf("WaitAll = %v; want ErrInvalidRequestID", err)
		}
		if n := len(f.allCalls()); n != 0 {
			t.Errorf("%d requests sent for invalid ids", n)
		}
	})
}

func TestOddIDsStayInOnePathSegment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ids := []string{"x?y", "x#y", "%2e%2e", "%2F", "x y", "...", ".x", "a;b", "a%2Fb", "é", "r-123e4567-e89b"}
		f := newFake()
		for _, id := range ids {
			f.on(id, completed)
		}
		if _, err := f.poller(t, 0).WaitAll(t.Context(), ids...); err != nil {
			t.Fatal(err)
		}
		for _, c := range f.allCalls() {
			if !c.routeOK || c.method != http.MethodGet {
				t.Errorf("%s %s left /request/info/{id}", c.method, c.path)
			}
		}
		for _, id := range ids {
			if n := len(f.callsFor(id)); n != 1 {
				t.Errorf("id %q reached the engine %d times; want once, intact", id, n)
			}
		}
	})
}

func TestOnlyGETsAndTransportRetriesDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", httpErr(503, "1"), reply{err: errNet}, running("2"), completed)
		if _, err := f.poller(t, 0).Wait(t.Context(), "r"); err != nil {
			t.Fatal(err)
		}
		for _, c := range f.allCalls() {
			if c.method != http.MethodGet || !c.marked {
				t.Errorf("request %s %s (marked %v); want GETs marked retryctx.Poll", c.method, c.path, c.marked)
			}
		}
	})
}

func TestClientWithResponsesAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("3"), completed)
		c, err := gen.NewClientWithResponses(testServer, gen.WithHTTPClient(&http.Client{Transport: f}))
		if err != nil {
			t.Fatal(err)
		}
		if info, err := New(c).Wait(t.Context(), "r"); err != nil || info.Status != gen.RequestStatusCOMPLETED {
			t.Fatalf("Wait = %v, %v", info, err)
		}
	})
}

func TestAPIKeyNeverInErrorsOrProgress(t *testing.T) {
	const key = "tp-SECRET-KEY-0123456789"
	for _, r := range []reply{httpErr(401, ""), httpErr(403, ""), httpErr(503, ""), {err: errNet},
		{status: gen.RequestStatusFAILED, msg: "no"}, {status: "WEIRD"}, {body: "{"}} {
		synctest.Test(t, func(t *testing.T) {
			f := newFake().on("r", r)
			c, err := gen.NewClient("https://user:"+key+"@engine.test/",
				gen.WithHTTPClient(&http.Client{Transport: f}),
				gen.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
					req.Header.Set("Authorization", "Bearer "+key)
					return nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			var seen strings.Builder
			p := New(c, WithProgress(func(u Update) { fmt.Fprintf(&seen, "%+v %v\n", u, u.Err) }))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a 503 ends only with ctx
			defer cancel()
			_, err = p.Wait(ctx, "r")
			fmt.Fprintf(&seen, "%v %+v", err, err)
			if err == nil || strings.Contains(seen.String(), key) {
				t.Errorf("the API key leaked (or no error): %s", seen.String())
			}
		})
	}
}

func TestWaitAllEachOnItsOwnSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().
			on("fast", seq(repeat(4, running("2")), completed)...).
			on("slow", running("240"), running("240"), completed)
		start := time.Now()
		infos, err := f.poller(t, 0).WaitAll(t.Context(), "slow", "fast", "slow")
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) != 3 || infos[0].RequestID != "slow" || infos[1].RequestID != "fast" || infos[2] != infos[0] {
			t.Errorf("results not in input order: %+v", infos)
		}
		checkGaps(t, f.gaps("fast"), 2*time.Second, 2*time.Second, 2*time.Second, 2*time.Second)
		checkGaps(t, f.gaps("slow"), 240*time.Second, 240*time.Second) // polled once per round despite the duplicate
		if el := time.Since(start); el != 480*time.Second {
			t.Errorf("took %v; want 8m (the slowest)", el)
		}
		if infos, err := f.poller(t, 0).WaitAll(t.Context()); err != nil || len(infos) != 0 {
			t.Errorf("WaitAll() = %v, %v", infos, err)
		}
	})
}

func TestWaitAllCollectsAllByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().
			on("a", running("60"), completed).
			on("b", reply{status: gen.RequestStatusFAILED, msg: "boom"}).
			on("c", running("5"), httpErr(403, ""))
		infos, err := f.poller(t, 0).WaitAll(t.Context(), "a", "b", "c")
		var fe *Error
		var apiErr *tensorpool.APIError
		if !errors.As(err, &fe) || fe.RequestID != "b" || !errors.Is(fe, ErrFailed) || !errors.As(err, &apiErr) || apiErr.StatusCode != 403 {
			t.Fatalf("err = %v; want b's ErrFailed joined with c's 403", err)
		}
		if infos[0].Status != gen.RequestStatusCOMPLETED || infos[1].Status != gen.RequestStatusFAILED || infos[2].Status != gen.RequestStatusPROCESSING {
			t.Errorf("infos = %v %v %v", infos[0].Status, infos[1].Status, infos[2].Status)
		}
		if !strings.HasPrefix(err.Error(), `wait: request "b"`) {
			t.Errorf("errors not in input order: %v", err)
		}
	})
}

func TestWaitAllFailFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// At 30 s "bad" fails: "queued" waits for its next poll (at 600 s)
		// and "held" has a poll in flight (until 1 h): both are stopped then.
		f := newFake().
			on("queued", running("600")).
			on("held", running("20"), reply{status: gen.RequestStatusPENDING, hold: time.Hour}).
			on("bad", running("30"), reply{status: gen.RequestStatusFAILED, msg: "boom"}).
			on("ok", completed)
		var last = map[string]Update{}
		p := f.poller(t, 0, WithFailFast(), WithProgress(func(u Update) { last[u.RequestID] = u }))
		infos, err := p.WaitAll(t.Context(), "queued", "held", "bad", "ok")
		if el := time.Since(f.callsFor("bad")[0].at); el != 30*time.Second {
			t.Errorf("returned %v after bad's first poll; want 30s: the held poll cancelled at once", el)
		}
		if n := len(f.callsFor("held")); n != 2 {
			t.Errorf("held polled %d times; want 2", n)
		}
		errs := err.(interface{ Unwrap() []error }).Unwrap()
		if len(errs) != 3 || errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v; want 3 errors and no context.Canceled", err)
		}
		for i, want := range []struct {
			id, status string
		}{{"queued", "PROCESSING"}, {"held", "PROCESSING"}} {
			e := errs[i]
			if !errors.Is(e, ErrStopped) || !strings.Contains(e.Error(), `"`+want.id+`"`) ||
				!strings.Contains(e.Error(), "last status "+want.status) || strings.Contains(e.Error(), "%!") {
				t.Errorf("error %d = %v; want ErrStopped naming %q and %s", i, e, want.id, want.status)
			}
			if u := last[want.id]; u.Reason != ReasonStopped || u.Next != 0 || !errors.Is(u.Err, ErrStopped) {
				t.Errorf("last update of %s = %+v; want ReasonStopped with ErrStopped", want.id, u)
			}
		}
		var fe *Error
		if !errors.As(errs[2], &fe) || fe.RequestID != "bad" || !errors.Is(errs[2], ErrFailed) || errors.Is(errs[2], ErrStopped) {
			t.Errorf("error 2 = %v; want bad's ErrFailed", errs[2])
		}
		if infos[0].Status != gen.RequestStatusPROCESSING || infos[1].Status != gen.RequestStatusPROCESSING ||
			infos[2].Status != gen.RequestStatusFAILED || infos[3].Status != gen.RequestStatusCOMPLETED {
			t.Errorf("infos = %v %v %v %v", infos[0].Status, infos[1].Status, infos[2].Status, infos[3].Status)
		}
		// The caller's own cancellation is reported as such, not as ErrStopped.
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		f.on("long2", running("600"))
		if _, err := f.poller(t, 0, WithFailFast()).WaitAll(ctx, "queued", "long2"); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrStopped) {
			t.Errorf("err = %v; want DeadlineExceeded, not ErrStopped", err)
		}
	})
}

func TestConcurrencyBoundAcrossCalls(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want int
	}{{nil, DefaultConcurrency}, {[]Option{WithConcurrency(3)}, 3}} {
		synctest.Test(t, func(t *testing.T) {
			// 20 Waits, a WaitAll and Steps at once, every poll held 10 s.
			f := newFake()
			held := reply{status: gen.RequestStatusCOMPLETED, hold: 10 * time.Second}
			p := f.poller(t, 0, tc.opts...)
			var wg sync.WaitGroup
			for i := range 20 {
				id := fmt.Sprint("w", i)
				f.on(id, held)
				wg.Go(func() {
					if _, err := p.Wait(t.Context(), id); err != nil {
						t.Error(err)
					}
				})
			}
			f.on("a1", held).on("a2", held).on("s1", held)
			wg.Go(func() {
				if _, err := p.WaitAll(t.Context(), "a1", "a2"); err != nil {
					t.Error(err)
				}
			})
			wg.Go(func() {
				if _, err := p.Step(t.Context(), "s1", nil); err != nil {
					t.Error(err)
				}
			})
			wg.Wait()
			if f.maxIn != tc.want || len(f.allCalls()) != 23 {
				t.Errorf("max in flight = %d over %d polls; want %d over 23", f.maxIn, len(f.allCalls()), tc.want)
			}
		})
	}
}

func TestConcurrencyBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			opts []Option
			want int
		}{{nil, DefaultConcurrency}, {[]Option{WithConcurrency(3)}, 3}} {
			f := newFake()
			ids := make([]string, 20)
			for i := range ids {
				ids[i] = fmt.Sprint("r", i)
				f.on(ids[i], reply{status: gen.RequestStatusPENDING, retryAfter: "5", hold: 2 * time.Second}, reply{status: gen.RequestStatusCOMPLETED, hold: time.Second})
			}
			if _, err := f.poller(t, 0, tc.opts...).WaitAll(t.Context(), ids...); err != nil {
				t.Fatal(err)
			}
			if f.maxIn != tc.want {
				t.Errorf("max in flight = %d; want %d", f.maxIn, tc.want)
			}
		}
	})
}

func TestWaitAllGoroutinesBoundedByConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		ids := make([]string, 2000)
		for i := range ids {
			ids[i] = fmt.Sprint("r", i)
			f.on(ids[i], running("5"), running("5"), completed)
		}
		before := runtime.NumGoroutine()
		peak := 0
		p := f.poller(t, 0, WithProgress(func(Update) { peak = max(peak, runtime.NumGoroutine()) }))
		start := time.Now()
		if _, err := p.WaitAll(t.Context(), ids...); err != nil {
			t.Fatal(err)
		}
		if peak-before > DefaultConcurrency {
			t.Errorf("%d goroutines more during WaitAll over %d ids; want at most %d", peak-before, len(ids), DefaultConcurrency)
		}
		if n := len(f.allCalls()); n != 3*len(ids) {
			t.Errorf("%d polls; want %d", n, 3*len(ids))
		}
		// 6,000 polls: no 429, so no pace; the fake answers at once, so 8 in flight bound nothing.
		if el := time.Since(start); el != 10*time.Second {
			t.Errorf("took %v; want 10 s: every id on its own 5 s schedule, the pace slowing none", el)
		}
	})
}

func TestWaitAllEarliestDueFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// One poll in flight at a time: whenever several ids are due, the
		// one due first goes first, and none waits for another's schedule.
		f := newFake().
			on("a", running("10"), completed).
			on("b", seq(repeat(4, running("3")), completed)...)
		if _, err := f.poller(t, 0, WithConcurrency(1)).WaitAll(t.Context(), "a", "b"); err != nil {
			t.Fatal(err)
		}
		var got []string
		start := f.allCalls()[0].at
		for _, c := range f.allCalls() {
			got = append(got, fmt.Sprintf("%s@%v", c.id, c.at.Sub(start)))
		}
		// No pace before a 429 or 503: b's first poll follows a's answer.
		want := "[a@0s b@0s b@3s b@6s b@9s a@10s b@12s]"
		if fmt.Sprint(got) != want {
			t.Errorf("polls %v; want %s", got, want)
		}
	})
}

func TestWaitAllContextEndsQueuedWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().
			on("a", running("120")).
			on("b", status(gen.RequestStatusPENDING), reply{status: gen.RequestStatusPENDING, retryAfter: "120"})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Second, cancel)
		start := time.Now()
		infos, err := f.poller(t, 0).WaitAll(ctx, "a", "b")
		if el := time.Since(start); el != 50*time.Second {
			t.Errorf("returned after %v; want 50s, when ctx was cancelled", el)
		}
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), `"b"`) ||
			!strings.Contains(err.Error(), "last status PROCESSING") || !strings.Contains(err.Error(), "last status PENDING") {
			t.Errorf("err = %v; want both ids cancelled, each with its last status", err)
		}
		if infos[0] == nil || infos[1] == nil || infos[1].Status != gen.RequestStatusPENDING {
			t.Errorf("infos = %v; want the last info of each", infos)
		}
	})
}

func TestWaitAllDeadlinePerID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// b's next poll falls after the deadline: b ends at once, a goes on.
		f := newFake().
			on("a", running("30"), completed).
			on("b", running("600"))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		infos, err := f.poller(t, 0).WaitAll(ctx, "a", "b")
		if el := time.Since(start); el != 30*time.Second {
			t.Errorf("returned after %v; want 30s (a done, b given up at once)", el)
		}
		if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), `"a"`) || len(f.callsFor("b")) != 1 {
			t.Errorf("err = %v, b polled %d times; want only b's deadline, after one poll", err, len(f.callsFor("b")))
		}
		if infos[0].Status != gen.RequestStatusCOMPLETED {
			t.Errorf("a = %v", infos[0].Status)
		}
	})
}

func TestStepForControllers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("45"), httpErr(502, "90"), httpErr(502, ""), completed)
		p := f.poller(t, 0, WithMaxFailures(3))
		s, err := p.Step(t.Context(), "r", nil)
		if err != nil || s.Done || s.Next != 45*time.Second || s.Reason != ReasonRetryAfter || s.Status != gen.RequestStatusPROCESSING {
			t.Fatalf("step 1 = %+v, %v", s, err)
		}
		time.Sleep(s.Next) // the controller requeues; Step itself never sleeps
		s, err = p.Step(t.Context(), "r", s)
		if err != nil || s.Failures != 1 || s.Next != 90*time.Second || s.Err == nil || s.Info == nil {
			t.Fatalf("step 2 = %+v, %v", s, err)
		}
		s, err = p.Step(t.Context(), "r", s)
		if err != nil || s.Failures != 2 || s.Reason != ReasonBackoff || s.Attempt != 3 {
			t.Fatalf("step 3 = %+v, %v", s, err)
		}
		s, err = p.Step(t.Context(), "r", s)
		if err != nil || !s.Done || s.Failures != 0 || s.Next != 0 || s.Status != gen.RequestStatusCOMPLETED {
			t.Fatalf("step 4 = %+v, %v", s, err)
		}
		// No time passes inside Step beyond the request itself and the pace's next slot.
		start := time.Now()
		f.on("q", running("600"))
		if _, err := p.Step(t.Context(), "q", nil); err != nil || time.Since(start) > 0 {
			t.Errorf("Step blocked for %v (%v)", time.Since(start), err)
		}
	})
}

func TestProgressCallsSerialized(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		ids := make([]string, 16)
		for i := range ids {
			ids[i] = fmt.Sprint("r", i)
			f.on(ids[i], running("1"), running("1"), completed)
		}
		var mu sync.Mutex
		inside, maxInside, n := 0, 0, 0
		p := f.poller(t, -1, WithProgress(func(Update) {
			mu.Lock()
			inside++
			maxInside = max(maxInside, inside)
			n++
			mu.Unlock()
			runtime.Gosched() // let others try to enter (a sleep would stall the bubble: a mutex wait is not durable)
			mu.Lock()
			inside--
			mu.Unlock()
		}))
		if _, err := p.WaitAll(t.Context(), ids...); err != nil {
			t.Fatal(err)
		}
		if maxInside != 1 || n != 48 {
			t.Errorf("%d concurrent progress calls (of %d); want 1 at a time, 48 in all", maxInside, n)
		}
	})
}

func TestScheduleSaturates(t *testing.T) {
	huge := time.Duration(math.MaxInt64)
	p := New(nil, WithInterval(huge, huge))
	p.rand = func() float64 { return 0.999999 }
	hint := 9223372035 * time.Second
	s := &Step{}
	p.schedule(s, answer{hint: hint, hasHint: true})
	if s.Next < hint {
		t.Errorf("Retry-After %v gave a delay of %v", hint, s.Next)
	}
	// Backoff never shrinks, whatever the bounds.
	for _, p := range []*Poller{New(nil, WithInterval(huge, huge)), New(nil, WithInterval(0, huge)), New(nil)} {
		p.rand = func() float64 { return 0.999999 }
		s, prev := &Step{}, time.Duration(0)
		for i := range 100 {
			s.Failures = i + 1
			p.schedule(s, answer{})
			if s.Next < prev || s.Next < p.cfg.minInterval || s.Next > p.cfg.maxInterval {
				t.Fatalf("backoff step %d: %v after %v", i, s.Next, prev)
			}
			prev = s.Next
		}
	}
	// Through Wait: one poll, then the deadline; never a tight loop.
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("9223372035"))
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		polls := 0
		p := f.poller(t, 0.999999, WithInterval(0, huge), WithProgress(func(Update) {
			if polls++; polls == 3 {
				cancel()
			}
		}))
		if _, err := p.Wait(ctx, "r"); !errors.Is(err, context.DeadlineExceeded) || len(f.allCalls()) != 1 {
			t.Errorf("err = %v after %d polls; want DeadlineExceeded after 1", err, len(f.allCalls()))
		}
	})
}

func TestAnswerKeptWhenContextEndsWithIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each answer arrives at 10 s, after ctx ended at 5 s.
		f := newFake().
			on("done", reply{status: gen.RequestStatusCOMPLETED, hold: 10 * time.Second, deaf: true}).
			on("failed", reply{status: gen.RequestStatusFAILED, hold: 10 * time.Second, deaf: true}).
			on("running", reply{status: gen.RequestStatusPENDING, hold: 10 * time.Second, deaf: true}).
			on("broken", reply{code: 503, hold: 10 * time.Second, deaf: true}).
			on("late503", httpErr(502, "1"), reply{code: 503, hold: 10 * time.Second, deaf: true}).
			on("forbidden", reply{code: 403, hold: 10 * time.Second, deaf: true})
		wait := func(id string) (*gen.RequestInfoResponse, error) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			return f.poller(t, 0).Wait(ctx, id)
		}
		if info, err := wait("done"); err != nil || info == nil || info.Status != gen.RequestStatusCOMPLETED {
			t.Errorf("done: %v, %v; want COMPLETED", info, err)
		}
		if info, err := wait("failed"); !errors.Is(err, ErrFailed) || info == nil {
			t.Errorf("failed: %v, %v; want ErrFailed", info, err)
		}
		if info, err := wait("running"); !errors.Is(err, context.DeadlineExceeded) || info == nil || !strings.Contains(err.Error(), "PENDING") {
			t.Errorf("running: %v, %v; want DeadlineExceeded naming PENDING, with the info", info, err)
		}
		if _, err := wait("broken"); !errors.Is(err, context.DeadlineExceeded) || !tensorpool.IsStatus(err, 503) {
			t.Errorf("broken: %v; want DeadlineExceeded naming the 503", err)
		}
		if _, err := wait("late503"); !errors.Is(err, context.DeadlineExceeded) || !tensorpool.IsStatus(err, 503) || tensorpool.IsStatus(err, 502) {
			t.Errorf("late503: %v; want DeadlineExceeded naming the late 503, not the 502 before it", err)
		}
		if _, err := wait("forbidden"); !tensorpool.IsStatus(err, 403) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("forbidden: %v; want the 403 that arrived as ctx ended", err)
		}
	})
}

func TestDeadlineTrimsDelayInsteadOfGivingUp(t *testing.T) {
	type run func(p *Poller, ctx context.Context) error
	for name, r := range map[string]run{
		"Wait":    func(p *Poller, ctx context.Context) error { _, err := p.Wait(ctx, "r"); return err },
		"WaitAll": func(p *Poller, ctx context.Context) error { _, err := p.WaitAll(ctx, "r"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// No hint, 20 s: every 2 s up to 18 s; 2 s more would reach the
				// deadline, so the delay is trimmed to 1 s (a minimum interval
				// left before the deadline); then not even 1 s fits.
				f := newFake().on("r", running(""))
				var ups []Update
				p := f.poller(t, 0, WithProgress(func(u Update) { ups = append(ups, u) }))
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				start := time.Now()
				err := r(p, ctx)
				if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 19*time.Second {
					t.Fatalf("err = %v after %v; want DeadlineExceeded after 19s", err, time.Since(start))
				}
				s := 2 * time.Second
				checkGaps(t, f.gaps("r"), s, s, s, s, s, s, s, s, s, time.Second)
				if u := ups[9]; u.Reason != ReasonTrimmed || u.Next != time.Second {
					t.Errorf("update 10 = %+v; want 1s, trimmed", u)
				}
				if u := ups[len(ups)-1]; len(ups) != 11 || u.Reason != ReasonContext || u.Next != 0 || !errors.Is(u.Err, context.DeadlineExceeded) {
					t.Errorf("%d updates, last %+v; want 11, the last ending on the deadline", len(ups), u)
				}

				// A server hint of 30 s (37 s with jitter) and 35 s left: the
				// poll comes at 30 s, not earlier, and not after the deadline.
				f = newFake().on("h", running("30"))
				ctx, cancel = context.WithTimeout(t.Context(), 35*time.Second)
				defer cancel()
				start = time.Now()
				_, err = f.poller(t, 0.99).Wait(ctx, "h")
				if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 30*time.Second {
					t.Errorf("err = %v after %v; want DeadlineExceeded after 30s", err, time.Since(start))
				}
				if g := f.gaps("h"); len(g) != 1 || g[0] != 30*time.Second {
					t.Errorf("gaps = %v; want [30s]", g)
				}
			})
		})
	}
}

func TestFinalUpdateWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake().on("r", running("600")).on("q", running("600"))
		var ups []Update
		p := f.poller(t, 0, WithProgress(func(u Update) { ups = append(ups, u) }))
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Minute, cancel)
		if _, err := p.Wait(ctx, "r"); !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if u := ups[len(ups)-1]; len(ups) != 2 || u.Reason != ReasonContext || u.Next != 0 || u.Attempt != 1 ||
			u.Status != gen.RequestStatusPROCESSING || !errors.Is(u.Err, context.Canceled) {
			t.Errorf("%d updates, last %+v; want 2, the last saying ctx ended the wait", len(ups), u)
		}
		// WaitAll: one final update per id; Step: one for its call.
		ups = nil
		ctx, cancel = context.WithCancel(t.Context())
		time.AfterFunc(time.Minute, cancel)
		if _, err := p.WaitAll(ctx, "r", "q"); !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if _, err := p.Step(ctx, "r", nil); !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		ended := map[string]int{}
		for _, u := range ups {
			if u.Reason == ReasonContext && u.Next == 0 && errors.Is(u.Err, context.Canceled) {
				ended[u.RequestID]++
			}
		}
		if len(ups) != 5 || ended["r"] != 2 || ended["q"] != 1 {
			t.Errorf("updates %+v; want a final one for r and q, and one for the Step", ups)
		}
	})
}

// TestBadOptionValue: a value out of an option's range makes New panic,
// naming the option; none is ignored (CONTRIBUTING, "Options"). 0 is in
// range where an option's doc gives it a meaning.
func TestBadOptionValue(t *testing.T) {
	for want, o := range map[string]Option{
		"WithInterval(-1s, 0s): lo":    WithInterval(-time.Second, 0),
		"WithInterval(0s, 500ms): hi":  WithInterval(0, 500*time.Millisecond), // below the default lo
		"WithInterval(5s, 2s): hi":     WithInterval(5*time.Second, 2*time.Second),
		"WithMaxFailures(n) is 0":      WithMaxFailures(0),
		"WithNotFoundGrace(d) is -1ns": WithNotFoundGrace(-1),
		"WithConcurrency(n) is -2":     WithConcurrency(-2),
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("New with %s: panic %v", want, err)
				}
			}()
			New(nil, o)
		}()
	}
	for _, o := range []Option{WithInterval(0, 0), WithInterval(time.Hour, 0), WithNotFoundGrace(0), nil} {
		New(nil, o) // in range: no panic
	}
}

package wait_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
	"github.com/tensorpool/tensorpool-go/wait"
)

// TestRecoversAfterRefusals (issue 44): once the server stops refusing, the
// Poller is back at its unthrottled speed within a few seconds. A
// newcomer's test, against the in-memory engine's defaults (PENDING 1 s,
// PROCESSING 2 s, Retry-After: 2): 200 ids take about 5.0 s; when the first
// 20 answers are 429 with Retry-After: 1, which hold the Poller 20 s one
// after the other, 24.3 s (the README's and the package doc's figures; the
// issue's goal is at most 30 s).
func TestRecoversAfterRefusals(t *testing.T) {
	for _, tc := range []struct {
		refusals int
		most     time.Duration
	}{{0, 5500 * time.Millisecond}, {20, 25 * time.Second}} {
		t.Run(fmt.Sprint(tc.refusals, " refusals"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := tensorpooltest.NewInProcessServer(t)
				ids := make([]string, 200)
				for i := range ids {
					sid := fmt.Sprint("s-", i)
					srv.Engine.AddStorage(tensorpooltest.Storage{ID: sid})
					r, err := srv.Client.StorageDestroyWithResponse(t.Context(), sid)
					if err != nil {
						t.Fatal(err)
					}
					ids[i] = *r.JSON202.RequestID
				}
				srv.Engine.InjectFault("GetRequestInfo", tc.refusals, tensorpooltest.Fault{Status: 429, RetryAfter: "1"})
				start := time.Now()
				if _, err := wait.New(srv.Client).WaitAll(t.Context(), ids...); err != nil {
					t.Fatal(err)
				}
				if el := time.Since(start); el > tc.most {
					t.Errorf("200 ids, the first %d answers 429 with Retry-After: 1: all done after %v; want at most %v", tc.refusals, el, tc.most)
				} else {
					t.Logf("all done after %v", el)
				}
			})
		})
	}
}

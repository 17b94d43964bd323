package tensorpool

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/tensorpool/tensorpool-go/gen/operations"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// doer sends the requests of NewClient's client, above http.Client. For
// each call of an operation, it checks the JSON body (validate.go), bounds
// the whole call by the timeout, sends each attempt with the key
// (transport.go) and reads its answer in full (check.go), retries
// (retry.go), then checks the last answer (check.go).
type doer struct {
	hc       *http.Client // its CheckRedirect is a redirectPolicy
	origin   origin       // where the key goes, and how
	redact   redactor
	timeout  time.Duration
	retry    RetryPolicy
	maxBody  int64
	log      logger
	validate bool
	doc      *document // what validation checks: constraintsOfSpec()
}

// do sends req, a call of op. The response holds its whole body, a *body,
// and points back to req.
func (d *doer) do(op *operations.Operation, req *http.Request) (*http.Response, error) {
	if d.validate {
		if err := d.doc.checkBody(op, req); err != nil {
			return nil, d.redact.err(err)
		}
	}
	ctx := req.Context()
	if dl, ok := ctx.Deadline(); d.timeout > 0 && (!ok || time.Until(dl) > d.timeout) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	maxRetries, poll := d.retry.MaxRetries, retryctx.IsPoll(ctx)
	if poll || req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		maxRetries = 0 // package wait retries its polls itself; a streamed body cannot be sent twice
	}
	for attempt := 1; ; attempt++ {
		resp, err := d.origin.send(ctx, d.hc, req, attempt, d.log)
		var b *body
		if err == nil {
			b, err = read(resp, d.maxBody, d.redact)
		}
		again, werr := d.retry.again(ctx, d.log, req, resp, err, attempt, maxRetries)
		switch {
		case werr != nil:
			return nil, d.redact.err(werr)
		case again:
			continue
		case err == nil:
			return finish(op, req, resp, b, d.redact, poll)
		case attempt > 1:
			return nil, d.redact.err(fmt.Errorf("tensorpool: giving up after %d attempts: %w", attempt, err))
		}
		return nil, d.redact.err(err)
	}
}

package tensorpool

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/operations"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// doer sends the requests of NewClient's client, above http.Client: it is
// the generated client's HttpRequestDoer. For each call of an operation
// (from the request's context: operation.go), it checks the JSON body
// (validate.go), bounds the whole call by the timeout, sends each attempt
// with the key (origin.go) and reads its answer in full (check.go), logs it
// and retries it (retry.go, log.go), then checks the last answer (check.go).
type doer struct {
	hc       *http.Client // its CheckRedirect is a redirectPolicy
	origin   origin       // where the key goes, and how
	redact   redactor
	timeout  time.Duration
	retry    RetryPolicy
	maxBody  int64
	log      logger
	validate bool
}

// Do implements gen.HttpRequestDoer: it sends req, a call of the operation
// its context carries, if any.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	return d.do(operations.From(req.Context()), req)
}

// do sends req, a call of op (nil: an operation the spec does not have). The response holds its whole body, a *body,
// and points back to req.
func (d *doer) do(op *operations.Operation, req *http.Request) (*http.Response, error) {
	if d.validate {
		if err := checkBody(op, req); err != nil {
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
		start := time.Now()
		resp, err := d.origin.send(ctx, d.hc, req, attempt)
		var b *body
		if err == nil {
			b, err = read(resp, d.maxBody, d.redact)
		}
		again, werr := d.retry.again(ctx, d.log, req, resp, err, attempt, maxRetries, start)
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

package wait

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/pathparam"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

// The causes an *Error wraps, besides ctx's errors, a *tensorpool.APIError
// and the Client's own errors. They are constants: no caller can change
// what errors.Is matches.
const (
	ErrFailed          tensorpool.Sentinel = "request failed"                          // the request reached FAILED; Error.Info says why
	ErrUnknownStatus   tensorpool.Sentinel = "unknown request status"                  // a status outside the spec's enum, or none (see WithUnknownStatusAsRunning)
	ErrTooManyFailures tensorpool.Sentinel = "too many consecutive transient failures" // WithMaxFailures in a row; the error wraps the last too
	ErrStopped         tensorpool.Sentinel = "stopped after another request failed"    // WaitAll under WithFailFast (context.Canceled: the caller's ctx ended)
	ErrBrokenClient    tensorpool.Sentinel = "broken Client"                           // the Client returned a nil response, or a nil Body, and a nil error
	ErrWrongRequest    tensorpool.Sentinel = "the answer is for another request"       // its request_id is not the id asked for (transient)
	// ErrInvalidRequestID: an id that could address another route ("", ".", "..", or one
	// containing '/', '\' or a control character: the rule of every path parameter of
	// tensorpool.NewClient's client); nothing was sent. It matches tensorpool.ErrInvalidRequest too.
	ErrInvalidRequestID invalidRequestID = "invalid request id"
)

// Error is how the wait for one request id ended, when not COMPLETED: every
// error of Wait and Step is one; WaitAll's joins one per failed id, in input
// order. Branch with errors.Is (ErrFailed, context.DeadlineExceeded, ...) or
// errors.As (*tensorpool.APIError).
type Error struct {
	RequestID string                   // the id waited for
	Info      *gen.RequestInfoResponse // the last request info seen, as the server sent it; nil if none
	Err       error                    // why the wait ended

	polls  int                 // polls made
	last   error               // the last transient failure, when another cause ended the wait
	redact func(string) string // the client's redaction of the key, if it has one
}

// Error names the id and the cause; for FAILED, the request type and the
// server's external_message; otherwise the last status seen. Server text is
// cleaned for printing (control characters escaped, at most 1 KiB).
func (e *Error) Error() string {
	if e == nil {
		return "wait: <nil>"
	}
	id := servertext.Clean(e.RequestID)
	switch {
	case e.Info != nil && e.Err == ErrFailed:
		return fmt.Sprintf("wait: request %q (%s) failed", id, clean(string(e.Info.RequestType), e.redact)) + message(": ", e.Info, e.redact)
	case e.Info != nil && e.Err == ErrUnknownStatus:
		return fmt.Sprintf("wait: request %q: %v %q", id, ErrUnknownStatus, clean(string(e.Info.Status), e.redact)) + message(": ", e.Info, e.redact)
	case e.polls == 0:
		return fmt.Sprintf("wait: request %q: %v", id, e.Err)
	}
	status := "none seen"
	if e.Info != nil {
		status = clean(string(e.Info.Status), e.redact)
	}
	msg := fmt.Sprintf("wait: request %q: %v (last status %s after %d polls", id, e.Err, status, e.polls)
	if e.last != nil {
		msg += fmt.Sprintf("; last transient error: %v", e.last)
	}
	return msg + ")"
}

// Unwrap returns the cause and, when ctx or WithFailFast ended the wait
// after a transient failure or a 429/503, that last answer too.
func (e *Error) Unwrap() []error {
	if e == nil {
		return nil
	}
	if e.last != nil {
		return []error{e.Err, e.last}
	}
	return []error{e.Err}
}

// clean makes server text safe to print: the key redacted (by redact, the
// client's rule, if any), control characters escaped, at most 1 KiB.
func clean(s string, redact func(string) string) string {
	if redact != nil {
		s = redact(s)
	}
	return servertext.Clean(s)
}

// message is info's external_message, cleaned, after sep; "" if none.
func message(sep string, info *gen.RequestInfoResponse, redact func(string) string) string {
	if info == nil || info.ExternalMessage == nil || *info.ExternalMessage == "" {
		return ""
	}
	return sep + clean(*info.ExternalMessage, redact)
}

// invalidRequestID is ErrInvalidRequestID: errors.Is matches
// tensorpool.ErrInvalidRequest too, and its text says it once.
type invalidRequestID string

func (e invalidRequestID) Error() string      { return string(e) }
func (invalidRequestID) Is(target error) bool { return target == tensorpool.ErrInvalidRequest }

// checkID refuses an id the client's rule for path parameters refuses,
// whatever client polls: a dot segment or a %2F could reach another route.
func checkID(id string) error {
	if why := pathparam.Invalid(id); why != "" {
		return &Error{RequestID: id, Err: fmt.Errorf("%w: it %s", ErrInvalidRequestID, why)}
	}
	return nil
}

// end ends s with an *Error wrapping err or else ctx's error (ReasonContext)
// or, while ctx lives, ErrStopped (ReasonStopped), and ctx's cause.
func (p *Poller) end(ctx context.Context, s *Step, err error) error {
	s.Next, s.Reason = 0, ReasonContext
	if err = cmp.Or(err, ctx.Err()); err == nil {
		err, s.Reason = ErrStopped, ReasonStopped
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	e := p.fail(s, err)
	e.last = s.Err
	return e
}

// fail returns the *Error that ends s with err as its cause.
func (p *Poller) fail(s *Step, err error) *Error {
	return &Error{RequestID: s.RequestID, Info: s.Info, Err: err, polls: s.Attempt, redact: p.redactor()}
}

package wait

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

var (
	// ErrFailed matches (errors.Is) every *FailedError.
	ErrFailed = errors.New("wait: request failed")
	// ErrUnknownStatus matches (errors.Is) every *UnknownStatusError.
	ErrUnknownStatus = errors.New("wait: unknown request status")
	// ErrStopped is wrapped by WaitAll's error for an id it stopped waiting
	// for because another failed under WithFailFast; context.Canceled would
	// mean the caller's ctx ended.
	ErrStopped = errors.New("stopped after another request failed")
	// ErrBrokenClient is wrapped by the error for a Client that returned a
	// nil *http.Response, or a nil Body, with a nil error; it ends the wait.
	ErrBrokenClient = errors.New("broken Client")
	// ErrInvalidRequestID is wrapped by the error, returned before any
	// request, for an id that could address another route: "", ".", "..",
	// or one containing '/', '\\' or a control character.
	ErrInvalidRequestID = errors.New("wait: invalid request id")
	// ErrWrongRequest is wrapped by the (transient) error for an answer whose
	// request_id is not the id asked for: a broken server or proxy.
	ErrWrongRequest = errors.New("wait: the answer is for another request")
)

// FailedError reports a request whose final status is FAILED. It matches
// ErrFailed.
type FailedError struct {
	Info *gen.RequestInfoResponse // the final request info, as the server sent it
}

// Error names the request id, its type and the server's external_message,
// each cleaned for printing (control characters escaped, at most 1 KiB).
func (e *FailedError) Error() string {
	if e == nil || e.Info == nil {
		return ErrFailed.Error()
	}
	return fmt.Sprintf("wait: request %q (%s) failed", servertext.Clean(e.Info.RequestID),
		servertext.Clean(string(e.Info.RequestType))) + message(": ", e.Info)
}

// Is reports whether target is ErrFailed.
func (e *FailedError) Is(target error) bool { return target == ErrFailed }

// TransientError reports that polling gave up after Failures transient
// failures in a row. It unwraps to the last one: a *tensorpool.APIError
// when that was an HTTP status.
type TransientError struct {
	RequestID  string            // the id being polled
	Failures   int               // transient failures in a row, the last included (WithMaxFailures)
	LastStatus gen.RequestStatus // the last status seen before them, or ""
	Err        error             // the last failure
}

// Error names the id, the number of failures, the last status and the last
// failure.
func (e *TransientError) Error() string {
	if e == nil {
		return "wait: giving up after consecutive transient failures"
	}
	return fmt.Sprintf("wait: request %q: giving up after %d consecutive transient failures (last status %s): %v",
		e.RequestID, e.Failures, statusText(e.LastStatus), e.Err)
}

// Unwrap returns the last failure.
func (e *TransientError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// UnknownStatusError reports a status outside the spec's enum, a missing
// one included (see WithUnknownStatusAsRunning). It matches
// ErrUnknownStatus.
type UnknownStatusError struct {
	RequestID string                   // the id polled
	Info      *gen.RequestInfoResponse // the request info, as the server sent it
}

// Error names the status, the request id and the server's external_message,
// cleaned for printing.
func (e *UnknownStatusError) Error() string {
	if e == nil || e.Info == nil {
		return ErrUnknownStatus.Error()
	}
	return fmt.Sprintf("%v %q for request %q", ErrUnknownStatus, servertext.Clean(string(e.Info.Status)), e.RequestID) +
		message(": ", e.Info)
}

// Is reports whether target is ErrUnknownStatus.
func (e *UnknownStatusError) Is(target error) bool { return target == ErrUnknownStatus }

// message is the server's external_message, cleaned for printing, after
// sep; "" if there is none.
func message(sep string, info *gen.RequestInfoResponse) string {
	if info == nil || info.ExternalMessage == nil || *info.ExternalMessage == "" {
		return ""
	}
	return sep + servertext.Clean(*info.ExternalMessage)
}

func statusText(s gen.RequestStatus) string {
	if s == "" {
		return "none seen"
	}
	return servertext.Clean(string(s))
}

// checkID rejects ids that the generated request builder would resolve to
// another route: serverURL.Parse resolves dot segments, and a server that
// decodes %2F before routing would see extra segments.
func checkID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\") ||
		strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: %q", ErrInvalidRequestID, id)
	}
	return nil
}

// stop ends s with an error naming the id and what was seen last. It wraps
// err (ReasonContext) or, if nil, ctx's error (ReasonContext) or, while ctx
// lives, ErrStopped (ReasonStopped); and ctx's cause when that says more.
func (s *Step) stop(ctx context.Context, err error) error {
	s.Next, s.Reason = 0, ReasonContext
	if err = cmp.Or(err, ctx.Err()); err == nil {
		err, s.Reason = ErrStopped, ReasonStopped
	}
	last := fmt.Sprintf("last status %s after %d polls", statusText(s.Status), s.Attempt)
	if s.Err != nil {
		last += fmt.Sprintf("; last transient error: %v", s.Err)
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("wait: request %q: %w: %w (%s)", s.RequestID, err, cause, last)
	}
	return fmt.Errorf("wait: request %q: %w (%s)", s.RequestID, err, last)
}

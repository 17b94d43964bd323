package wait

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tensorpool/tensorpool-go/gen"
)

// ErrFailed matches (errors.Is) every *FailedError: the request reached the
// terminal status FAILED.
var ErrFailed = errors.New("wait: request failed")

// ErrUnknownStatus matches (errors.Is) every *UnknownStatusError: the server
// reported a status outside the spec's enum (see WithUnknownStatusAsRunning).
var ErrUnknownStatus = errors.New("wait: unknown request status")

// ErrStopped is wrapped by the error WaitAll returns for an id it did not
// wait for to the end because another id failed under WithFailFast. It does
// not wrap context.Canceled: that error means the caller's ctx ended.
var ErrStopped = errors.New("stopped after another request failed")

// ErrBrokenClient is wrapped by the error returned when the Client breaks
// the net/http contract: a nil *http.Response, or one with a nil Body, with
// a nil error. It ends the wait at
// once: polling again would not mend the lower layer (a custom
// gen.HttpRequestDoer, typically).
var ErrBrokenClient = errors.New("broken Client")

// ErrInvalidRequestID is wrapped by the error returned, before any request is
// sent, for an id that is empty or could address another route: ".", "..",
// or anything containing '/', '\\' or a control character.
var ErrInvalidRequestID = errors.New("wait: invalid request id")

// FailedError reports a request whose final status is FAILED. It matches
// ErrFailed.
type FailedError struct {
	// Info is the final request info, as the server sent it.
	Info *gen.RequestInfoResponse
}

// Error names the request id, its type and the server's external_message.
func (e *FailedError) Error() string {
	if e == nil || e.Info == nil {
		return ErrFailed.Error()
	}
	msg := fmt.Sprintf("wait: request %q (%s) failed", e.Info.RequestID, e.Info.RequestType)
	if m := message(e.Info); m != "" {
		msg += ": " + m
	}
	return msg
}

// Is reports whether target is ErrFailed.
func (e *FailedError) Is(target error) bool { return target == ErrFailed }

// TransientError reports that polling gave up after Failures consecutive
// transient failures (network errors, 408, 425, 429, 500, 502, 503, 504, or
// a 200 whose body does not decode; see the package documentation). It unwraps to the last failure, which
// is an *tensorpool.APIError when that failure was an HTTP status.
type TransientError struct {
	// RequestID is the id that was being polled.
	RequestID string
	// Failures is the number of consecutive transient failures, the last
	// one included (the WithMaxFailures limit).
	Failures int
	// LastStatus is the last status seen before the failures, or "".
	LastStatus gen.RequestStatus
	// Err is the last failure.
	Err error
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
	// RequestID is the id that was polled.
	RequestID string
	// Info is the request info, as the server sent it.
	Info *gen.RequestInfoResponse
}

// Error names the status, the request id and the server's external_message.
func (e *UnknownStatusError) Error() string {
	if e == nil || e.Info == nil {
		return ErrUnknownStatus.Error()
	}
	msg := fmt.Sprintf("%v %q for request %q", ErrUnknownStatus, e.Info.Status, e.RequestID)
	if m := message(e.Info); m != "" {
		msg += ": " + m
	}
	return msg
}

// Is reports whether target is ErrUnknownStatus.
func (e *UnknownStatusError) Is(target error) bool { return target == ErrUnknownStatus }

func message(info *gen.RequestInfoResponse) string {
	if info == nil || info.ExternalMessage == nil {
		return ""
	}
	return *info.ExternalMessage
}

func statusText(s gen.RequestStatus) string {
	if s == "" {
		return "none seen"
	}
	return string(s)
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

// ctxError is the error for a wait ended by ctx. It wraps ctx.Err() (so
// errors.Is with context.Canceled or context.DeadlineExceeded holds) and a
// distinct context.Cause, and names the last status and failure seen.
func ctxError(ctx context.Context, s *Step) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == err || cause == nil {
		return fmt.Errorf("wait: request %q: %w (%s)", s.RequestID, err, s.summary())
	}
	return fmt.Errorf("wait: request %q: %w: %w (%s)", s.RequestID, err, cause, s.summary())
}

// stoppedError is the error of an id WaitAll stopped under WithFailFast.
func stoppedError(s *Step) error {
	return fmt.Errorf("wait: request %q: %w (%s)", s.RequestID, ErrStopped, s.summary())
}

// summary is the "last seen" tail of timeout and cancellation errors.
func (s *Step) summary() string {
	out := fmt.Sprintf("last status %s after %d polls", statusText(s.Status), s.Attempt)
	if s.Err != nil {
		out += fmt.Sprintf("; last transient error: %v", s.Err)
	}
	return out
}

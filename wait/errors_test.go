package wait

import (
	"errors"
	"strings"
	"testing"
)

func TestErrorTypesNilSafe(t *testing.T) {
	for _, err := range []error{&FailedError{}, (*FailedError)(nil), &TransientError{}, (*TransientError)(nil),
		&UnknownStatusError{}, (*UnknownStatusError)(nil)} {
		if msg := err.Error(); !strings.HasPrefix(msg, "wait: ") {
			t.Errorf("%T.Error() = %q", err, msg)
		}
	}
	if err := errors.Unwrap((*TransientError)(nil)); err != nil {
		t.Errorf("Unwrap of a nil *TransientError = %v", err)
	}
	if !errors.Is(&FailedError{}, ErrFailed) || !errors.Is(&UnknownStatusError{}, ErrUnknownStatus) {
		t.Error("empty errors no longer match their sentinels")
	}
}

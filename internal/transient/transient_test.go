package transient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
)

type marked struct{ error }

func (marked) Transient() bool { return true }
func (m marked) Unwrap() error { return m.error }

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{io.ErrUnexpectedEOF, true},
		{&url.Error{Op: "Get", URL: "u", Err: io.EOF}, true},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, true},
		{&net.DNSError{Err: "timeout", IsTimeout: true}, true},
		{errors.New("http: unexpected EOF reading trailer"), true},
		{fmt.Errorf("x: %w", h2StreamError{StreamID: 1, Code: 2}), true},
		{marked{errors.New("whatever")}, true},
		{nil, false},
		{errors.New("custom"), false},
		{&url.Error{Op: "Get", URL: "u", Err: errors.New("stopped after 10 redirects")}, false},
		{&net.DNSError{Err: "no such host", IsNotFound: true}, false},
		{&net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")}, false},
		{tls.AlertError(116), false},
		{marked{context.Canceled}, false},
	} {
		if got := Is(tc.err); got != tc.want {
			t.Errorf("Is(%#v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}

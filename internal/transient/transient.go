// Package transient decides whether a failed HTTP exchange is known to be
// transient, the same request may succeed if sent again: an error from
// sending it or reading its body (Is), or a status (Status). It is the one
// rule shared by the tensorpool front door's retries and package wait's
// polling; each applies its own policy on top.
package transient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/textproto"
	"reflect"
	"slices"
	"strings"
	"syscall"
)

// Marker is implemented by errors that know they are transient (the front
// door's error for a response body lost mid-way). A TLS, certificate or
// cancellation error in the chain still wins.
type Marker interface{ Transient() bool }

// Is reports whether err, from sending a request or reading its response
// body, is known to be transient. It is an allow-list; anything else (an
// unsupported scheme, a redirect loop, a request refused before sending, a
// custom transport's own error) is taken to come back every time:
//
//   - io.EOF, io.ErrUnexpectedEOF, context.DeadlineExceeded;
//   - ECONNRESET, ECONNREFUSED, ECONNABORTED, EPIPE, ETIMEDOUT,
//     EHOSTUNREACH, ENETUNREACH, ENETDOWN;
//   - a *net.OpError, a net.Error whose Timeout() is true, a *net.DNSError
//     other than "no such host";
//   - HTTP/2 stream resets, connection errors and GOAWAY, a response cut in
//     its status line or headers, and the other connection losses net/http
//     reports (see isHTTPConnLoss);
//   - an error whose Transient method (Marker) says so.
//
// context.Canceled, TLS alerts, TLS record and certificate errors are never
// transient, whatever wraps them: a TLS alert arrives inside a *net.OpError
// (Op "remote error" or "local error").
func Is(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	for _, target := range []any{new(*tls.CertificateVerificationError), new(x509.UnknownAuthorityError),
		new(x509.HostnameError), new(x509.CertificateInvalidError), new(tls.RecordHeaderError), new(tls.AlertError)} {
		if errors.As(err, target) {
			return false
		}
	}
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "remote error" || op.Op == "local error") {
		return false // crypto/tls's alert, received or sent (tls.AlertError is only QUIC's)
	}
	var m Marker
	if errors.As(err, &m) && m.Transient() {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return !dns.IsNotFound
	}
	for _, t := range []error{
		io.EOF, io.ErrUnexpectedEOF, context.DeadlineExceeded,
		syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN,
	} {
		if errors.Is(err, t) {
			return true
		}
	}
	// Not any net.Error: *url.Error is one, so every error net/http's
	// Client returns would pass.
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	return errors.As(err, &op) || isHTTPConnLoss(err)
}

// Status reports whether a response with this status may succeed if the
// same request is sent again unchanged: 408, 425, 429, 500, 502, 503, 504.
// Of these, 429 and 503 also say the server is overloaded (Pressure).
func Status(code int) bool { return slices.Contains([]int{408, 425, 429, 500, 502, 503, 504}, code) }

// Pressure reports whether a status asks the client to slow down: 429 Too
// Many Requests or 503 Service Unavailable.
func Pressure(code int) bool { return code == 429 || code == 503 }

// h2Types are the HTTP/2 connection-loss error types, by package path and
// name: net/http's bundled copy of golang.org/x/net/http2 (unexported, see
// $GOROOT/src/net/http/h2_bundle.go), and x/net's own for a transport built
// from it.
var h2Types = map[[2]string]bool{
	{"net/http", "http2StreamError"}:              true, // RST_STREAM from the peer, or a local stream failure
	{"net/http", "http2ConnectionError"}:          true, // the whole connection failed
	{"net/http", "http2GoAwayError"}:              true, // the server sent GOAWAY and closed the connection
	{"golang.org/x/net/http2", "StreamError"}:     true,
	{"golang.org/x/net/http2", "ConnectionError"}: true,
	{"golang.org/x/net/http2", "GoAwayError"}:     true,
}

// connLossMessages are net/http's unexported errors.New values that report
// a lost connection; they can only be recognised by their text.
var connLossMessages = map[string]bool{
	"http: unexpected EOF reading trailer":                        true, // net/http/transfer.go errTrailerEOF
	"http: server closed idle connection":                         true, // net/http/transport.go errServerClosedIdle
	"http2: client conn is closed":                                true, // h2_bundle.go http2errClientConnClosed
	"http2: client conn not usable":                               true, // h2_bundle.go http2errClientConnUnusable
	"http2: Transport received Server's graceful shutdown GOAWAY": true, // h2_bundle.go http2errClientConnGotGoAway
}

// isHTTPConnLoss reports whether err's chain holds one of net/http's HTTP/2
// or HTTP/1 connection-loss errors, which are unexported and not net.Errors:
// besides those above, a response cut in its status line or headers, which
// net/http reports as "net/http: HTTP/1.x transport connection broken:
// malformed HTTP response ..." (or "... status code", "... version"), or
// around a textproto.ProtocolError ("malformed MIME header line").
func isHTTPConnLoss(err error) bool {
	if errors.As(err, new(textproto.ProtocolError)) {
		return true
	}
	return walk(err, func(e error) bool {
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false // its Error method may not expect nil
			}
			v = v.Elem()
		}
		msg := e.Error()
		return h2Types[[2]string{v.Type().PkgPath(), v.Type().Name()}] || connLossMessages[msg] ||
			strings.HasPrefix(msg, "net/http: HTTP/1.x transport connection broken: ") || strings.HasPrefix(msg, "malformed HTTP ")
	})
}

// walk calls f on err and everything it wraps (Unwrap() error and
// Unwrap() []error), depth first, until f returns true.
func walk(err error, f func(error) bool) bool {
	if err == nil {
		return false
	}
	if f(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return walk(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if walk(e, f) {
				return true
			}
		}
	}
	return false
}

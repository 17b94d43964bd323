package transient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
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
		{marked{errors.New("whatever")}, true},
		{fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", errors.New(`malformed HTTP status code "2"`)), true},
		{errors.New(`malformed HTTP response "HTTP/1."`), true},
		{&url.Error{Op: "Get", URL: "u", Err: textproto.ProtocolError("malformed MIME header line: x")}, true},
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

// TestResponseCutInHeadIsTransient drops the connection in the middle of a
// real response's status line or headers: net/http reports each as
// "malformed HTTP ..." or a textproto.ProtocolError, and a GET that loses
// its connection there may succeed if sent again.
func TestResponseCutInHeadIsTransient(t *testing.T) {
	for _, partial := range []string{"", "HTTP/1.", "HTTP/1.1 2", "HTTP/1.1 200 OK\r\nContent-Ty", "HTTP/1.1 200 OK\r\nA: b\r\n"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 4096))
			c.Write([]byte(partial))
			c.Close()
		}()
		tr := &http.Transport{}
		_, err = (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String())
		tr.CloseIdleConnections()
		ln.Close()
		if err == nil || !Is(err) {
			t.Errorf("response cut after %q: Is(%v) = false, want true", partial, err)
		}
	}
}

// TestHTTP2StreamResetIsTransient: a handler that aborts mid-body resets
// its stream, which net/http reports as its unexported http2StreamError.
func TestHTTP2StreamResetIsTransient(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("{"))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil || !Is(err) {
		t.Errorf("a reset stream: Is(%v) = false, want true", err)
	}
}

package tensorpooltest

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// ServeHTTP implements http.Handler. A fault that drops the connection
// aborts the handler (http.ErrAbortHandler), so the client sees the
// connection close without a response.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res, err := e.serve(r)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	for k, v := range res.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(res.body)))
	w.WriteHeader(res.status)
	w.Write(res.body)
}

// RoundTrip implements http.RoundTripper: it answers the request in-process,
// with no network, whatever the request's host. A fault that drops the
// connection makes it return an error wrapping io.ErrUnexpectedEOF. As
// net/http's Transport, it takes an empty method for GET and returns an
// error for a request without a URL.
func (e *Engine) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	if req.URL == nil {
		return nil, errors.New("tensorpooltest: nil Request.URL")
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Method = cmp.Or(r.Method, http.MethodGet)
	if r.Body == nil {
		r.Body = http.NoBody
	}
	res, err := e.serve(r)
	if err != nil {
		return nil, err
	}
	res.header.Set("Content-Length", strconv.Itoa(len(res.body)))
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", res.status, http.StatusText(res.status)),
		StatusCode:    res.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        res.header,
		Body:          io.NopCloser(bytes.NewReader(res.body)),
		ContentLength: int64(len(res.body)),
		Request:       req,
	}, nil
}

// HTTPClient returns an *http.Client whose transport is the engine itself
// (see RoundTrip). It is a gen.HttpRequestDoer: pass it to
// gen.WithHTTPClient.
func (e *Engine) HTTPClient() *http.Client { return &http.Client{Transport: e} }

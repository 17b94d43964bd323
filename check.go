package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/operations"
)

// read reads and closes resp's body, at most maxBody bytes. A 2xx body past
// the cap or cut short is a *DecodeError. Another status keeps what could
// be read, marked truncated: the status is never lost.
func read(resp *http.Response, maxBody int64, redact redactor) (*body, error) {
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	fail := func(err error) error { return newDecodeError(resp, nil, redact.text, err) }
	size := resp.ContentLength // announced; a HEAD's is the GET's, its body empty
	if resp.Body == http.NoBody {
		size = 0
	}
	if ok && size > maxBody {
		return nil, fail(fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, maxBody))
	}
	b := &body{lr: io.LimitedReader{R: resp.Body, N: maxBody + 1}, redact: redact.text} // one allocation for both
	var err error
	if n := min(size, maxBody); n >= 0 { // as announced (up to the cap), and one byte more to see a longer body
		b.data = b.small[:]
		if n+1 > int64(len(b.small)) {
			b.data = make([]byte, n+1)
		}
		b.data = b.data[:n+1]
		var k int
		if k, err = io.ReadFull(&b.lr, b.data); int64(k) == n && (err == io.ErrUnexpectedEOF || err == io.EOF) {
			b.data, err = b.data[:k], nil
		} else {
			b.data = b.data[:k]
		}
	}
	if err == nil && (size < 0 || int64(len(b.data)) > min(size, maxBody)) {
		// bytes.Buffer growing by doubling: a large body costs about twice
		// its size, where io.ReadAll costs five.
		buf := bytes.NewBuffer(b.data)
		_, err = buf.ReadFrom(&b.lr)
		b.data = buf.Bytes()
	}
	b.lr.R = nil
	switch {
	case ok && int64(len(b.data)) > maxBody:
		return nil, fail(fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, maxBody))
	case ok && err != nil:
		return nil, fail(bodyLost{fmt.Errorf("reading the body: %w", err)})
	case err != nil || int64(len(b.data)) > maxBody:
		b.truncated, b.data = true, b.data[:min(int64(len(b.data)), maxBody)]
	}
	return b, nil
}

// finish makes resp, read into b, what the caller gets, then checks it
// (but a poll of package wait's, which wait checks itself). A success's
// body and headers are redacted of the whole key, in any escaped form; an
// error's, which are diagnostics, under the full rule (a cut key too). The media type is
// lower-cased for the generated parsers. resp.Request is req, or a copy if
// its path held the key.
func finish(op *operations.Operation, req *http.Request, resp *http.Response, b *body, redact redactor, poll bool) (*http.Response, error) {
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		b.data = redact.data(b.data)
		redact.header(resp.Header, redact.value)
	} else {
		b.data = []byte(redact.text(string(b.data)))
		redact.header(resp.Header, redact.text)
	}
	b.Reset(b.data)
	resp.Header = mediatype.Normalize(resp.Header)
	if noContent(req.Method, resp.StatusCode) { // the generated parser would decode its Content-Type's empty JSON
		resp.Header.Del("Content-Type")
	}
	resp.Body, resp.ContentLength, resp.Request = b, int64(len(b.data)), req
	if p := redact.text(req.URL.Path); p != req.URL.Path {
		r, u := *req, *req.URL
		u.Path, u.RawPath = p, ""
		r.URL = &u
		resp.Request = &r
	}
	if !poll {
		if err := checkResponse(op, resp, b.data, b); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// checkResponse is the one response check, of the client (finish) and of
// Check, and so of package wait. It returns nil for a success that op
// declares, an *APIError for a status outside 2xx (a redirect included),
// or a *DecodeError for an undeclared 2xx or one without the JSON body op
// declares. data is the body; b the doer's, if it read it.
func checkResponse(op *operations.Operation, resp *http.Response, data []byte, b *body) error {
	var redact func(string) string
	truncated := false
	if b != nil {
		redact, truncated = b.redact, b.truncated
	}
	code := resp.StatusCode
	if code < 200 || code > 299 {
		return newAPIError(resp, data, redact, truncated)
	}
	success, isJSON := operations.SuccessMayBeJSON, mediatype.IsJSON(resp.Header.Get("Content-Type"))
	if op != nil { // else an unknown operation: a body labelled JSON must be JSON
		success = op.Success(code)
	}
	if resp.Request != nil && noContent(resp.Request.Method, code) {
		success = min(success, operations.SuccessNoJSON) // no body, whatever the spec says of it
	}
	switch {
	case success == operations.NotASuccess:
		return newDecodeError(resp, data, redact, fmt.Errorf("status %d is not a success the API spec declares for this operation", code))
	case success == operations.SuccessJSON && !isJSON:
		return newDecodeError(resp, data, redact, errors.New("the body is not the JSON the API spec declares"))
	case success >= operations.SuccessMayBeJSON && isJSON && !json.Valid(data):
		return newDecodeError(resp, data, redact, json.Unmarshal(data, new(json.RawMessage)))
	}
	return nil
}

// noContent reports whether HTTP gives a response no body: one to a HEAD
// (RFC 9110 section 9.3.2), a 204 or a 205 (sections 15.3.5 and 15.3.6).
func noContent(method string, code int) bool {
	return method == http.MethodHead || code == http.StatusNoContent || code == http.StatusResetContent
}

// Response is what every generated ...Response type satisfies.
type Response interface {
	StatusCode() int
	GetBody() []byte
}

// Check applies the client's response check to the results of a generated
// ...WithResponse method of any client, such as a raw gen client or a
// mock. A client from NewClient needs none: Check passes its errors through.
//
//	resp, err := tensorpool.Check(raw.StorageDestroyWithResponse(ctx, id))
//
// Check returns a nil error for a success that the spec declares for the
// response type's operation, with its JSON body if it declares one: its
// typed field (JSON202, JSON200) is then set. A mock's response without an
// HTTP response passes when that field is set. Otherwise the error is an
// *APIError for a status outside 2xx, or a *DecodeError. An error of the
// call is returned as it is, but the generated parser's JSON and time
// errors become a *DecodeError.
func Check[R Response](r R, err error) (R, error) {
	if err != nil {
		switch err.(type) {
		case *json.SyntaxError, *json.UnmarshalTypeError, *time.ParseError:
			return r, &DecodeError{Err: err}
		}
		return r, err
	}
	v := reflect.Indirect(reflect.ValueOf(r))
	if v.Kind() != reflect.Struct {
		return r, errors.New("tensorpool: Check: nil response")
	}
	var hr *http.Response
	if f := v.FieldByName("HTTPResponse"); f.IsValid() && f.CanInterface() {
		hr, _ = f.Interface().(*http.Response)
	}
	if hr == nil {
		hr = &http.Response{StatusCode: r.StatusCode(), Header: http.Header{}}
	}
	if f := v.FieldByName(fmt.Sprint("JSON", hr.StatusCode)); hr.StatusCode/100 == 2 && f.Kind() == reflect.Pointer && !f.IsNil() {
		return r, nil // a declared success's typed field is set (a mock may have no body to check)
	}
	b, _ := hr.Body.(*body)
	return r, checkResponse(operations.Of(r), hr, r.GetBody(), b)
}

// body is a response body read in full; wait reads Redact from it.
type body struct {
	bytes.Reader
	data      []byte
	lr        io.LimitedReader    // reads the response's body, in read
	truncated bool                // cut at the cap, or the connection dropped
	redact    func(string) string // the rule for diagnostics
	small     [512]byte           // holds a short body, the API's usual, in the same allocation
}

func (*body) Close() error { return nil }

// Redact applies the client's redaction rule for diagnostics, so that
// package wait can put server text in its errors without the key.
func (b *body) Redact(s string) string { return b.redact(s) }

// bodyLost is the cause of a *DecodeError for a 2xx body lost mid-way. It
// may come whole next time, whatever its cause (internal/transient.Marker).
type bodyLost struct{ error }

func (e bodyLost) Unwrap() error   { return e.error }
func (e bodyLost) Transient() bool { return true }

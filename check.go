package tensorpool

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/opname"
)

// checkResponse is the one response check, the client's own (see Check) and
// so package wait's: nil for a success the operation rt declares, else an
// *APIError for a status outside 2xx (a redirect included), or a
// *DecodeError for an undeclared 2xx, or one without the JSON body the
// operation declares. data is the body; b the doer's, if it read it. With
// rt nil (an unknown operation), any 2xx whose body is not labelled JSON, or
// is JSON, succeeds.
func checkResponse(rt *route, resp *http.Response, data []byte, b *body) error {
	code, ct := resp.StatusCode, resp.Header.Get("Content-Type")
	if code < 200 || code > 299 {
		return newAPIError(resp, data, b)
	}
	success := uint8(someJSON)
	if rt != nil {
		success = rt.op.success[code-200]
	}
	switch {
	case success == undeclared:
		return newDecodeError(resp, data, b, fmt.Errorf("status %d is not a success the API spec declares for this operation", code))
	case success != noJSON && mediatype.IsJSON(ct) && !json.Valid(data):
		return newDecodeError(resp, data, b, json.Unmarshal(data, new(json.RawMessage)))
	case success == jsonOnly && !mediatype.IsJSON(ct):
		return newDecodeError(resp, data, b, errors.New("the body is not the JSON the API spec declares"))
	}
	return nil
}

// Response is what every generated ...Response type satisfies.
type Response interface {
	StatusCode() int
	GetBody() []byte
}

// Check applies the client's response check to the results of a generated
// ...WithResponse method of any client, a raw gen client or a mock:
//
//	resp, err := tensorpool.Check(raw.StorageDestroyWithResponse(ctx, id))
//
// A client from NewClient needs none: its methods already return the
// *APIError or *DecodeError that Check would (it then passes them through).
// Check returns a nil error only for a success status the spec declares for
// the operation (found from the response's type, else its request) whose
// body is the declared JSON, if any, so that its typed field (JSON202,
// JSON200) is not nil; or if that field is set (a mock's). Otherwise, with the response: an *APIError for a status outside
// 200-299; a *DecodeError for any other 2xx; err as is if not nil, but the
// generated parser's bare JSON and time errors become a *DecodeError.
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
	b, _ := hr.Body.(*body)
	if f := v.FieldByName(fmt.Sprint("JSON", hr.StatusCode)); hr.StatusCode/100 == 2 && f.Kind() == reflect.Pointer && !f.IsNil() {
		return r, nil // a declared success's typed field is set (a mock may have no body to check)
	}
	name, _ := strings.CutSuffix(v.Type().Name(), "Response") // gen's <Operation>Response
	rt := spec().byName[opname.Key(name)]
	switch {
	case b != nil:
		rt = b.route
	case rt == nil && hr.Request != nil && hr.Request.URL != nil:
		rt = spec().below(hr.Request.Method, hr.Request.URL.EscapedPath())
	}
	return r, checkResponse(rt, hr, r.GetBody(), b)
}

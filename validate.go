package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrInvalidRequest is matched (errors.Is) by every *InvalidRequestError.
var ErrInvalidRequest = errors.New("tensorpool: invalid request")

// InvalidRequestError reports a request that breaks a rule the API spec
// states, or that HTTP cannot carry (a header with control characters). The
// client returns it before sending anything.
type InvalidRequestError struct {
	Method string // request method
	Path   string // request path, without host or query
	Field  string // the JSON field or path parameter, e.g. "storage_id", or "header"
	Reason string // what is wrong, e.g. `must start with "s-", got "abc"`
}

// Error implements error.
func (e *InvalidRequestError) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: invalid %s: %s (nothing was sent)", e.Method, e.Path, e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidRequest) hold.
func (e *InvalidRequestError) Is(target error) bool { return target == ErrInvalidRequest }

// maxValidatedBody bounds what validation reads of a request body that has
// no GetBody (a streamed body given to a ...WithBody method).
const maxValidatedBody = 1 << 20

// validateRequest returns an *InvalidRequestError for the first rule of
// openapi.json that req breaks and the generated types cannot enforce:
//
//   - POST /storage/attach: storage_id must start with "s-" (the field's
//     description), and cluster_ids have exactly one element (minItems 1,
//     maxItems 1).
//   - DELETE /storage/{storage_id}: storage_id must start with "s-", the
//     only format the spec states for a storage id (this operation's 400
//     "Invalid storage ID format" does not say).
//
// basePath is the base URL's path. A body without GetBody is read into
// memory and made replayable.
func validateRequest(req *http.Request, basePath string) error {
	p, ok := strings.CutPrefix(req.URL.EscapedPath(), strings.TrimSuffix(basePath, "/"))
	if !ok {
		return nil
	}
	switch {
	case req.Method == http.MethodPost && p == "/storage/attach":
		body, err := requestBody(req)
		if err != nil {
			return err
		}
		// Exact keys, as the server reads them (json.Unmarshal into a struct
		// would match "STORAGE_ID" too); a repeated key: the last one wins,
		// as in Python's json.
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil {
			return nil // malformed JSON: the server's 422 says more than we could
		}
		var storageID string
		var clusterIDs []string
		if raw, ok := obj["storage_id"]; ok && json.Unmarshal(raw, &storageID) != nil {
			return nil // not a string: left to the server's 422
		}
		if raw, ok := obj["cluster_ids"]; ok && json.Unmarshal(raw, &clusterIDs) != nil {
			return nil
		}
		if !strings.HasPrefix(storageID, "s-") {
			return invalid(req, "storage_id", fmt.Sprintf("must start with \"s-\", got %q", storageID))
		}
		if len(clusterIDs) != 1 {
			return invalid(req, "cluster_ids", fmt.Sprintf("must have exactly one element, got %d", len(clusterIDs)))
		}
	case req.Method == http.MethodDelete && strings.HasPrefix(p, "/storage/") && !strings.Contains(p[len("/storage/"):], "/"):
		id, err := url.PathUnescape(p[len("/storage/"):])
		if err != nil {
			return nil
		}
		if !strings.HasPrefix(id, "s-") {
			return invalid(req, "storage_id", fmt.Sprintf("must start with \"s-\", got %q", id))
		}
	}
	return nil
}

func invalid(req *http.Request, field, reason string) error {
	return &InvalidRequestError{Method: req.Method, Path: req.URL.Path, Field: field, Reason: reason}
}

// requestBody returns a copy of req's body, leaving req able to send it.
func requestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("tensorpool: reading the request body to validate it: %w", err)
		}
		defer rc.Close()
		return io.ReadAll(io.LimitReader(rc, maxValidatedBody))
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, maxValidatedBody+1))
	_ = req.Body.Close()
	switch {
	case err != nil:
		return nil, fmt.Errorf("tensorpool: reading the request body to validate it: %w", err)
	case len(b) > maxValidatedBody:
		return nil, invalid(req, "body", fmt.Sprintf("larger than %d bytes", maxValidatedBody))
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	req.ContentLength = int64(len(b))
	return b, nil
}

// checkHeaders refuses a header net/http could not send; the value is not
// quoted in the error: it may be a credential.
func checkHeaders(req *http.Request) error {
	for name, values := range req.Header {
		if !validHeaderName(name) {
			return invalid(req, "header", fmt.Sprintf("invalid header name %q", name))
		}
		for _, v := range values {
			if !validHeaderValue(v) {
				return invalid(req, "header", fmt.Sprintf("the value of %s contains control characters", name))
			}
		}
	}
	return nil
}

// validHeaderValue reports whether v has no control character but tab.
func validHeaderValue(v string) bool {
	return !strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f })
}

// validHeaderName reports whether n is an HTTP token (RFC 9110 5.1).
func validHeaderName(n string) bool {
	return n != "" && strings.Trim(n, "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") == ""
}

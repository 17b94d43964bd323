package tensorpool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/tensorpool/tensorpool-go/internal/operations"
)

// maxValidatedBody bounds what validation holds of a request body.
const maxValidatedBody = 1 << 20

// checkBody returns an ErrInvalidRequest error for the first constraint
// that req's JSON body breaks: the constraints op's spec states for the
// request's media type, which scripts/genops resolved at generate time.
// Malformed JSON is sent: the server's 422 says more than the client could.
func checkBody(op *operations.Operation, req *http.Request) error {
	if op == nil || len(op.Bodies) == 0 {
		return nil
	}
	b, err := requestBody(req)
	var v any
	if err != nil || json.Unmarshal(b, &v) != nil {
		return err
	}
	if field, why := op.CheckBody(req.Header.Get("Content-Type"), v); why != "" {
		return &invalidRequest{op.Method, op.Path, field, why}
	}
	return nil
}

// requestBody returns a copy of req's body, leaving req able to send it. A
// streamed body past maxValidatedBody is sent as it comes: nil.
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
	switch {
	case err != nil:
		_ = req.Body.Close()
		return nil, fmt.Errorf("tensorpool: reading the request body to validate it: %w", err)
	case len(b) > maxValidatedBody:
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), req.Body), req.Body}
		return nil, nil
	}
	_ = req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	req.ContentLength = int64(len(b))
	return b, nil
}

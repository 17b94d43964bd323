// Package operations holds what the spec says of each operation that package
// gen's client sends. scripts/genops resolves it at generate time from gen's
// request builders and the prepared document, and writes operations.gen.go:
// the table of operations, their constraints, and the methods of Client.
// Nothing here reads the document, a comment or the stack at run time.
package operations

import (
	"context"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
)

// Operation is one operation of the spec, as the generated table holds it.
type Operation struct {
	Name   string  // gen's method name, without "WithBody": "StorageAttach"
	Method string  // "POST"
	Path   string  // the path template: "/storage/{storage_id}"
	Params []Param // the path parameters, in the order of gen's arguments
	// Successes are the 2xx statuses the spec declares, by status.
	Successes map[int]Success
	// OtherSuccess is any other 2xx: as "2XX" declares it, or "default"
	// where no 2xx is declared.
	OtherSuccess Success
	Bodies       []Body // the JSON request bodies that have constraints
}

// Param is a path parameter.
type Param struct {
	Name   string // as in the path template
	Schema int    // its constraints in Table, checked on the text gen sends; 0: none
}

// Body is a JSON request body of one media type.
type Body struct {
	MediaType string // the media type without parameters, in lower case
	Schema    int    // its constraints in Table
}

// Success is how an operation declares a 2xx status.
type Success uint8

const (
	NotASuccess      Success = iota // the operation does not declare the status
	SuccessNoJSON                   // declared, without a body or with a body that is not JSON
	SuccessMayBeJSON                // declared, with JSON among other media types
	SuccessJSON                     // declared, with a JSON body and nothing else
)

// Success returns how op declares the 2xx status code.
func (op *Operation) Success(code int) Success {
	if s, ok := op.Successes[code]; ok {
		return s
	}
	return op.OtherSuccess
}

// CheckBody returns the first field of v, a request body sent as
// contentType, that breaks the constraints op declares for its media type,
// and why; "", "" if none does, or op declares none for that type.
func (op *Operation) CheckBody(contentType string, v any) (field, why string) {
	mt := mediatype.Essence(contentType)
	for _, b := range op.Bodies {
		if b.MediaType == mt {
			return schemas.Check(b.Schema, v, "")
		}
	}
	return "", ""
}

// Table returns the table of the operations' constraints.
func Table() Schemas { return schemas }

// All returns every operation of the table, in the order of gen's methods.
func All() []Operation { return all[:] }

// key is the context key of a call's operation.
type key struct{}

// From returns the operation of the call whose context is ctx, or nil.
func From(ctx context.Context) *Operation {
	op, _ := ctx.Value(key{}).(*Operation)
	return op
}

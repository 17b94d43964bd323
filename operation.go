package tensorpool

import (
	"context"

	"github.com/tensorpool/tensorpool-go/internal/operations"
)

// Operation is the operation of the spec that a request of NewClient's
// client belongs to. A method of the client puts it in the request's
// context, where request editors, RoundTrippers, loggers and tracers find
// it with OperationFromContext. It is a copy: changing it changes nothing.
type Operation struct {
	Name   string // the generated method's name, without "WithBody": "StorageAttach"
	Method string // the HTTP method: "POST"
	// Path is the path template ("/storage/{storage_id}"), never the
	// request's path: OpenTelemetry's url.template.
	Path string
}

// String returns "METHOD /path/{template}".
func (op Operation) String() string { return op.Method + " " + op.Path }

// OperationFromContext returns the operation of the request whose context
// is ctx, and whether it has one: a request of NewClient's client has.
func OperationFromContext(ctx context.Context) (Operation, bool) {
	op := operations.From(ctx)
	if op == nil {
		return Operation{}, false
	}
	return Operation{Name: op.Name, Method: op.Method, Path: op.Path}, true
}

package tensorpooltest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/internal/opname"
	"github.com/tensorpool/tensorpool-go/internal/synth"
)

// spec is a parsed OpenAPI document, the routes of its operations and what
// its validation tolerates (Engine.SpecProblems). It is read-only once
// built, so engines share it.
type spec struct {
	doc          *openapi3.T
	routes       []*route // in kin-openapi's matching order: literal segments first
	problems     []error
	synth        synth.Builder // builds the values the document does not give
	requestTypes []string      // the request info's request_type enum, for the async model; nil: no request info
}

// route is one operation of the document.
type route struct {
	key    string         // "METHOD /path/{template}", the engine's name for an operation
	re     *regexp.Regexp // matches the escaped request path
	params []string       // path parameter names, in order
	kr     *routers.Route // what openapi3filter validates against

	synth                          synth.Builder
	canned                         map[string]*canned // by response key: "200", "2XX", "default"
	success, invalid, unauthorized int                // its answer, to a request that breaks the document, to a bad key (0: none declared)
}

// specs holds each document's spec, built once per process: building one
// takes milliseconds.
var specs sync.Map // string(document) -> func() (*spec, error)

func loadSpec(data []byte) (*spec, error) {
	if data == nil {
		data = tensorpool.OpenAPIDocument()
	}
	build, _ := specs.LoadOrStore(string(data), sync.OnceValues(func() (*spec, error) { return buildSpec(data) }))
	return build.(func() (*spec, error))()
}

var templateParam = regexp.MustCompile(`\{([^{}/]+)\}`)

func buildSpec(data []byte) (*spec, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data) // no external $refs
	if err != nil {
		return nil, fmt.Errorf("tensorpooltest: loading OpenAPI document: %w", err)
	}
	s := &spec{doc: doc}
	doc.SetStringFormatValidators(synth.Formats)
	s.synth.Opts = []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(synth.Formats)}
	if doc.IsOpenAPI31OrLater() {
		s.synth.Opts = append(s.synth.Opts, openapi3.EnableJSONSchema2020())
	}
	// Only what the engine serves must be valid, and only as far as serving
	// needs: kin-openapi's options drop examples and defaults, which the
	// engine never reads. The rest of a real document is reported
	// (Engine.SpecProblems), not refused.
	opts := []openapi3.ValidationOption{openapi3.EnableMultiError()}
	if doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.IsOpenAPI31OrLater()) // doc.Validate knows it; an operation's does not
	}
	for key := range handlers {
		method, path, _ := strings.Cut(key, " ")
		if item := doc.Paths.Value(path); item != nil && item.GetOperation(method) != nil {
			if err := item.GetOperation(method).Validate(context.Background(), append(opts,
				openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation())...); err != nil {
				return nil, fmt.Errorf("tensorpooltest: invalid operation %s: %w", key, err)
			}
		}
	}
	if err := doc.Validate(context.Background(), opts...); err != nil {
		for _, p := range flatten(err) {
			// kin-openapi calls paths that differ only in their template
			// names (FastAPI writes /x/{id} beside /x/{attempt_id})
			// conflicting. The engine routes each.
			if !errors.As(p, new(*openapi3.ConflictingPathsError)) {
				s.problems = append(s.problems, p)
			}
		}
	}
	// The engine routes by path only, whatever host it is reached at:
	// kin-openapi's routers match doc.servers, which upstream leaves empty
	// and a test server's URL could never be in anyway.
	for _, path := range doc.Paths.InMatchingOrder() {
		literals := templateParam.Split(path, -1)
		for i, l := range literals {
			literals[i] = regexp.QuoteMeta(l)
		}
		re := regexp.MustCompile("^" + strings.Join(literals, "([^/]+)") + "$")
		var params []string
		for _, m := range templateParam.FindAllStringSubmatch(path, -1) {
			params = append(params, m[1])
		}
		item := doc.Paths.Value(path)
		ops := item.Operations()
		for _, method := range slices.SortedFunc(maps.Keys(ops), compareMethods) {
			pairParams(item, ops[method], params)
			s.routes = append(s.routes, &route{
				key:    method + " " + path,
				re:     re,
				params: params,
				kr:     &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: ops[method]},
			})
		}
	}
	for _, rt := range s.routes {
		rt.synth = s.synth
		s.prepare(rt)
		if c := rt.canned["200"]; rt.key == "GET /request/info/{request_id}" && c != nil && c.schema != nil {
			if t := c.schema.Properties["request_type"]; t != nil && t.Value != nil {
				for _, v := range t.Value.Enum {
					s.requestTypes = append(s.requestTypes, fmt.Sprint(v))
				}
			}
		}
	}
	return s, nil
}

// pairParams gives a path parameter declared under another name than its
// template's (OpenAI's {certificate_id} beside cert_id) the template's
// name, in the engine's copy of op, in order: the name is not on the wire.
// scripts/specprep does the same for the generator.
func pairParams(item *openapi3.PathItem, op *openapi3.Operation, names []string) {
	all := slices.Concat(item.Parameters, op.Parameters)
	var missing []string
	for _, n := range names {
		if !slices.ContainsFunc(all, func(p *openapi3.ParameterRef) bool {
			return p.Value != nil && p.Value.In == openapi3.ParameterInPath && p.Value.Name == n
		}) {
			missing = append(missing, n)
		}
	}
	for i, ref := range op.Parameters {
		if len(missing) > 0 && ref.Value != nil && ref.Value.In == openapi3.ParameterInPath && !slices.Contains(names, ref.Value.Name) {
			p := *ref.Value
			p.Name, missing = missing[0], missing[1:]
			op.Parameters[i] = &openapi3.ParameterRef{Value: &p}
		}
	}
}

// methodOrder is the order of the Path Item Object's fields in the OpenAPI
// specification; other methods follow, alphabetically.
var methodOrder = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY"}

func compareMethods(a, b string) int {
	rank := func(m string) int {
		if i := slices.Index(methodOrder, m); i >= 0 {
			return i
		}
		return len(methodOrder)
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
}

// Operations lists the operations of the engine's OpenAPI document as
// "METHOD /path" keys (the form InjectFault, Respond and Calls take), paths
// as kin-openapi matches them (fewer parameters first), and a path's
// methods in the Path Item Object's order, that of a 405's Allow header.
func (e *Engine) Operations() []string {
	keys := make([]string, 0, len(e.spec.routes))
	for _, r := range e.spec.routes {
		keys = append(keys, r.key)
	}
	return keys
}

// find matches a request to an operation and its path parameters. If
// there is none, it returns the methods of the operations the path has, if
// any, for a 405. The path is matched in its escaped form, so that an
// escaped "/" inside a parameter (storage id "a/b" sent as "a%2Fb") stays
// inside that parameter; parameter values are then unescaped.
func (s *spec) find(method string, u *url.URL) (*route, map[string]string, []string) {
	path := u.EscapedPath()
	var allow []string
	for _, r := range s.routes {
		m := r.re.FindStringSubmatch(path)
		if m == nil {
			continue
		}
		if r.kr.Method != method {
			allow = append(allow, r.kr.Method)
			continue
		}
		params := make(map[string]string, len(r.params))
		for i, name := range r.params {
			params[name], _ = url.PathUnescape(m[i+1]) // an escaped path always unescapes
		}
		return r, params, nil
	}
	slices.SortFunc(allow, compareMethods) // template twins may list a method each
	return nil, nil, slices.Compact(allow)
}

// opName names an operation for messages: its operationId and its key.
func (r *route) opName() string {
	if id := r.kr.Operation.OperationID; id != "" {
		return fmt.Sprintf("%s (%s)", id, r.key)
	}
	return r.key
}

// key returns the key of the one operation op names most closely (see
// opMatch): two operationIds may share a Go name (listItems, list_items),
// or one may be another's FastAPI route name. It panics, naming the caller
// fn, if op names none, or names several equally closely: a test helper
// must not pick one of them behind the test's back.
func (s *spec) key(fn, op string) string {
	var best []*route
	bestRank := noMatch
	for _, r := range s.routes {
		rank := r.opMatch(op)
		if rank < bestRank {
			best, bestRank = nil, rank
		}
		if rank == bestRank && rank != noMatch {
			best = append(best, r)
		}
	}
	switch len(best) {
	case 0:
		panic(fmt.Sprintf("tensorpooltest: %s: no operation %q in the OpenAPI document", fn, op))
	case 1:
		return best[0].key
	}
	names := make([]string, len(best))
	for i, r := range best {
		names[i] = r.opName()
	}
	panic(fmt.Sprintf("tensorpooltest: %s: %q names %d operations, %s: pass one's \"METHOD /path\" key or operationId as written",
		fn, op, len(best), strings.Join(names, ", ")))
}

// How closely op names a route (opMatch), closest first.
const (
	exactMatch   = iota // its "METHOD /path" key or its operationId, as written
	nameMatch           // its key in any method case, or its operationId in any case, without separators
	fastAPIMatch        // FastAPI's route name in its operationId, in any case, without separators
	noMatch
)

// opMatch tells how closely op names r: by its "METHOD /path" key, its
// operationId, or the Go name gen's docs print for it ("StorageDestroy",
// "GetRequestInfo": the operationId, FastAPI's default one shortened to the
// route's name, in any case, without separators). Where a Go name is both
// one operation's id and another's FastAPI route name, scripts/specprep
// leaves the latter's id whole: the id is the closer match.
func (r *route) opMatch(op string) int {
	method, path, _ := strings.Cut(r.key, " ")
	id := r.kr.Operation.OperationID
	switch {
	case op == r.key || op != "" && op == id:
		return exactMatch
	case strings.EqualFold(op, r.key) || op != "" && id != "" && opname.Key(op) == opname.Key(id):
		return nameMatch
	case op != "" && id != "" && opname.Key(op) == opname.Key(opname.FastAPI(id, method, path)):
		return fastAPIMatch
	}
	return noMatch
}

// flatten lists the members of every openapi3.MultiError in err.
func flatten(err error) []error {
	var me openapi3.MultiError
	if !errors.As(err, &me) {
		return []error{err}
	}
	var out []error
	for _, e := range me {
		out = append(out, flatten(e)...)
	}
	return out
}

// SpecProblems returns what the engine found wrong in its whole OpenAPI
// document, which New tolerates: any problem kin-openapi's validation finds
// outside the operations the engine models, and invalid examples and
// defaults anywhere. It also lists each schema for which no value was
// found (by its JSON pointer: its operation answers the closest value, and
// records a Violation), and each operation that declares no status for a
// request that breaks the document, or for a bad key. Any other problem in
// a modelled operation is New's panic, never in this list. Paths that
// differ only in their template names are no problem, but kin-openapi
// validates the operations of only the first of them. For a test to read,
// or to require none.
func (e *Engine) SpecProblems() []error { return slices.Clone(e.spec.problems) }

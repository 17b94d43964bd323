package tensorpool

import (
	"encoding/json"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/opname"
	"github.com/tensorpool/tensorpool-go/internal/pathparam"
)

// document is what the client reads of the embedded openapi.json: each
// operation's route, the constraints validation checks, the successes the
// response check accepts.
type document struct {
	routes  map[string][]*route // by method (upper case, as net/http's), templates sorted
	schemas map[string]*schema
	byName  map[string]*route // by opname.Key of the operationId and of FastAPI's route name in it; nil if not one
}

// route is one operation: its method and path template.
type route struct {
	method, template string
	segs             []segment // the template's segments, after its leading '/'
	literals         int       // literal segments: the more, the better a match
	partial          int       // segments holding a parameter and literal text: the next tie-break
	op               *operation
	ambiguous        bool // a "", "." or ".." parameter of another route can reach it
}

// segment is a literal segment of a template (name == ""), or one holding a
// parameter between prefix and suffix; a segment holding several
// ("{a}.{b}") matches any text, its value is the whole segment and its name
// theirs ("a or b"): multi.
type segment struct {
	prefix, name, suffix string
	multi                bool
}

// operation is what the client reads of an OpenAPI operation.
type operation struct {
	OperationID string
	Parameters  []struct {
		Name, In string
		Schema   *schema
	}
	RequestBody struct {
		Content map[string]struct{ Schema *schema }
	}
	Responses map[string]*response
	success   [100]uint8 // by status - 200: undeclared, noJSON, someJSON or jsonOnly (successes)
}

// response is an OpenAPI response: its media types, or a $ref to one.
type response struct {
	Ref     string `json:"$ref"`
	Content map[string]json.RawMessage
}

// spec is the embedded document, read once.
var spec = sync.OnceValue(func() *document { return loadDocument(openAPIDocument) })

// loadDocument reads an OpenAPI document.
func loadDocument(b []byte) *document {
	var raw struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Schemas   map[string]*schema
			Responses map[string]*response
		}
	}
	_ = json.Unmarshal(b, &raw)
	d := &document{routes: map[string][]*route{}, schemas: raw.Components.Schemas, byName: map[string]*route{}}
	for _, tmpl := range slices.Sorted(maps.Keys(raw.Paths)) {
		for method, rawOp := range raw.Paths[tmpl] {
			if m := strings.ToUpper(method); isMethod(m) && strings.HasPrefix(tmpl, "/") {
				op := new(operation)
				if json.Unmarshal(rawOp, op) != nil { // validation checks nothing there; the responses still count
					*op = operation{}
					_ = json.Unmarshal(rawOp, &struct {
						OperationID *string
						Responses   *map[string]*response
					}{&op.OperationID, &op.Responses})
				}
				for code, r := range op.Responses {
					for n := 0; r != nil && r.Ref != "" && n < 8; n++ { // a $ref (at most 8 deep)
						r = raw.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
					}
					op.Responses[code] = r
				}
				op.success = successes(op.Responses)
				rt := newRoute(m, tmpl, op)
				d.routes[m] = append(d.routes[m], rt)
				for _, name := range []string{op.OperationID, opname.FastAPI(op.OperationID, m, tmpl)} {
					k, named := opname.Key(name), rt
					if other, seen := d.byName[k]; seen && other != rt {
						named = nil // two operations: the name tells them apart no more
					}
					if k != "" {
						d.byName[k] = named
					}
				}
			}
		}
	}
	d.markAmbiguous()
	return d
}

func isMethod(m string) bool {
	switch m {
	case "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY":
		return true
	}
	return false
}

func newRoute(method, tmpl string, op *operation) *route {
	rt := &route{method: method, template: tmpl, op: op}
	for _, s := range strings.Split(tmpl[1:], "/") {
		pre, rest, found := strings.Cut(s, "{")
		name, suf, closed := strings.Cut(rest, "}")
		switch {
		case !found || !closed || name == "": // "{}" names no parameter: literal text
			rt.segs = append(rt.segs, segment{prefix: s})
			rt.literals++
		case strings.Contains(suf, "{"):
			var names []string
			for _, part := range strings.Split(s, "{")[1:] {
				names = append(names, part[:max(strings.Index(part, "}"), 0)])
			}
			rt.segs = append(rt.segs, segment{name: strings.Join(names, " or "), multi: true})
			rt.partial++
		default:
			rt.segs = append(rt.segs, segment{prefix: pre, name: name, suffix: suf})
			if pre != "" || suf != "" {
				rt.partial++
			}
		}
	}
	return rt
}

// beats reports whether rt is a better match than o (nil): more literal
// segments, then more segments with literal text around a parameter.
func (rt *route) beats(o *route) bool {
	return o == nil || rt.literals > o.literals || rt.literals == o.literals && rt.partial > o.partial
}

// match returns the route of method for the escaped path p (it starts with
// '/', or is ""), the best (see beats) of those it fits, and whether another
// fits too.
func (d *document) match(method, p string) (best *route, others bool) {
	n := strings.Count(p, "/")
	for _, rt := range d.routes[method] {
		if len(rt.segs) == n && rt.fits(p) {
			others = others || best != nil
			if rt.beats(best) {
				best = rt
			}
		}
	}
	return best, others
}

// values returns the path parameters' values in the escaped path p, which
// fits rt, unescaped, in template order (one per segment).
func (rt *route) values(p string) []string {
	var vals []string
	rest := p[1:]
	for _, sg := range rt.segs {
		var s string
		s, rest, _ = strings.Cut(rest, "/")
		if sg.name != "" {
			vals = append(vals, unescape(s[len(sg.prefix):len(s)-len(sg.suffix)]))
		}
	}
	return vals
}

// fits reports whether the escaped path p is an instance of the template.
func (rt *route) fits(p string) bool {
	if p == "" {
		return false
	}
	rest := p[1:]
	for _, sg := range rt.segs {
		var s string
		s, rest, _ = strings.Cut(rest, "/")
		if !sg.matches(s) {
			return false
		}
	}
	return true
}

// matches reports whether the escaped segment s is an instance of sg: the
// literal itself, or a parameter's non-empty value between its prefix and
// suffix.
func (sg segment) matches(s string) bool {
	switch {
	case sg.multi:
		return s != ""
	case sg.name == "":
		return s == sg.prefix || unescape(s) == sg.prefix
	}
	return len(s) > len(sg.prefix)+len(sg.suffix) && strings.HasPrefix(s, sg.prefix) && strings.HasSuffix(s, sg.suffix)
}

func unescape(s string) string {
	if strings.Contains(s, "%") {
		if u, err := url.PathUnescape(s); err == nil {
			return u
		}
	}
	return s
}

// find returns the route of an HTTP request (nil if it is no operation's)
// and its path parameters' values, or an ErrInvalidRequest error: the id
// rule (internal/pathparam) refuses a value, or the path is not one the
// generated method that sent it (sender) builds, under the base URL's path
// (basePath) or after a prefix a request editor added, but one a "", "."
// or ".." value explains (url.Parse resolves dot segments). Where the path
// fits no template, or several, the sender's is the route.
func (d *document) find(req *http.Request, basePath string) (*route, []string, error) {
	full := req.URL.EscapedPath()
	p, ok := strings.CutPrefix(full, basePath)
	if !ok || !strings.HasPrefix(p, "/") {
		p = "" // above the base URL: ".." in a parameter
	}
	rt, others := d.match(req.Method, p)
	if rt == nil || rt.ambiguous || others {
		sender := d.sender()
		if sender != nil && sender != rt {
			rt, p = sender.in(full)
		}
		if rt == nil {
			var name string // the parameter whose "", "." or ".." value explains the path
			if sender == nil {
				name = d.resolvedAway(req.Method, p, nil)
			}
			for t := range tails(full) { // the sender's, after any prefix a request editor added
				if sender == nil || name != "" {
					break
				}
				name = d.resolvedAway(req.Method, t, sender)
			}
			switch {
			case name != "":
				return nil, nil, &invalidRequest{req.Method, full, name, `is "", "." or "..", which address another path`}
			case p == "":
				return nil, nil, &invalidRequest{req.Method, full, "path", `it is not under the base URL's path: a path parameter was "..", or a request editor rewrote it`}
			}
			return nil, nil, nil // not a generated method's request, nor any operation's: nothing to check
		}
	}
	vals, i := rt.values(p), 0
	for _, sg := range rt.segs {
		if sg.name == "" {
			continue
		}
		if why := pathparam.Invalid(vals[i]); why != "" {
			return nil, nil, &invalidRequest{req.Method, full, sg.name, why}
		}
		i++
	}
	return rt, vals, nil
}

// in returns rt and the end of the escaped path full that fits it (a
// request editor put something before it), or nil.
func (rt *route) in(full string) (*route, string) {
	for t := range tails(full) {
		if rt != nil && rt.fits(t) {
			return rt, t
		}
	}
	return nil, ""
}

// tails yields the ends of the escaped path p that start with '/', longest
// first.
func tails(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range len(p) {
			if p[i] == '/' && !yield(p[i:]) {
				return
			}
		}
	}
}

// resolvedAway names the parameter that, as "", "." or "..", makes a
// template of method (of sender, if not nil) the escaped path p once dot
// segments are resolved, or returns "".
func (d *document) resolvedAway(method, p string, sender *route) string {
	if p == "" {
		return ""
	}
	got := strings.Split(p[1:], "/")
	for _, rt := range d.routes[method] {
		for i, sg := range rt.segs {
			for _, v := range pathparam.ResolvedAway {
				if want := rt.resolved(i, v); (sender == nil || sender == rt) && len(want) == len(got) && fitsAll(want, got) {
					return sg.name
				}
			}
		}
	}
	return ""
}

func fitsAll(want []segment, got []string) bool {
	for j, w := range want {
		if !w.matches(got[j]) {
			return false
		}
	}
	return true
}

// resolved returns the template's segments, parameter i (if one) as v and
// dot segments resolved (RFC 3986 section 5.2.4), as the generated
// builders send them; nil if segment i holds no parameter.
func (rt *route) resolved(i int, v string) []segment {
	sg := rt.segs[i]
	if sg.name == "" || sg.multi {
		return nil
	}
	var out []segment
	for j := range rt.segs {
		switch last, v := j == len(rt.segs)-1, sg.prefix+v+sg.suffix; {
		case j != i:
			out = append(out, rt.segs[j])
		case v == "." || v == "..":
			if v == ".." && len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last { // "/a/." is "/a/"
				out = append(out, segment{})
			}
		default:
			out = append(out, segment{prefix: v})
		}
	}
	return out
}

// markAmbiguous marks each route that a "", "." or ".." value of another
// route's parameter could reach: only the sender tells them apart.
func (d *document) markAmbiguous() {
	for _, routes := range d.routes {
		for _, a := range routes {
			for i := range a.segs {
				for _, v := range pathparam.ResolvedAway {
					want := a.resolved(i, v)
					for _, b := range routes {
						if want != nil && b != a && len(b.segs) == len(want) && overlaps(want, b.segs) {
							b.ambiguous = true
						}
					}
				}
			}
		}
	}
}

// overlaps reports whether one path could be an instance of both segment
// lists.
func overlaps(a, b []segment) bool {
	for j := range a {
		x, y := a[j], b[j]
		if x.name == "" && !x.multi && !y.matches(x.prefix) || y.name == "" && !y.multi && !x.matches(y.prefix) {
			return false
		}
	}
	return true
}

// genClient prefixes the names of gen.Client's methods on the stack.
var genClient = reflect.TypeFor[gen.Client]().PkgPath() + ".(*Client)."

// sender returns the route of the generated method (gen.Client's) that
// sends the request up the stack, or nil if none or not known.
func (d *document) sender() *route {
	var pcs [8]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for f, more := frames.Next(); ; f, more = frames.Next() {
		if name, ok := strings.CutPrefix(f.Function, genClient); ok {
			if i := strings.LastIndex(name, "With"); d.byName[opname.Key(name)] == nil && i > 0 && strings.HasSuffix(name, "Body") {
				name = name[:i] // XWithBody, XWithFormdataBody: X's variants
			}
			return d.byName[opname.Key(name)]
		}
		if !more {
			return nil
		}
	}
}

// Whether an operation declares a success status, and its body (success).
const (
	undeclared = iota
	noJSON     // declared without a JSON body: the body is not checked (the generated parser ignores it)
	someJSON   // JSON among other media types, or the operation is not known: a body labelled JSON must be JSON
	jsonOnly   // JSON, and nothing else
)

// successes returns how the operation declares each status 200 to 299: an
// exact status wins over "2XX", which wins over "default", which counts
// only for an operation that declares no 2xx at all; an operation that
// declares no response takes any 2xx.
func successes(responses map[string]*response) (out [100]uint8) {
	any2xx := len(responses) == 0
	for code := range responses {
		any2xx = any2xx || strings.HasPrefix(code, "2")
	}
	for i := range out {
		r, ok := responses[strconv.Itoa(200+i)]
		for _, k := range []string{"2XX", "2xx", "default"} {
			if !ok && (k != "default" || !any2xx) {
				r, ok = responses[k]
			}
		}
		switch {
		case len(responses) == 0 || ok && (r == nil || r.Ref != ""):
			out[i] = someJSON
		case ok:
			json, other := 0, 0
			for mt := range r.Content {
				if mediatype.IsJSON(strings.ToLower(mt)) {
					json++
				} else {
					other++
				}
			}
			switch {
			case json == 0:
				out[i] = noJSON
			case other == 0:
				out[i] = jsonOnly
			default:
				out[i] = someJSON
			}
		}
	}
	return out
}

// operationPath returns the method and template of an operation whose path
// ends the base URL's path p, or "": a base URL that already names an
// operation ("https://engine.tensorpool.dev/storage/attach") would send
// every call to a path that does not exist. A template with parameters
// counts only with two literal segments or more: a gateway's prefix
// ("/storage/eu") may look like "/storage/{storage_id}".
func (d *document) operationPath(p string) string {
	methods := slices.Sorted(maps.Keys(d.routes))
	for t := range tails(strings.TrimSuffix(p, "/")) {
		var best *route // the longest end first, then the best match
		for _, m := range methods {
			if rt, _ := d.match(m, t); rt != nil && (rt.literals == len(rt.segs) || rt.literals >= 2) &&
				strings.Trim(rt.template, "/") != "" && rt.beats(best) {
				best = rt
			}
		}
		if best != nil {
			return best.method + " " + best.template
		}
	}
	return ""
}

// below returns the route of method that the escaped path p fits, or its
// end below a base URL's path, longest first; nil if none.
func (d *document) below(method, p string) *route {
	for t := range tails(p) {
		if rt, _ := d.match(method, t); rt != nil {
			return rt
		}
	}
	return nil
}

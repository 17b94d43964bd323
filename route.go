package tensorpool

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/pathparam"
)

// document is what the client reads of the embedded openapi.json: each
// operation's route, the constraints validation checks, the successes the
// response check accepts.
type document struct {
	routes  map[string][]*route // by method (upper case, as net/http's), templates sorted
	schemas map[string]*schema
}

// route is one operation: its method and path template.
type route struct {
	method, template string
	segs             []segment // the template's segments, after its leading '/'
	literals         int       // literal segments: the more, the better a match
	op               *operation
}

// segment is a literal segment of a template (name == ""), or one holding a
// parameter between prefix and suffix; several parameters in one segment
// ("{a}.{b}") match any text and are not checked (multi).
type segment struct {
	prefix, name, suffix string
	multi                bool
}

// operation is what the client reads of an OpenAPI operation.
type operation struct {
	Parameters []struct {
		Name, In string
		Schema   *schema
	}
	RequestBody struct {
		Content map[string]struct{ Schema *schema }
	}
	Responses map[string]*response
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
	d := &document{routes: map[string][]*route{}, schemas: raw.Components.Schemas}
	for _, tmpl := range slices.Sorted(maps.Keys(raw.Paths)) {
		for method, rawOp := range raw.Paths[tmpl] {
			if m := strings.ToUpper(method); isMethod(m) && strings.HasPrefix(tmpl, "/") {
				op := new(operation)
				if json.Unmarshal(rawOp, op) != nil { // validation checks nothing there; the responses still count
					*op = operation{}
					_ = json.Unmarshal(rawOp, &struct{ Responses *map[string]*response }{&op.Responses})
				}
				for code, r := range op.Responses {
					for n := 0; r != nil && r.Ref != "" && n < 8; n++ { // a $ref (at most 8 deep)
						r = raw.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
					}
					op.Responses[code] = r
				}
				d.routes[m] = append(d.routes[m], newRoute(m, tmpl, op))
			}
		}
	}
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
		case !found || !closed:
			rt.segs = append(rt.segs, segment{prefix: s})
			rt.literals++
		default:
			rt.segs = append(rt.segs, segment{prefix: pre, name: name, suffix: suf, multi: strings.Contains(suf, "{")})
		}
	}
	return rt
}

// match returns the route of method for the escaped path p (it starts with
// '/'), preferring the template with the most literal segments, and its path
// parameters' values, unescaped, in template order.
func (d *document) match(method, p string) (*route, []string) {
	n := strings.Count(p, "/")
	var best *route
	for _, rt := range d.routes[method] {
		if len(rt.segs) == n && (best == nil || rt.literals > best.literals) && rt.fits(p) {
			best = rt
		}
	}
	if best == nil {
		return nil, nil
	}
	var vals []string
	rest := p[1:]
	for _, sg := range best.segs {
		var s string
		s, rest, _ = strings.Cut(rest, "/")
		if sg.name != "" {
			vals = append(vals, unescape(s[len(sg.prefix):len(s)-len(sg.suffix)]))
		}
	}
	return best, vals
}

// fits reports whether the escaped path p is an instance of the template.
func (rt *route) fits(p string) bool {
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

// find returns the route of an HTTP request and its path parameters' values,
// or an ErrInvalidRequest error: the id rule (internal/pathparam) refuses a
// value, or the path fits no template, which the generated request builders
// can only send when a value was "", "." or ".." (url.Parse resolves dot
// segments). basePath is the base URL's.
func (d *document) find(req *http.Request, basePath string) (*route, []string, error) {
	p, ok := strings.CutPrefix(req.URL.EscapedPath(), basePath)
	if !ok || !strings.HasPrefix(p, "/") {
		p = "" // above the base URL: ".." in a parameter
	}
	rt, vals := d.match(req.Method, p)
	if rt == nil {
		name, why := d.resolvedAway(req.Method, p), `is "", "." or "..", which address another path`
		if name == "" {
			name, why = "path", "it matches no operation of the API spec, so a path parameter was empty, \".\" or \"..\""
		}
		return nil, nil, &invalidRequest{req.Method, req.URL.EscapedPath(), name, why}
	}
	i := 0
	for _, sg := range rt.segs {
		if sg.name != "" && !sg.multi {
			if why := pathparam.Invalid(vals[i]); why != "" {
				return nil, nil, &invalidRequest{req.Method, req.URL.EscapedPath(), sg.name, why}
			}
		}
		if sg.name != "" {
			i++
		}
	}
	return rt, vals, nil
}

// resolvedAway names the parameter of a template of method that, as "", "."
// or "..", gives the escaped path p once dot segments are resolved (RFC 3986
// section 5.2.4), or returns "".
func (d *document) resolvedAway(method, p string) string {
	if p == "" {
		return ""
	}
	got := strings.Split(p[1:], "/")
	for _, rt := range d.routes[method] {
		for i, bad := range rt.segs {
			for _, v := range []string{"", ".", ".."} {
				if bad.name != "" && !bad.multi && rt.resolves(i, bad.prefix+v+bad.suffix, got) {
					return bad.name
				}
			}
		}
	}
	return ""
}

// resolves reports whether the template, with segment i as v and its other
// parameters any non-empty text, resolves to the segments got.
func (rt *route) resolves(i int, v string, got []string) bool {
	var want []*segment // nil stands for an empty segment
	for j := range rt.segs {
		last := j == len(rt.segs)-1
		switch {
		case j != i:
			want = append(want, &rt.segs[j])
		case v == ".." && len(want) > 0:
			want = want[:len(want)-1]
			fallthrough
		case v == "." || v == "..":
			if last {
				want = append(want, nil) // "/a/." is "/a/"
			}
		default:
			want = append(want, &segment{prefix: v})
		}
	}
	if len(want) != len(got) {
		return false
	}
	for j, sg := range want {
		if sg == nil && got[j] != "" || sg != nil && !sg.matches(got[j]) {
			return false
		}
	}
	return true
}

// success returns how the operation declares status code, a 2xx: whether
// it does, and whether its body is then JSON only. An exact status wins over
// "2XX", which wins over "default", which counts only for an operation that
// declares no 2xx at all; an operation that declares no response accepts
// any 2xx.
func (op *operation) success(code int) (declared, jsonOnly bool) {
	if len(op.Responses) == 0 {
		return true, false
	}
	r, ok := op.Responses[strconv.Itoa(code)]
	if !ok {
		r, ok = op.Responses["2XX"]
	}
	if !ok {
		r, ok = op.Responses["2xx"]
	}
	if !ok && !slices.ContainsFunc(slices.Collect(maps.Keys(op.Responses)), func(k string) bool { return strings.HasPrefix(k, "2") }) {
		r, ok = op.Responses["default"]
	}
	if !ok {
		return false, false
	}
	var isJSON, other bool
	if r == nil || r.Ref != "" {
		return true, false
	}
	for mt := range r.Content {
		isJSON, other = isJSON || mediatype.IsJSON(strings.ToLower(mt)), other || !mediatype.IsJSON(strings.ToLower(mt))
	}
	return true, isJSON && !other
}

// operationPath returns the method and template of an operation whose path
// ends the base URL's path p, or "": a base URL that already names an
// operation ("https://engine.tensorpool.dev/storage/attach") would send
// every call to a path that does not exist.
func (d *document) operationPath(p string) string {
	p = strings.TrimSuffix(p, "/")
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		var best *route // the longest end first, then the most literal segments
		for _, m := range slices.Sorted(maps.Keys(d.routes)) {
			if rt, _ := d.match(m, p[i:]); rt != nil && rt.literals > 0 && strings.Trim(rt.template, "/") != "" &&
				(best == nil || rt.literals > best.literals) {
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
	for i := range len(p) {
		if p[i] == '/' {
			if rt, _ := d.match(method, p[i:]); rt != nil {
				return rt
			}
		}
	}
	return nil
}

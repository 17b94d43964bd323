package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
	"github.com/tensorpool/tensorpool-go/internal/opname"
)

// parameterGoNames: oapi-codegen v2.8.2 names a path parameter's Go argument
// after the parameter alone (lower case first), so one named ctx, c, err,
// reqEditors, url or string is declared twice or hides what the method needs
// ("ctx redeclared in this block", "url.Parse undefined", "string
// (parameter) is not a type"); and two parameters whose names differ only
// in case or separators (a_b and a-b, storage_id and storageId) are one Go
// name, twice an argument or twice a field of the Params struct. Such a
// parameter gets an x-go-name, which names it in Go only: the parameter's
// Go name and "Param", numbered if need be, which no generated code
// declares (a path parameter's, query's, header's or cookie's name on the
// wire is unchanged). A parameter of the path item, or a $ref'd one, is
// copied into the operation first, so a shared one is never edited.
func parameterGoNames(p *prep) {
	forOperations(p.doc, func(op map[string]any, method, path string) {
		item := jsondoc.Get(p.doc, "paths", path)
		type param struct {
			prm   map[string]any
			index int // in the operation's parameters; -1: the path item's
		}
		var params []param // the path item's not overridden, then the operation's
		for _, v := range list(item["parameters"]) {
			prm := deref(p.doc, v)
			if !slices.ContainsFunc(list(op["parameters"]), func(w any) bool { o := deref(p.doc, w); return o["name"] == prm["name"] && o["in"] == prm["in"] }) {
				params = append(params, param{prm: prm, index: -1})
			}
		}
		for i, v := range list(op["parameters"]) {
			params = append(params, param{prm: deref(p.doc, v), index: i})
		}
		keys := map[string]int{} // Go name keys in use, by group: arguments ("path") and Params fields (the others)
		group := func(prm map[string]any) string {
			return map[bool]string{true: "path", false: "params"}[prm["in"] == "path"]
		}
		for _, q := range params {
			keys[group(q.prm)+" "+opname.Key(goNameOf(q.prm))]++
		}
		seen := map[string]bool{}
		for _, q := range params {
			name, _ := q.prm["name"].(string)
			g, key := group(q.prm), opname.Key(goNameOf(q.prm))
			if !seen[g+" "+key] && !(g == "path" && reservedGo(key)) {
				seen[g+" "+key] = true
				continue
			}
			gn := goName(name) + "Param"
			for n := 2; keys[g+" "+opname.Key(gn)] > 0 || reservedGo(opname.Key(gn)); n++ {
				gn = fmt.Sprintf("%sParam%d", goName(name), n)
			}
			keys[g+" "+opname.Key(gn)]++
			seen[g+" "+opname.Key(gn)] = true
			renamed := maps.Clone(q.prm)
			renamed["x-go-name"] = gn
			base := "/paths/" + jsonpointer.Escape(path) + "/" + method + "/parameters"
			if q.index < 0 {
				op["parameters"] = append(list(op["parameters"]), renamed)
				p.note(base, "%s (in %s) copied from the path item, x-go-name %s", name, q.prm["in"], gn)
				continue
			}
			list(op["parameters"])[q.index] = renamed
			p.note(base+"/"+strconv.Itoa(q.index), "%s (in %s): x-go-name %s", name, q.prm["in"], gn)
		}
	})
}

// goNameOf is a parameter's Go name as given: its x-go-name, else its name.
func goNameOf(prm map[string]any) string {
	if n, ok := prm["x-go-name"].(string); ok {
		return n
	}
	n, _ := prm["name"].(string)
	return n
}

// reservedGo reports whether a Go argument whose name has the key k (as
// opname.Key) would clash in generated code: a predeclared identifier, a
// package gen imports or may import, or a receiver, argument or local
// variable of the generated client and request builders (read from
// oapi-codegen v2.8.2's client.tmpl and client-with-responses.tmpl).
func reservedGo(k string) bool {
	return reserved[k] || numbered.MatchString(k)
}

var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`
		any append bool byte cap clear close comparable complex complex64 complex128 copy delete error false float32
		float64 imag int int8 int16 int32 int64 iota len make max min new nil panic print println real recover rune
		string true uint uint8 uint16 uint32 uint64 uintptr
		base64 bytes context errors flate fmt gen http io json mime multipart nullable openapi3 openapi_types os
		path runtime strings time url xml yaml
		a additionalEditors baseURL body bodyBytes bodyReader bodyStr buf c client contentType ctx dest doer e
		encoded err fn headers newBaseURL o operationPath opts params qp queryFrag queryParamBuf queryURL
		queryValues r rawQueryFragments req reqEditors response rsp server serverURL stringer t value values`) {
		m[opname.Key(s)] = true
	}
	return m
}()

// numbered matches the keys of the generated request builders' numbered
// locals (pathParam0, headerParamBuf1, cookie2, ...).
var numbered = regexp.MustCompile(`^(pathparam|pathparambuf|headerparam|headerparambuf|cookieparam|cookieparambuf|cookie)\d+$`)

// operationGoNames: oapi-codegen names a client method after its
// operationId, so two operationIds that differ only in case or separators
// (get_foo and getFoo, foo-bar and foo_bar) declare one method twice
// ("method Client.GetFoo already declared"), as does one named like a field
// of the generated Client (server, client, request_editors) or like
// another's <operation>WithBody method. The later operation, in path order,
// gets its operationId and a number (getFoo2); an operationId is not on the
// wire.
func operationGoNames(p *prep) {
	taken := map[string]bool{"server": true, "client": true, "requesteditors": true}
	forOperations(p.doc, func(op map[string]any, method, path string) {
		id, _ := op["operationId"].(string)
		if id == "" {
			return
		}
		claims := func(id string) []string {
			if op["requestBody"] != nil {
				return []string{opname.Key(id), opname.Key(id) + "withbody"}
			}
			return []string{opname.Key(id)}
		}
		name := id
		for n := 2; slices.ContainsFunc(claims(name), func(k string) bool { return taken[k] }); n++ {
			name = id + strconv.Itoa(n)
		}
		for _, k := range claims(name) {
			taken[k] = true
		}
		if name != id {
			op["operationId"] = name
			p.note("/paths/"+jsonpointer.Escape(path)+"/"+method+"/operationId", "%s -> %s, another operation has its Go name", id, name)
		}
	})
}

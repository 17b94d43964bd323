package tensorpool

import (
	"strings"
)

// operation is one operation of the spec, as scripts/genops read it from
// the generated code and the spec (operations.gen.go).
type operation struct {
	method, path string           // "DELETE", "/storage/{storage_id}"
	params       []string         // the path parameters' names, in the order of the method's arguments
	statuses     map[int]declared // the 2xx statuses the spec declares, and their body
	other2xx     declared         // any other 2xx: as "2XX" declares it, or "default" where no 2xx is declared
}

// declared is how an operation declares a 2xx status.
type declared uint8

const (
	notDeclared declared = iota // not a success of the operation
	anyBody                     // a success whose body is not JSON, or that has none: not checked
	someJSON                    // a success whose body may be JSON: one labelled JSON must be JSON
	jsonBody                    // a success whose body is JSON and nothing else
)

// success returns how op declares the 2xx status code. Of an unknown
// operation (nil), a body labelled JSON must be JSON.
func (op *operation) success(code int) declared {
	if op == nil {
		return someJSON
	}
	if d, ok := op.statuses[code]; ok {
		return d
	}
	return op.other2xx
}

// operationAt returns the method and path of an operation whose path ends
// the base URL's path p, or "": a base URL that names an operation
// ("https://engine.tensorpool.dev/storage/attach") would send every call
// to a path that does not exist. A path with parameters counts only with
// two literal segments or more: a gateway's prefix ("/storage/eu") may
// look like "/storage/{storage_id}".
func operationAt(p string) string {
	got := strings.Split(strings.Trim(p, "/"), "/")
	best, most := "", 0
	for _, op := range operations {
		want := strings.Split(strings.Trim(op.path, "/"), "/")
		literal := 0
		for _, s := range want {
			if !strings.Contains(s, "{") {
				literal++
			}
		}
		// the most segments, then the most literal ones
		if score := len(want)*64 + literal; len(want) <= len(got) && literal >= min(2, len(want)) && want[0] != "" &&
			score > most && fits(want, got[len(got)-len(want):]) {
			best, most = op.method+" "+op.path, score
		}
	}
	return best
}

// fits reports whether the segments got are an instance of the template's
// segments want: each literal as is, each parameter's value not empty.
func fits(want, got []string) bool {
	for i, w := range want {
		pre, rest, param := strings.Cut(w, "{")
		_, suf, _ := strings.Cut(rest, "}")
		if !param && w != got[i] || param && (len(got[i]) <= len(pre)+len(suf) || !strings.HasPrefix(got[i], pre) || !strings.HasSuffix(got[i], suf)) {
			return false
		}
	}
	return true
}

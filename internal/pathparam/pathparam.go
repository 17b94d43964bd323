// Package pathparam holds the one rule for a path parameter's value, shared
// by package tensorpool's client (every path parameter) and package wait
// (request ids): a value the generated request builders would resolve to
// another route, or that a server decoding %2F before routing would split,
// is refused before anything is sent.
package pathparam

import (
	"strings"
	"unicode"
)

// Invalid returns why v cannot be sent as a path parameter, or "" if it can:
// empty, "." or ".." (dot segments: net/url resolves them away, so the
// request would address another path), '/' or '\' (a server that decodes
// them before routing sees more segments), or a control character.
func Invalid(v string) string {
	switch {
	case v == "":
		return "is empty"
	case v == "." || v == "..":
		return "is " + `"` + v + `"` + ", which would address another path"
	case strings.ContainsAny(v, `/\`):
		return `contains '/' or '\'`
	case strings.ContainsFunc(v, unicode.IsControl):
		return "contains a control character"
	}
	return ""
}

// Package mediatype holds the one rule this module uses to tell whether a
// response is JSON (the generated parsers' own) and to name a media type.
package mediatype

import (
	"net/http"
	"strings"
)

// IsJSON reports whether the generated parsers (gen/) decode a body with
// this Content-Type as JSON: they look for "json", case-sensitively.
func IsJSON(contentType string) bool { return strings.Contains(contentType, "json") }

// Essence is a Content-Type's media type without its parameters, trimmed
// and in lower case: the key under which genops stores a body's schema and
// the root package looks it up, so both must use it.
func Essence(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// Normalize returns h with the media type of its Content-Type in lower case
// (parameters untouched), so that "Application/JSON", which media types
// allow, is decoded by the generated parsers as JSON. h is returned as is
// when nothing changes, else a clone: the caller's header is never written.
func Normalize(h http.Header) http.Header {
	ct := h.Get("Content-Type")
	if mt, _, _ := strings.Cut(ct, ";"); strings.ToLower(mt) != mt {
		h = h.Clone()
		h.Set("Content-Type", strings.ToLower(mt)+ct[len(mt):])
	}
	return h
}

package mediatype

import (
	"net/http"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"application/json", "application/json"},
		{"Application/JSON", "application/json"},
		{"Application/JSON; charset=UTF-8", "application/json; charset=UTF-8"},
		{"TEXT/plain;", "text/plain;"},
		{"", ""},
	} {
		h := http.Header{}
		if tc.in != "" {
			h.Set("Content-Type", tc.in)
		}
		got := Normalize(h)
		if ct := got.Get("Content-Type"); ct != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, ct, tc.want)
		}
		if h.Get("Content-Type") != tc.in {
			t.Errorf("Normalize(%q) changed the caller's header to %q", tc.in, h.Get("Content-Type"))
		}
	}
}

// TestIsJSON: the generated parsers' rule, case-sensitive, which is why
// Normalize runs first.
func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json": true, "application/problem+json": true, "application/json; charset=utf-8": true,
		"Application/JSON": false, "text/plain": false, "": false,
	} {
		if IsJSON(ct) != want {
			t.Errorf("IsJSON(%q) = %v, want %v", ct, !want, want)
		}
	}
}

// TestEssence: the key genops stores a body's schema under and the root
// package looks it up by.
func TestEssence(t *testing.T) {
	for in, want := range map[string]string{
		"application/json": "application/json", " Application/JSON ; charset=utf-8": "application/json",
		"application/vnd.api+json;v=2": "application/vnd.api+json", "": "",
	} {
		if got := Essence(in); got != want {
			t.Errorf("Essence(%q) = %q, want %q", in, got, want)
		}
	}
}

package keyredact

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact: on any text, the rule never panics, keeps valid UTF-8 valid,
// keeps valid JSON valid, and leaves no form of a key shaped like
// TensorPool's (lower case: no overlap with "[REDACTED]") in what it returns.
func FuzzRedact(f *testing.F) {
	f.Add("tp-abcdef12", `{"k":"tp-abcdef12"}`)
	f.Add("tp-abcdef12", `{"k":"tp\u002dabcdef12","p":"/x/tp-abcdef12"}`)
	f.Add("tp-a b/c", "q=tp-a+b%2Fc&p=tp-a%20b%2Fc")
	f.Add("tp-abcdef12", `"tp-abc`)
	f.Fuzz(func(t *testing.T, key, s string) {
		key = "tp-" + strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == ' ' || r == '/' {
				return r
			}
			return -1
		}, key)
		if len(key) < 8 {
			return
		}
		text, data, value := New(key)
		for name, out := range map[string]string{"text": text(s), "data": string(data([]byte(s))), "value": value(s)} {
			for _, form := range []string{key, url.PathEscape(key), url.QueryEscape(key)} {
				if strings.Contains(out, form) {
					t.Fatalf("%s(%q) = %q: holds %q", name, s, out, form)
				}
			}
			if utf8.ValidString(s) && !utf8.ValidString(out) || json.Valid([]byte(s)) && !json.Valid([]byte(out)) {
				t.Fatalf("%s(%q) = %q: no longer valid", name, s, out)
			}
		}
	})
}

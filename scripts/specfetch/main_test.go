package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func vendored(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The vendored file is already in normal form, and the compact form that a
// server sends normalises back to it byte for byte.
func TestNormalizeRoundTripsTheVendoredSpec(t *testing.T) {
	want := vendored(t)
	for name, in := range map[string][]byte{"vendored": want, "compact": compact(t, want)} {
		got, err := Normalize(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Normalize does not reproduce openapi.json's formatting", name)
		}
	}
}

func TestNormalizeKeepsOrderNumbersAndText(t *testing.T) {
	in := `{"z":1.50,"a":{"é":"x\u0001\"\\\n<&>","e":[],"o":{}},"m":[true,false,null,1e3]}`
	want := `{
  "z": 1.50,
  "a": {
    "é": "x\u0001\"\\\n<&>",
    "e": [],
    "o": {}
  },
  "m": [
    true,
    false,
    null,
    1e3
  ]
}
`
	got, err := Normalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("Normalize:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunRefusesWhatIsNotOpenAPI3(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"html":     "<html>502 Bad Gateway</html>",
		"swagger2": `{"swagger":"2.0","paths":{}}`,
		"trailing": `{"openapi":"3.1.0"} {}`,
	} {
		src := filepath.Join(dir, name)
		if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := run(src, filepath.Join(dir, "out"), time.Second); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func compact(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

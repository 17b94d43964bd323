// Command specfetch reads an OpenAPI document from a URL or a file and writes
// it as the vendored openapi.json is formatted, by Python's json.dumps(doc,
// indent=2, ensure_ascii=False) for FastAPI's schema: keys in the source's
// order (a diff against upstream stays readable), numbers as written,
// non-ASCII text as UTF-8 and a trailing newline.
//
//	go run ./scripts/specfetch -o openapi.json https://engine.tensorpool.dev/openapi.json
//	go run ./scripts/specfetch -o openapi.json ./downloaded.json
//
// `make update-spec` drives it; it only fetches and formats, it never judges
// the document beyond "is it JSON with an openapi 3.x version".
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "", "write the normalised document to this file (default: standard output)")
	timeout := flag.Duration("timeout", time.Minute, "give up fetching a URL after this long")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: specfetch [-o file] <url or file>")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "specfetch:", err)
		os.Exit(1)
	}
}

func run(src, out string, timeout time.Duration) error {
	raw, err := fetch(src, timeout)
	if err != nil {
		return err
	}
	doc, err := Normalize(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	var head struct{ OpenAPI string } // not an HTML error page, nor Swagger 2
	if json.Unmarshal(doc, &head) != nil || !strings.HasPrefix(head.OpenAPI, "3.") {
		return fmt.Errorf("%s: not an OpenAPI 3 document (openapi: %q)", src, head.OpenAPI)
	}
	if out == "" {
		_, err = os.Stdout.Write(doc)
		return err
	}
	return os.WriteFile(out, doc, 0o644)
}

func fetch(src string, timeout time.Duration) ([]byte, error) {
	if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
		return os.ReadFile(strings.TrimPrefix(src, "file://"))
	}
	req, err := http.NewRequest(http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", src, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", src, resp.Status)
	}
	return body, nil
}

// Normalize re-indents one JSON value with two spaces (json.Indent keeps
// key order and numbers as written), writes each string as Python's
// json.dumps(ensure_ascii=False) does, and appends a newline.
func Normalize(src []byte) ([]byte, error) {
	var w bytes.Buffer
	if err := json.Indent(&w, bytes.TrimRight(src, " \t\r\n"), "", "  "); err != nil {
		return nil, err
	}
	out := jsonString.ReplaceAllFunc(w.Bytes(), func(q []byte) []byte {
		var s string
		json.Unmarshal(q, &s) // valid: json.Indent checked it
		return []byte(`"` + pyEscapes.Replace(s) + `"`)
	})
	return append(out, '\n'), nil
}

// jsonString matches a string of valid JSON.
var jsonString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// pyEscapes are json.dumps(ensure_ascii=False)'s: the quote, the backslash
// and the control characters; the rest of the text is written as UTF-8.
var pyEscapes = func() *strings.Replacer {
	pairs := []string{`"`, `\"`, `\`, `\\`, "\b", `\b`, "\f", `\f`, "\n", `\n`, "\r", `\r`, "\t", `\t`}
	for c := range rune(0x20) {
		pairs = append(pairs, string(c), fmt.Sprintf(`\u%04x`, c)) // after \b to \t: the first pair for a character wins
	}
	return strings.NewReplacer(pairs...)
}()

// Command specfetch reads an OpenAPI document from a URL or a file and writes
// it in the vendored openapi.json formatting: two-space indentation, keys in
// the order the source gives them (never re-sorted, so a diff against the
// upstream file stays readable), numbers as written, non-ASCII text as UTF-8
// and a trailing newline. That is what Python's json.dumps(doc, indent=2,
// ensure_ascii=False) writes for FastAPI's schema, so the vendored file
// round-trips byte for byte.
//
//	go run ./scripts/specfetch -o openapi.json https://engine.tensorpool.dev/openapi.json
//	go run ./scripts/specfetch -o openapi.json ./downloaded.json
//
// `make update-spec` drives it; it only fetches and formats, it never judges
// the document beyond "is it JSON with an openapi 3.x version".
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"
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
	if err := checkOpenAPI3(doc); err != nil {
		return fmt.Errorf("%s: %w", src, err)
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
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "tensorpool-go-specfetch")
	resp, err := http.DefaultClient.Do(req)
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

// checkOpenAPI3 refuses what is obviously not an OpenAPI 3 document (an HTML
// error page, a Swagger 2 file), before it replaces the vendored spec.
func checkOpenAPI3(doc []byte) error {
	var head struct {
		OpenAPI string          `json:"openapi"`
		Paths   json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if !strings.HasPrefix(head.OpenAPI, "3.") {
		return fmt.Errorf("not an OpenAPI 3 document (openapi: %q)", head.OpenAPI)
	}
	return nil
}

// Normalize re-indents one JSON value with two spaces, keeping object keys in
// their source order and numbers as written, and appends a newline.
func Normalize(src []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var w bytes.Buffer
	if err := writeValue(dec, &w, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON document")
	}
	w.WriteByte('\n')
	return w.Bytes(), nil
}

func writeValue(dec *json.Decoder, w *bytes.Buffer, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		isObject := t == '{'
		if !dec.More() { // empty: {} or [], as json.dumps writes them
			if _, err := dec.Token(); err != nil {
				return err
			}
			w.WriteString(map[bool]string{true: "{}", false: "[]"}[isObject])
			return nil
		}
		w.WriteString(string(t))
		for first := true; dec.More(); first = false {
			if !first {
				w.WriteByte(',')
			}
			newline(w, depth+1)
			if isObject {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				writeString(w, key.(string))
				w.WriteString(": ")
			}
			if err := writeValue(dec, w, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		newline(w, depth)
		w.WriteString(map[bool]string{true: "}", false: "]"}[isObject])
	case string:
		writeString(w, t)
	case json.Number:
		w.WriteString(t.String())
	case bool:
		w.WriteString(map[bool]string{true: "true", false: "false"}[t])
	case nil:
		w.WriteString("null")
	default:
		return fmt.Errorf("unexpected JSON token %v", tok)
	}
	return nil
}

func newline(w *bytes.Buffer, depth int) {
	w.WriteByte('\n')
	for range depth {
		w.WriteString("  ")
	}
}

// writeString quotes s as Python's json.dumps(ensure_ascii=False) does:
// only the quote, the backslash and control characters are escaped.
func writeString(w *bytes.Buffer, s string) {
	w.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			w.WriteString(`\"`)
		case '\\':
			w.WriteString(`\\`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(w, `\u%04x`, r)
			} else {
				var buf [utf8.UTFMax]byte
				w.Write(buf[:utf8.EncodeRune(buf[:], r)])
			}
		}
	}
	w.WriteByte('"')
}

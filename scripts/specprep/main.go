// Command specprep is the one step between the vendored openapi.json,
// byte for byte upstream's, and oapi-codegen: it writes a prepared copy of
// the document, runs the generator on it, and removes it. `go generate
// ./gen` runs
//
//	go run ../scripts/specprep ../openapi.json -- <generator command>
//
// with the copy's path appended to the command. Each rule (rules.go) works
// around one limitation of oapi-codegen v2.8.2, named with its upstream
// issue, and is wire-neutral: it writes x-go-* extensions, which the wire
// never sees, moves an inline schema into components, states a
// discriminator's mapping that its branches already imply, or names a
// path parameter as its template does (internal/specgrowth checks each
// with oasdiff). Every change is printed
// on standard error, one line each: rule, JSON pointer, what.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

func main() {
	args := os.Args[1:]
	project := len(args) == 0 || args[0] != "-generic" // -generic: no project edits, for a document that is not ours
	if !project {
		args = args[1:]
	}
	if i := slices.Index(args, "--"); i != 1 || len(args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: specprep [-generic] <openapi.json> -- <generator command>  (or: ... -- -o <prepared.json>)")
		os.Exit(2)
	}
	if err := run(args[0], args[2:], project); err != nil {
		fmt.Fprintln(os.Stderr, "specprep:", err)
		os.Exit(1)
	}
}

func run(in string, command []string, project bool) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	out, changes, err := prepare(data, project)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	for _, c := range changes {
		fmt.Fprintln(os.Stderr, "specprep:", c)
	}
	if command[0] == "-o" && len(command) == 2 { // the prepared document itself, for oasdiff
		return os.WriteFile(command[1], out, 0o644)
	}
	dir, err := os.MkdirTemp("", "specprep")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prepared := filepath.Join(dir, filepath.Base(in))
	if err := os.WriteFile(prepared, out, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(command[0], append(command[1:], prepared)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the generator failed on the prepared document: %w", err)
	}
	return nil
}

// prepare applies every rule (but the project's edits unless project) to
// the document data and returns the prepared document, deterministic for
// given data (keys sorted), and the changes.
func prepare(data []byte, project bool) ([]byte, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers written back as read
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, err
	}
	p := &prep{doc: doc, taken: map[string]bool{}}
	for name := range jsondoc.Get(doc, "components", "schemas") {
		p.taken[strings.ToLower(goName(name))] = true
	}
	for _, r := range rules {
		if r.name == projectRule && !project {
			continue
		}
		if err := r.apply(p); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", r.name, err)
		}
		for _, c := range p.changes[len(p.report):] {
			p.report = append(p.report, r.name+" ("+r.issue+")\t"+c)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(p.doc)
	return b.Bytes(), p.report, err
}

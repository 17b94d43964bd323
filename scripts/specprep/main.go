// Command specprep is the one step between the vendored openapi.json, byte
// for byte upstream's, and oapi-codegen: it writes a prepared copy of the
// document, runs the generator with the copy's path appended, and removes
// it. `go generate ./gen` runs
//
//	go run ../scripts/specprep ../openapi.json -- <generator command>
//
// Each rule (rules.go, names.go) works around one limitation of oapi-codegen
// v2.8.2 and is wire-neutral (internal/specgrowth checks each with oasdiff):
// it writes x-go-* extensions, moves an inline schema into components, states
// a discriminator mapping that the branches imply, names a path parameter as
// its template does, renames an operationId, gives an allOf's inline member
// the readOnly its allOf has, or drops the webhooks, which a client never
// sends. Each change is a line on standard error: rule, JSON pointer, what.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

func main() {
	args := os.Args[1:]
	project := len(args) == 0 || args[0] != "-generic" // -generic: no project edits, for a document that is not ours
	if !project {
		args = args[1:]
	}
	if len(args) < 3 || args[1] != "--" {
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
		p.rule = r.name + " (" + r.issue + ")"
		if r.apply(p); p.err != nil {
			return nil, nil, fmt.Errorf("%s: %w", r.name, p.err)
		}
	}
	out, err := json.MarshalIndent(p.doc, "", "  ")
	return out, p.report, err
}

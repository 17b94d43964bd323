// Command specmerge merges the operations of the vendored openapi.json
// (TensorPool's) into another OpenAPI document, JSON or YAML, and writes
// the result as JSON: testdata/specs holds real public documents, and
// `make check-specs` runs the whole pipeline on each of them merged so
// (internal/specgrowth).
//
//	go run ./scripts/specmerge -o merged.json testdata/specs/airflow.yaml
//
// The seed's paths are added (a path the document has already is an
// error); its components (schemas, security schemes) win over the
// document's of the same name, which the seed operations and this module's
// code rely on. Into a 3.0 document, the seed's 3.1 nullables
// (anyOf [X, {type: null}]) are written as 3.0's nullable: true.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/oasdiff/yaml"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

func main() {
	out := flag.String("o", "", "write the merged document here (default: standard output)")
	seed := flag.String("seed", "openapi.json", "the document whose operations are merged in")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: specmerge [-o file] [-seed openapi.json] <document>")
		os.Exit(2)
	}
	b, err := merge(flag.Arg(0), *seed)
	if err == nil && *out != "" {
		err = os.WriteFile(*out, b, 0o644)
	} else if err == nil {
		_, err = os.Stdout.Write(b)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "specmerge:", err)
		os.Exit(1)
	}
}

func merge(docFile, seedFile string) ([]byte, error) {
	var doc, seed map[string]any
	for _, in := range []struct {
		file string
		v    *map[string]any
	}{{docFile, &doc}, {seedFile, &seed}} {
		file, v := in.file, in.v
		b, err := os.ReadFile(file)
		if err == nil {
			b, err = yaml.YAMLToJSON(b) // JSON is YAML too
		}
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	version, _ := doc["openapi"].(string)
	if !strings.HasPrefix(version, "3.") {
		return nil, fmt.Errorf("%s: openapi %q, want 3.x", docFile, version)
	}
	add := func(from, to map[string]any, clash func(string) error) error {
		for _, name := range slices.Sorted(maps.Keys(from)) {
			if old, ok := to[name]; ok && !reflect.DeepEqual(old, from[name]) {
				if err := clash(name); err != nil {
					return err
				}
			}
			to[name] = from[name]
		}
		return nil
	}
	err := add(jsondoc.Obj(seed, "paths"), jsondoc.Obj(doc, "paths"), func(p string) error {
		return fmt.Errorf("%s has %s already", docFile, p)
	})
	for _, section := range []string{"schemas", "securitySchemes"} {
		if err == nil {
			err = add(jsondoc.Obj(seed, "components", section), jsondoc.Obj(doc, "components", section), func(name string) error {
				fmt.Fprintf(os.Stderr, "specmerge: %s: the seed's components.%s.%s replaces the document's\n", docFile, section, name)
				return nil
			})
		}
	}
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(version, "3.0") {
		for _, p := range slices.Collect(maps.Keys(jsondoc.Obj(seed, "paths"))) {
			jsondoc.Nullable30(jsondoc.Obj(doc, "paths")[p])
		}
		for _, name := range slices.Collect(maps.Keys(jsondoc.Obj(seed, "components", "schemas"))) {
			jsondoc.Nullable30(jsondoc.Obj(doc, "components", "schemas")[name])
		}
	}
	return json.MarshalIndent(doc, "", "  ")
}

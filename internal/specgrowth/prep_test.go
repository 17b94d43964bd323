package specgrowth

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// prepDocs are the minimal documents of testdata/prep, each of which
// oapi-codegen v2.8.2 refuses, or turns into code a caller cannot use,
// without scripts/specprep; and what the generated code must then have.
var prepDocs = map[string][]string{
	"discriminator-inline-branches":              {`func (t Pet) AsPetCat() (PetCat, error)`, `func (t Pet) ValueByDiscriminator() (interface{}, error)`},
	"discriminator-inline-branches-with-mapping": {`func (t Pet) AsPetDog() (PetDog, error)`, `func (t Pet) ValueByDiscriminator() (interface{}, error)`},
	"discriminator-inline-branches-no-const":     {`type Pet struct {`},
	"discriminator-mapping-schema-names":         {`case "cat":`, `func (t *Pet) FromCat(v Cat) error`},
	"discriminator-implicit-mapping":             {`case "dog":`},
	"discriminator-inline-nested-nullable":       {`Pet *OwnerPet `, `func (t OwnerPet) ValueByDiscriminator() (interface{}, error)`},
	"overlay-yaml-roundtrip":                     {`GetRequestInfo(ctx context.Context, requestID string`, `Loc []any `},
	"parameter-union":                            {`GetItem(ctx context.Context, itemID string, params *GetItemParams`, `Tags []string `},
	"parameter-untyped":                          {`GetThing(ctx context.Context, thingID string`},
	"multi-type":                                 {`V any `, `GetValue(ctx context.Context, key string`},
	"operation-names-go-collision":               {`ListItemsItemsGet(ctx context.Context`, `ListItems(ctx context.Context`, `GetItem(ctx context.Context, itemID string`},
	"nullable-union":                             {`Pet *OwnerPet `, `func (t OwnerPet) AsCat() (Cat, error)`, `type MaybePet = MaybePet2`},
	"path-parameters-paired-by-name":             {`GetCertificate(ctx context.Context, certificateID string, params *GetCertificateParams`, `DeleteCertificate(ctx context.Context, certificateID string`, `GetPart(ctx context.Context, projectID string, partID string`},
}

// callEveryMethod is a test run in the module of each generated client: it
// calls every method of *Client, with zero arguments and placeholder
// strings, against a server that answers {}; a method that panics (an
// unusable parameter type) fails, named.
const callEveryMethod = `package gen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestEveryMethodIsCallable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	c, err := NewClientWithResponses(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(c)
	for i := range v.NumMethod() {
		m := v.Type().Method(i)
		t.Run(m.Name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", m.Name, r)
				}
			}()
			args := []reflect.Value{reflect.ValueOf(context.Background())}
			for j := 2; j < m.Type.NumIn(); j++ {
				in := m.Type.In(j)
				switch {
				case m.Type.IsVariadic() && j == m.Type.NumIn()-1:
				case in.Kind() == reflect.String:
					args = append(args, reflect.ValueOf("p").Convert(in))
				default:
					args = append(args, reflect.New(in).Elem())
				}
			}
			if out := m.Func.Call(append([]reflect.Value{v}, args...)); len(out) == 2 && !out[1].IsNil() {
				t.Logf("%s: %v", m.Name, out[1].Interface())
			}
		})
	}
}
`

// TestPreparedDocumentsGenerate: each minimal document of testdata/prep,
// prepared, generates with the pinned oapi-codegen and this project's
// configuration, builds, has the Go the case needs (a usable union, a
// string parameter), and every client method can be called.
func TestPreparedDocumentsGenerate(t *testing.T) {
	onlyInCheckSpecs(t)
	root := repoRoot(t)
	goMod := "module prepcheck\n\ngo 1.25.0\n\nrequire github.com/oapi-codegen/runtime v1.8.0\n"
	for name, wants := range prepDocs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for file, content := range map[string]string{"go.mod": goMod, "go.sum": string(readFile(t, filepath.Join(root, "go.sum"))),
				"gen/call_test.go": callEveryMethod} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := regexp.MustCompile(`(?m)^output: .*$`).ReplaceAllString(string(readFile(t, filepath.Join(root, "oapi-codegen.yaml"))),
				"output: "+filepath.Join(dir, "gen", "client.gen.go"))
			if err := os.WriteFile(filepath.Join(dir, "oapi-codegen.yaml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"run", "../scripts/specprep"}
			if name != "overlay-yaml-roundtrip" {
				args = append(args, "-generic")
			}
			mustRun(t, filepath.Join(root, "gen"), nil, "go", append(args, filepath.Join(root, "testdata", "prep", name+".json"), "--",
				"go", "run", "-modfile=../tools/go.mod", "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen", "-config", filepath.Join(dir, "oapi-codegen.yaml"))...)
			code := string(readFile(t, filepath.Join(dir, "gen", "client.gen.go")))
			for _, want := range wants { // gofmt aligns fields: any run of blanks for a blank
				if !regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(want), " ", `\s+`)).MatchString(code) {
					t.Errorf("the generated code lacks %q", want)
				}
			}
			mustRun(t, dir, []string{"GOFLAGS=-mod=mod"}, "go", "test", "-count=1", "./...")
		})
	}
}

// prepNonWire are the only changes oasdiff may report between a document
// and its prepared copy: names and discriminator mappings, which the wire
// never carries (a mapping the prepared copy adds restates what the
// branches require; one it drops leaves a union that still takes every
// branch).
var prepNonWire = regexp.MustCompile(`^(api-operation-id-(added|removed)|.*-discriminator-(mapping-(added|changed|deleted|removed)|removed))$`)

// pathParamName matches oasdiff's report of a path parameter declared or
// dropped: the operation's path, and the parameter.
var pathParamName = regexp.MustCompile("in API [A-Z]+ (\\S+) (?:added the new path request parameter|deleted the `path` request parameter) `([^`]+)`")

// nameOnly reports whether an oasdiff change is a path parameter's name
// alone: one declared that the path's template has, or one dropped that it
// has not. The template is what goes on the wire, and it is unchanged.
func nameOnly(change string) bool {
	m := pathParamName.FindStringSubmatch(change)
	if m == nil {
		return false
	}
	inTemplate := strings.Contains(m[1], "{"+m[2]+"}")
	return strings.Contains(change, "added the new") == inTemplate
}

// TestPreparationIsWireNeutral: for openapi.json and each document of
// testdata/prep, oasdiff finds no change between the document and its
// prepared copy but prepNonWire's and path parameters' names (nameOnly),
// and no breaking change but the latter.
func TestPreparationIsWireNeutral(t *testing.T) {
	onlyInCheckSpecs(t)
	root := repoRoot(t)
	docs := []string{filepath.Join(root, "openapi.json")}
	for name := range prepDocs {
		docs = append(docs, filepath.Join(root, "testdata", "prep", name+".json"))
	}
	for _, doc := range docs {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			t.Parallel()
			prepared := filepath.Join(t.TempDir(), "prepared.json")
			args := []string{"run", "./scripts/specprep", doc, "--", "-o", prepared}
			if strings.Contains(doc, "testdata") && !strings.Contains(doc, "overlay-yaml-roundtrip") {
				args = append(args[:2], append([]string{"-generic"}, args[2:]...)...)
			}
			mustRun(t, root, nil, "go", args...)
			oasdiff := func(cmd string) string {
				return mustRun(t, root, nil, "go", "-C", "tools/oasdiff", "run", "github.com/oasdiff/oasdiff", cmd,
					"--color", "never", "-f", "singleline", doc, prepared)
			}
			change := regexp.MustCompile(`(?m)^(error|warning|info) at .*\[([a-z0-9-]+)\]`)
			for _, c := range change.FindAllString(oasdiff("breaking"), -1) {
				if !nameOnly(c) {
					t.Errorf("oasdiff breaking: %s", c)
				}
			}
			for _, c := range change.FindAllStringSubmatch(oasdiff("changelog"), -1) {
				if !prepNonWire.MatchString(c[2]) && !nameOnly(c[0]) {
					t.Errorf("a change that is neither prepNonWire's nor a path parameter's name: %s", c[0])
				}
			}
		})
	}
}

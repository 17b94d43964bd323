package specgrowth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
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
	"webhooks-components":                        {`GetItem(ctx context.Context, itemID string`},
	"all-of-read-only":                           {`Stamp *struct {`, `Signed *struct {`},
	"enum-constants-named-like-types":            {`ThingTypeABValue ThingType = "a_b"`, `ThingTypeD ThingType = "d"`, `type ThingTypeAB struct {`},
	"any-of-branch-items":                        {`type ReportRequestInclude0 = []string`, `CreateExportWithFormdataBody(ctx context.Context`},
	"parameter-go-names":                         {`GetByCtx(ctx context.Context, ctxParam string`, `GetByURL(ctx context.Context, urlParam string`, `ABParam *string`, `GetStorage(ctx context.Context, storageID string, storageIDParam string`},
	"operation-go-names":                         {`GetFoo2(ctx context.Context`, `FooBar2(ctx context.Context`, `Server2(ctx context.Context`, `CreateItemWithBody2(ctx context.Context`},
	"path-parameters-paired-by-name":             {`GetCertificate(ctx context.Context, certificateID string, params *GetCertificateParams`, `DeleteCertificate(ctx context.Context, certificateID string`, `GetPart(ctx context.Context, projectID string, partID string`},
}

// throughTheClient is a test written into each repository copy of
// TestPreparedDocumentsThroughTheClient: it calls every method of
// tensorpool.NewClient's client, with
// placeholder arguments, against the engine serving the vendored document
// on a loopback server,
// and fails unless each operation named in $PREPCALL_OPS was reached (the
// engine counts the requests that reach an operation: its route, so the
// generated request builder wrote its path) and each call ended in nil or
// the engine's answer (an *APIError), not in an error of the client's own.
const throughTheClient = `package prepcall_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

func TestEveryOperationThroughNewClient(t *testing.T) {
	// The engine's answer to a placeholder body may be a status the document
	// does not declare (a 422): a violation of the engine's, not the client's.
	e := tensorpooltest.New(tensorpooltest.WithViolationHandler(func(v tensorpooltest.Violation) { t.Log(v) }))
	srv := httptest.NewServer(e)
	defer srv.Close()
	client, err := tensorpool.NewClient(tensorpool.WithAPIKey(e.APIKey()), tensorpool.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ops := strings.Split(os.Getenv("PREPCALL_OPS"), "\n")
	reached := func() (n int) {
		for _, op := range ops {
			n += e.Calls(op)
		}
		return n
	}
	c := reflect.ValueOf(client)
	for i := range c.NumMethod() {
		m := c.Type().Method(i)
		if !strings.HasSuffix(m.Name, "WithResponse") || strings.HasSuffix(m.Name, "WithBodyWithResponse") {
			continue // the typed-body variant stands for its operation
		}
		args := []reflect.Value{c, reflect.ValueOf(context.Background())}
		for j := 2; j < m.Type.NumIn(); j++ {
			switch in := m.Type.In(j); {
			case m.Type.IsVariadic() && j == m.Type.NumIn()-1:
			case in.Kind() == reflect.String:
				args = append(args, reflect.ValueOf("p").Convert(in))
			default:
				args = append(args, reflect.New(in).Elem())
			}
		}
		before := reached()
		err, _ := m.Func.Call(args)[1].Interface().(error)
		switch apiErr := (*tensorpool.APIError)(nil); {
		case reached() == before: // one of the seed's, refused for its placeholders
			t.Logf("%s: %v", m.Name, err)
		case err != nil && !errors.As(err, &apiErr):
			t.Errorf("%s: %v", m.Name, err)
		}
	}
	for _, op := range ops {
		if e.Calls(op) == 0 {
			t.Errorf("no call reached %s", op)
		}
	}
}
`

// TestPreparedDocumentsThroughTheClient: each minimal document of
// testdata/prep, merged with openapi.json's operations (merge) and vendored
// as openapi.json in a copy of the repository, regenerates (make generate:
// specprep, the pinned oapi-codegen, genops), has the Go its case needs (a
// usable union, a string parameter), builds and vets, and each operation it
// adds is called through tensorpool.NewClient against the engine
// (throughTheClient). overlay-yaml-roundtrip is the seed's own operation:
// the project's tests call it so.
func TestPreparedDocumentsThroughTheClient(t *testing.T) {
	onlyInCheckSpecs(t)
	root := repoRoot(t)
	for name, wants := range prepDocs {
		if name == "overlay-yaml-roundtrip" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := filepath.Join(root, "testdata", "prep", name+".json")
			merged, err := merge(doc, filepath.Join(root, "openapi.json"))
			if err != nil {
				t.Fatal(err)
			}
			var spec map[string]any
			if err := json.Unmarshal(readFile(t, doc), &spec); err != nil {
				t.Fatal(err)
			}
			var ops []string // the document's own, as "METHOD /path"
			for path, item := range jsondoc.Get(spec, "paths") {
				for method := range item.(map[string]any) {
					if method != "parameters" {
						ops = append(ops, strings.ToUpper(method)+" "+path)
					}
				}
			}
			dir := copyRepo(t)
			for file, content := range map[string][]byte{"openapi.json": merged, "internal/prepcall/call_test.go": []byte(throughTheClient)} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, file), content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			mustRun(t, dir, nil, "make", "generate")
			code := string(readFile(t, filepath.Join(dir, "gen", "tensorpool.gen.go")))
			for _, want := range wants { // gofmt aligns fields: any run of blanks for a blank
				if !regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(want), " ", `\s+`)).MatchString(code) {
					t.Errorf("the generated code lacks %q", want)
				}
			}
			mustRun(t, dir, nil, "go", "build", "./...")
			mustRun(t, dir, nil, "go", "vet", "./gen/...", ".", "./internal/prepcall")
			mustRun(t, dir, []string{"PREPCALL_OPS=" + strings.Join(ops, "\n")}, "go", "test", "-count=1", "./internal/prepcall")
		})
	}
}

// prepNonWire are the only changes oasdiff may report between a document
// and its prepared copy: names, discriminator mappings and webhooks, which
// the client's wire never carries (a mapping the prepared copy adds
// restates what the branches require; one it drops leaves a union that
// still takes every branch; a webhook is a request the API sends, never one
// its client does).
var prepNonWire = regexp.MustCompile(`^(api-operation-id-(added|removed)|.*-discriminator-(mapping-(added|changed|deleted|removed)|removed)|webhook-removed)$`)

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
// and no breaking change but those and a webhook removed.
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
			// "error at <file>, in API ...", or "error, in components/..."
			change := regexp.MustCompile(`(?m)^(error|warning|info)\b.*\[([a-z0-9-]+)\]`)
			for _, c := range change.FindAllStringSubmatch(oasdiff("breaking"), -1) {
				if !nameOnly(c[0]) && c[2] != "webhook-removed" {
					t.Errorf("oasdiff breaking: %s", c[0])
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

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-openapi/jsonpointer"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

// prepared prepares testdata/prep/<name>.json and returns the document, as
// JSON values, and the change report.
func prepared(t *testing.T, name string) (map[string]any, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "prep", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	project := name == "overlay-yaml-roundtrip" // the one with the project's targets
	out, changes, err := prepare(data, project)
	if err != nil {
		t.Fatal(err)
	}
	again, more, err := prepare(out, project)
	if err != nil || len(more) != 0 || !bytes.Equal(again, out) {
		t.Errorf("%s: preparing twice changes more: %v %v", name, more, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc, strings.Join(changes, "\n")
}

// is fails unless the value at the JSON pointer ptr prints as want (%v).
func is(t *testing.T, doc map[string]any, ptr, want string) {
	t.Helper()
	if got := fmt.Sprint(jsondoc.At(doc, ptr)); got != want {
		t.Errorf("%s = %s, want %s", ptr, got, want)
	}
}

// Each rule on the minimal document of testdata/prep that oapi-codegen
// v2.8.2 refuses, or turns into code a caller cannot use, without it
// (internal/specgrowth generates, builds and calls each one).
func TestRules(t *testing.T) {
	const pet = "/components/schemas/Pet"
	t.Run("discriminator, inline branches", func(t *testing.T) {
		doc, _ := prepared(t, "discriminator-inline-branches")
		is(t, doc, pet+"/oneOf", "[map[$ref:#/components/schemas/PetCat] map[$ref:#/components/schemas/PetDog]]")
		is(t, doc, pet+"/discriminator/mapping", "map[cat:#/components/schemas/PetCat dog:#/components/schemas/PetDog]")
		is(t, doc, "/components/schemas/PetDog/properties/kind/const", "dog")
	})
	t.Run("discriminator, inline branches beside a mapping", func(t *testing.T) {
		doc, _ := prepared(t, "discriminator-inline-branches-with-mapping")
		is(t, doc, pet+"/discriminator/mapping", "map[cat:#/components/schemas/PetCat dog:#/components/schemas/PetDog]")
	})
	t.Run("discriminator, a branch without a value of its own", func(t *testing.T) {
		doc, changes := prepared(t, "discriminator-inline-branches-no-const")
		is(t, doc, pet+"/discriminator", "<nil>")
		if !strings.Contains(changes, "removed") {
			t.Errorf("changes: %s", changes)
		}
	})
	t.Run("discriminator, mapping by schema name", func(t *testing.T) {
		doc, _ := prepared(t, "discriminator-mapping-schema-names")
		is(t, doc, pet+"/discriminator/mapping", "map[cat:#/components/schemas/Cat dog:#/components/schemas/Dog]")
	})
	t.Run("discriminator, implicit mapping", func(t *testing.T) {
		doc, _ := prepared(t, "discriminator-implicit-mapping")
		is(t, doc, pet+"/discriminator/mapping", "map[cat:#/components/schemas/Cat dog:#/components/schemas/Dog]")
	})
	t.Run("discriminator, inline branches inside a nullable", func(t *testing.T) {
		doc, _ := prepared(t, "discriminator-inline-nested-nullable")
		is(t, doc, "/components/schemas/Owner/properties/pet/anyOf/0/oneOf/1", "map[$ref:#/components/schemas/OwnerPetDog]")
		is(t, doc, "/components/schemas/Owner/properties/pet/anyOf/0/x-go-type-name", "OwnerPet")
	})
	t.Run("the project's edits, once an overlay", func(t *testing.T) {
		doc, _ := prepared(t, "overlay-yaml-roundtrip")
		is(t, doc, "/paths/~1request~1info~1{request_id}/get/operationId", "get_request_info")
		is(t, doc, "/paths/~1request~1info~1{request_id}/get/responses/200/headers/Retry-After/schema", "map[type:integer x-go-type:string]")
		is(t, doc, "/components/schemas/ValidationError/properties/loc/items/x-go-type", "any")
	})
	t.Run("union parameters", func(t *testing.T) {
		doc, _ := prepared(t, "parameter-union")
		params := "/paths/~1items~1{item_id}/get/parameters/"
		is(t, doc, params+"0/schema/x-go-type", "string")             // path: anyOf string, integer
		is(t, doc, params+"1/schema/x-go-type", "string")             // query: anyOf string, integer, null
		is(t, doc, params+"2/schema/x-go-type", "[]string")           // query: an array of those
		is(t, doc, params+"3/schema/x-go-type", "string")             // header: a $ref to a oneOf
		is(t, doc, "/components/schemas/ShardKey/x-go-type", "<nil>") // the shared component is not edited
	})
	t.Run("untyped parameters", func(t *testing.T) {
		doc, _ := prepared(t, "parameter-untyped")
		is(t, doc, "/paths/~1things~1{thing_id}/get/parameters/0/schema/x-go-type", "string")
		is(t, doc, "/paths/~1things~1{thing_id}/get/parameters/1/schema/x-go-type", "string")
	})
	t.Run("type lists", func(t *testing.T) {
		doc, _ := prepared(t, "multi-type")
		is(t, doc, "/components/schemas/Value/properties/v/x-go-type", "any")
		is(t, doc, "/components/schemas/Value/properties/w/x-go-type", "any")
		is(t, doc, "/paths/~1values~1{key}/get/parameters/0/schema/x-go-type", "string")
	})
	t.Run("operation names, one Go name apart", func(t *testing.T) {
		doc, changes := prepared(t, "operation-names-go-collision")
		is(t, doc, "/paths/~1items/get/operationId", "list_items_items_get") // list_items is ListItems, as /v2/items's listItems
		is(t, doc, "/paths/~1v2~1items/get/operationId", "listItems")
		is(t, doc, "/paths/~1items~1{item_id}/get/operationId", "get_item")
		if strings.Contains(changes, "list_items_items_get") {
			t.Errorf("changes: %s", changes)
		}
	})
	t.Run("path parameters paired by name", func(t *testing.T) {
		doc, _ := prepared(t, "path-parameters-paired-by-name")
		cert, part := "/paths/~1certificates~1{certificate_id}/", "/paths/~1projects~1{project_id}~1parts~1{part_id}/"
		is(t, doc, cert+"get/parameters/0/name", "certificate_id") // cert_id
		is(t, doc, cert+"get/parameters/1/name", "include")        // a query parameter is left alone
		is(t, doc, cert+"delete/parameters", "[map[in:path name:certificate_id required:true schema:map[type:string]]]")
		is(t, doc, part+"parameters/0", "map[in:path name:project_id required:true schema:map[type:string]]") // a $ref'd project, copied
		is(t, doc, "/components/parameters/Project/name", "project")                                          // the shared component is not edited
		is(t, doc, part+"get/parameters/0/name", "part_id")                                                   // part
	})
	t.Run("webhooks", func(t *testing.T) {
		doc, changes := prepared(t, "webhooks-components")
		is(t, doc, "/webhooks", "<nil>")
		is(t, doc, "/components/schemas/ItemCreatedEvent/required", "[item]") // left to the generator's pruning
		if !strings.Contains(changes, "removed: 1 webhooks") {
			t.Errorf("changes: %s", changes)
		}
	})
	t.Run("readOnly inside an allOf", func(t *testing.T) {
		doc, _ := prepared(t, "all-of-read-only")
		audit := "/components/schemas/Audit/properties/"
		is(t, doc, audit+"stamp/allOf/1/readOnly", "true")  // the allOf is readOnly, and so is Stamp
		is(t, doc, audit+"signed/allOf/0/readOnly", "true") // Stamp is readOnly
		is(t, doc, audit+"signed/allOf/1", "map[$ref:#/components/schemas/Stamp]")
		is(t, doc, "/components/schemas/Stamp/writeOnly", "<nil>") // no member is writeOnly
	})
	t.Run("enum constants named like types", func(t *testing.T) {
		doc, _ := prepared(t, "enum-constants-named-like-types")
		is(t, doc, "/components/schemas/thing/properties/type/x-enum-varnames", "[a_b value c value d]")
		is(t, doc, "/components/schemas/thing/properties/type/enum", "[a_b c d]")
	})
	t.Run("an anyOf branch named like its items", func(t *testing.T) {
		doc, _ := prepared(t, "any-of-branch-items")
		is(t, doc, "/components/schemas/ReportRequest/properties/include/anyOf/0/items", "map[enum:[charges refunds] type:string x-go-type:string]")
		is(t, doc, "/components/schemas/ReportRequest/properties/include/anyOf/1/x-go-type", "<nil>")
		is(t, doc, "/paths/~1exports/post/requestBody/content/application~1x-www-form-urlencoded/schema/properties/include/anyOf/0/items/x-go-type", "string")
	})
	t.Run("parameter Go names", func(t *testing.T) {
		doc, _ := prepared(t, "parameter-go-names")
		for name, want := range map[string]string{"ctx": "CtxParam", "c": "CParam", "c_": "CParam", "err": "ErrParam", "reqEditors": "ReqEditorsParam",
			"url": "UrlParam", "server": "ServerParam", "string": "StringParam"} {
			is(t, doc, "/paths/~1by-"+jsonpointer.Escape(strings.ReplaceAll(name, "_", "-"))+"~1{"+name+"}/get/parameters/0/x-go-name", want)
		}
		search := "/paths/~1search/get/parameters/"
		is(t, doc, search+"0/x-go-name", "<nil>")   // a_b keeps its Go name
		is(t, doc, search+"1/x-go-name", "ABParam") // a-b: the same Go name
		is(t, doc, search+"2/x-go-name", "<nil>")   // X-Id, a header: a field of the same Params
		is(t, doc, search+"3/x-go-name", "XIdParam")
		is(t, doc, "/paths/~1storage~1{storage_id}~1{storageId}/get/parameters/0/x-go-name", "StorageIdParam")
		is(t, doc, "/paths/~1links~1{url}/get/parameters/0/x-go-name", "UrlParam") // copied from the path item
		is(t, doc, "/components/parameters/Url/x-go-name", "<nil>")                // the shared component is not edited
	})
	t.Run("operation Go names", func(t *testing.T) {
		doc, _ := prepared(t, "operation-go-names")
		for path, want := range map[string]string{"foo": "get_foo", "v2~1foo": "getFoo2", "bar": "foo-bar", "v2~1bar": "foo_bar2",
			"servers": "server2", "clients": "client2", "editors": "request_editors2"} {
			is(t, doc, "/paths/~1"+path+"/get/operationId", want)
		}
		is(t, doc, "/paths/~1items/post/operationId", "create_item")                       // CreateItem and CreateItemWithBody
		is(t, doc, "/paths/~1items~1with-body/post/operationId", "create_item_with_body2") // not a second CreateItemWithBody
	})
	t.Run("nullable unions", func(t *testing.T) {
		doc, _ := prepared(t, "nullable-union")
		is(t, doc, "/components/schemas/Owner/properties/pet/anyOf/0/x-go-type-name", "OwnerPet")
		is(t, doc, "/components/schemas/Owner/properties/pets/items/anyOf/0/x-go-type-name", "OwnerPetsItem")
		is(t, doc, "/components/schemas/MaybePet/anyOf/0/x-go-type-name", "MaybePet2") // MaybePet is the component's own
	})
}

// The vendored openapi.json gets the project's edits; a document without
// their targets fails, as the overlay's strict mode did.
func TestVendoredDocument(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, changes, err := prepare(data, true)
	if n := strings.Count(strings.Join(changes, "\n"), projectRule); err != nil || n != 2 {
		t.Fatalf("%v: %q, want the two project edits among them", err, changes)
	}
	if _, _, err := prepare([]byte(`{"openapi":"3.1.0","paths":{}}`), true); err == nil || !strings.Contains(err.Error(), "is not in the document") {
		t.Errorf("a document without the edits' targets: %v", err)
	}
}

// A FastAPI default operationId becomes the route name, unless two
// operations would share it.
func TestFastAPINames(t *testing.T) {
	p := &prep{taken: map[string]bool{}}
	if err := json.Unmarshal([]byte(`{"paths":{
		"/a/{id}":{"get":{"operationId":"read_a_a__id__get"},"put":{"operationId":"read_a_a__id__put"}},
		"/b":{"get":{"operationId":"list_b_b_get"}},
		"/c":{"get":{"operationId":"list_b"}},
		"/d/{d_id}":{"delete":{"operationId":"drop_d_d__d_id__delete"}}}}`), &p.doc); err != nil {
		t.Fatal(err)
	}
	fastAPINames(p)
	is(t, p.doc, "/paths/~1a~1{id}/get/operationId", "read_a_a__id__get") // read_a twice
	is(t, p.doc, "/paths/~1b/get/operationId", "list_b_b_get")            // list_b is /c's
	is(t, p.doc, "/paths/~1d~1{d_id}/delete/operationId", "drop_d")
}

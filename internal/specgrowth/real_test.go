package specgrowth

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/internal/jsondoc"
)

// realSpec is a real FastAPI-generated OpenAPI 3.1 document (see its
// README for source and license).
const realSpec = "testdata/real/study-assistant.openapi.json"

// mergeRealSpec writes, in dir, the spec at base with every path, schema and
// security scheme of realSpec added (base's own win on a name clash), and
// returns the file and the operations it adds, as the lines
// tensorpooltest's coverage test names them: METHOD /path (operationId "id").
// It reads the JSON directly: kin-openapi's validation rejects the real
// spec's template twins, which is part of what is tested.
func mergeRealSpec(t *testing.T, base, dir string) (string, []string) {
	t.Helper()
	var spec, real map[string]any
	for file, v := range map[string]*map[string]any{base: &spec, filepath.Join(repoRoot(t), realSpec): &real} {
		if err := json.Unmarshal(readFile(t, file), v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	var added []string
	paths := jsondoc.Obj(spec, "paths")
	for p, item := range jsondoc.Obj(real, "paths") {
		if _, ok := paths[p]; ok {
			t.Fatalf("%s has %s already: pick another fixture, or prefix its paths", base, p)
		}
		paths[p] = item
		for method, op := range item.(map[string]any) {
			id, _ := op.(map[string]any)["operationId"].(string)
			added = append(added, fmt.Sprintf("%s %s (operationId %q)", strings.ToUpper(method), p, id))
		}
	}
	for _, section := range []string{"schemas", "securitySchemes"} {
		ours := jsondoc.Obj(spec, "components", section)
		for name, v := range jsondoc.Obj(real, "components", section) {
			if _, ok := ours[name]; !ok {
				ours[name] = v
			}
		}
	}
	path := filepath.Join(dir, "real-openapi.json")
	writeJSON(t, path, spec)
	return path, added
}

// Package opname tells the names of an OpenAPI operation apart: the
// operationId a document writes, FastAPI's default one, and the Go name
// the generator prints (gen's "the `StorageDestroy` operationId").
package opname

import (
	"regexp"
	"strings"
)

var nonWord = regexp.MustCompile(`\W`)

// FastAPI returns the route name inside FastAPI's default operationId id of
// the operation at method and path: FastAPI's generate_unique_id writes
// name + path (each non-word character as '_') + "_" + method, lower case
// ("get_request_info_request_info__request_id__get" for get_request_info at
// GET /request/info/{request_id}). Any other id is returned as is.
func FastAPI(id, method, path string) string {
	if name, ok := strings.CutSuffix(id, nonWord.ReplaceAllString(path, "_")+"_"+strings.ToLower(method)); ok && name != "" {
		return name
	}
	return id
}

// Key is s without case or separators: "StorageDestroy", "storage_destroy"
// and "storage-destroy" have one key.
func Key(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			return r
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}

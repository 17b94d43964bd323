package prismpeer

import (
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The samples must pass the format checks, or Prism refuses a request with a
// format: email (or uuid, ...) field before it reaches the operation. Runs
// without Prism.
func TestFormatSamplesAreValid(t *testing.T) {
	for format, re := range map[string]string{
		"email":     openapi3.FormatOfStringForEmail,
		"uuid":      openapi3.FormatOfStringForUUIDOfRFC9562,
		"date":      openapi3.FormatOfStringDate,
		"date-time": openapi3.FormatOfStringDateTime,
	} {
		s := &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{"string"}, Format: format}}
		got, _ := example(s).(string)
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("example for format %q is %q, which is not one", format, got)
		}
	}
}

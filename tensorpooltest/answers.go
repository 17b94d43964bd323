package tensorpooltest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/go-openapi/jsonpointer"

	"github.com/tensorpool/tensorpool-go/gen"
)

// canned is an answer the document declares for one response of an
// operation, built once per document: the media type's example, else the
// schema's, else a value built from the schema (synth).
type canned struct {
	header http.Header      // Content-Type, and the headers the response requires
	body   []byte           // the body as sent, marshalled once: never written to
	schema *openapi3.Schema // the body's schema, if it has one
}

// prepare builds rt's canned answers, one per response it declares, and
// picks its statuses; what the document gets wrong goes to s.problems.
func (s *spec) prepare(rt *route) {
	op := rt.kr.Operation
	rt.canned = map[string]*canned{}
	for key, ref := range op.Responses.Map() {
		if ref.Value == nil {
			continue
		}
		c := &canned{header: http.Header{}}
		for name, h := range ref.Value.Headers {
			if h.Value != nil && h.Value.Required && h.Value.Schema != nil && !strings.EqualFold(name, "Content-Type") {
				v, _ := s.synth.Value(h.Value.Schema.Value)
				c.header.Set(name, fmt.Sprint(v))
			}
		}
		mts := slices.Sorted(maps.Keys(ref.Value.Content))
		if i := slices.IndexFunc(mts, func(mt string) bool { return strings.Contains(mt, "json") }); i > 0 {
			mts[0] = mts[i] // JSON first
		}
		if len(mts) > 0 {
			media := ref.Value.Content[mts[0]]
			c.header.Set("Content-Type", map[bool]string{true: "application/json", false: mts[0]}[strings.Contains(mts[0], "*")])
			if media.Schema != nil && media.Schema.Value != nil {
				c.schema = media.Schema.Value
				examples := []any{media.Example}
				for _, k := range slices.Sorted(maps.Keys(media.Examples)) {
					if e := media.Examples[k]; e != nil && e.Value != nil {
						examples = append(examples, e.Value.Value)
					}
				}
				value, err := s.synth.Value(c.schema, examples...)
				if str, ok := value.(string); ok && !strings.Contains(c.header.Get("Content-Type"), "json") {
					c.body = []byte(str)
				} else {
					c.body, _ = json.Marshal(value)
				}
				if err != nil {
					ptr := "/paths/" + jsonpointer.Escape(rt.kr.Path) + "/" + strings.ToLower(rt.kr.Method) + "/responses/" + key + "/content/" + jsonpointer.Escape(mts[0]) + "/schema"
					why, _, _ := strings.Cut(err.Error(), "\n")
					s.problems = append(s.problems, fmt.Errorf("%s: no value found for the schema at %s: %s: the engine answers the closest it can build, and reports a Violation", rt.key, ptr, why))
				}
			}
		}
		rt.canned[key] = c
	}
	rt.success = http.StatusOK
	for _, key := range slices.Sorted(maps.Keys(rt.canned)) { // "200" before "2XX" before "default"
		if strings.HasPrefix(key, "2") {
			rt.success, _ = strconv.Atoi(strings.ReplaceAll(key, "XX", "00"))
			break
		}
	}
	rt.invalid = cmp.Or(rt.declared(422, 400), http.StatusUnprocessableEntity)
	if rt.declared(422, 400) == 0 {
		s.problems = append(s.problems, fmt.Errorf("%s declares no status for a request that breaks the document: the engine answers %d", rt.key, rt.invalid))
	}
	secured := len(rt.kr.Spec.Security) > 0
	if op.Security != nil {
		secured = len(*op.Security) > 0
	}
	if rt.unauthorized = rt.declared(401, 403); rt.unauthorized == 0 && secured {
		s.problems = append(s.problems, fmt.Errorf("%s declares no status for a missing or wrong credential: the engine answers 403", rt.key))
	}
}

// declared returns the first of statuses that rt declares, or else the
// first if "4XX" or "default" takes it, or 0.
func (rt *route) declared(statuses ...int) int {
	for _, st := range statuses {
		if rt.canned[strconv.Itoa(st)] != nil {
			return st
		}
	}
	if rt.response(statuses[0]) != nil {
		return statuses[0]
	}
	return 0
}

// response returns the canned answer rt declares for status: exact, then
// its class ("4XX"), then "default"; or nil.
func (rt *route) response(status int) *canned {
	st := strconv.Itoa(status)
	for _, key := range []string{st, st[:1] + "XX", "default"} {
		if c := rt.canned[key]; c != nil {
			return c
		}
	}
	return nil
}

// answer is rt's canned answer for status, or an empty JSON object where
// rt declares none.
func (rt *route) answer(status int) *result {
	c := rt.response(status)
	if c == nil {
		res := jsonResult(status, map[string]any{})
		res.undeclared = true
		return res
	}
	res := &result{status: status, header: c.header.Clone(), body: c.body}
	res.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	return res
}

// failure is rt's error answer with status. Its body is {"detail": detail},
// as FastAPI's HTTPException writes it, where the document takes that body
// for status; else the document's own body for status, with msg in its
// message property where it has one. Guess: the seeds declare 400, 403,
// 404, 409 and 500 without content (the third-party Swift client decodes
// ErrorResponse{detail,message}, which agrees).
func (rt *route) failure(status int, detail any, msg string) *result {
	res := jsonResult(status, map[string]any{"detail": detail})
	c := rt.response(status)
	if c == nil || c.schema == nil {
		return res
	}
	if _, err := rt.synth.Check(c.schema, map[string]any{"detail": detail}); err == nil {
		return res
	}
	doc := rt.answer(status)
	var v map[string]any
	if json.Unmarshal(doc.body, &v) == nil {
		for _, k := range []string{"detail", "message", "error", "msg", "title", "description"} {
			if p := c.schema.Properties[k]; p != nil && p.Value != nil && p.Value.Type.Is(openapi3.TypeString) && len(p.Value.Enum) == 0 && p.Value.Pattern == "" {
				v[k] = msg
				if b, err := json.Marshal(v); err == nil && c.schema.VisitJSON(v, rt.synth.Opts...) == nil {
					doc.body = b
				}
				break
			}
		}
	}
	return doc
}

// fromDocument is the answer of an operation the engine does not model: its
// lowest declared 2xx, as the document gives or allows it.
func (e *Engine) fromDocument(rt *route, now time.Time, params map[string]string) *result {
	res := rt.answer(rt.success)
	e.issue(rt, res, now, params)
	return res
}

// issue creates, for a 202 whose schema has request_id or request_ids, the
// requests they name, with e.mu held: the API's async model ("mutating
// operations ... return HTTP 202 Accepted with a request_id"), so that GET
// /request/info follows them through their lifecycle. Guess: request_id
// holds one new id and request_ids one or more; object_id is the first
// path parameter, if any.
func (e *Engine) issue(rt *route, res *result, now time.Time, params map[string]string) {
	var body map[string]any
	c := rt.response(http.StatusAccepted)
	if res.status != http.StatusAccepted || e.spec.requestTypes == nil || c == nil || c.schema == nil || json.Unmarshal(res.body, &body) != nil {
		return
	}
	object := ""
	if len(rt.params) > 0 {
		object = params[rt.params[0]]
	}
	id := func() string {
		r := e.newRequest(now, e.spec.requestType(rt), nil, nil)
		r.object = object
		return r.id
	}
	if c.schema.Properties["request_id"] != nil {
		body["request_id"] = id()
	}
	if c.schema.Properties["request_ids"] != nil {
		ids, _ := body["request_ids"].([]any)
		for i := range max(len(ids), 1) {
			ids = append(ids[:i], id())
		}
		body["request_ids"] = ids
	}
	res.body, _ = json.Marshal(body)
}

// requestType is the request type of an operation the engine does not
// model, from the request info's enum. Guess: its operationId, upper case,
// else the first value of its path's first segment ("CLUSTER_..."), else
// the enum's first value.
func (s *spec) requestType(rt *route) gen.RequestType {
	want := strings.ToUpper(rt.kr.Operation.OperationID)
	seg, _, _ := strings.Cut(strings.TrimPrefix(rt.kr.Path, "/"), "/")
	best := s.requestTypes[0]
	for _, t := range slices.Backward(s.requestTypes) {
		if t == want {
			return gen.RequestType(t)
		}
		if strings.HasPrefix(t, strings.ToUpper(seg)+"_") {
			best = t
		}
	}
	return gen.RequestType(best)
}

// exclude reports whether kin-openapi cannot read a body of the media type
// ct: such a body is not validated.
func exclude(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return ct != "" && openapi3filter.RegisteredBodyDecoder(strings.TrimSpace(mt)) == nil && !strings.HasSuffix(mt, "+json")
}

package tensorpooltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// The validator has teeth: a request the spec forbids is rejected with 422
// and an HTTPValidationError naming the field, whichever way it is wrong.
func TestInvalidRequestsAreRejected(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		loc                     []any
		typ                     string
	}{
		{"storage_id of the wrong type", "application/json", `{"storage_id":5,"cluster_ids":["c-1"]}`, []any{"body", "storage_id"}, "type"},
		{"missing storage_id", "application/json", `{"cluster_ids":["c-1"]}`, []any{"body", "storage_id"}, "missing"},
		{"no cluster id (minItems 1)", "application/json", `{"storage_id":"s-1","cluster_ids":[]}`, []any{"body", "cluster_ids"}, "minItems"},
		{"cluster id of the wrong type", "application/json", `{"storage_id":"s-1","cluster_ids":[7]}`, []any{"body", "cluster_ids", "0"}, "type"},
		{"not an object", "application/json", `["s-1"]`, []any{"body"}, "type"},
		{"no body", "application/json", ``, []any{"body"}, "missing"},
		{"broken JSON", "application/json", `{"storage_id":`, []any{"body"}, "json_invalid"},
		{"form-encoded", "application/x-www-form-urlencoded", `storage_id=s-1`, []any{"body"}, "content_type"},
		{"undeclared query parameter?force=1", "application/json", `{"storage_id":"s-1","cluster_ids":["c-1"]}`, []any{"query", "force"}, "extra_forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := seeded(t)
			path := "/storage/attach"
			if _, q, ok := strings.Cut(tc.name, "?"); ok {
				path += "?" + q
			}
			status, body := raw(t, s, "POST", path, tc.contentType, tc.body)
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422; body %s", status, body)
			}
			var v struct {
				Detail []struct {
					Loc  []any
					Msg  string
					Type string
				}
			}
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatalf("422 body %s: %v", body, err)
			}
			for _, d := range v.Detail {
				if equalLoc(d.Loc, tc.loc) && d.Type == tc.typ && d.Msg != "" {
					return
				}
			}
			t.Fatalf("422 body %s has no item with loc %v and type %q", body, tc.loc, tc.typ)
		})
	}
}

func equalLoc(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The validator has teeth on responses too: held to a stricter document
// (StorageDestroyRestResponse requiring a size_gb the engine never sends),
// the engine's answer is reported as a violation, and NewServer turns the
// report into a test failure.
func TestNonConformingResponseIsReported(t *testing.T) {
	stricter := specWith(t, func(doc map[string]any) {
		schema := obj(obj(obj(doc["components"])["schemas"])["StorageDestroyRestResponse"])
		schema["required"] = append(schema["required"].([]any), "size_gb")
	})
	rec := &recordingTB{TB: t}
	s := tensorpooltest.NewInProcessServer(rec, tensorpooltest.WithSpec(stricter))
	s.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
	if resp := destroy(t, s, "s-1"); resp.StatusCode() != 202 {
		t.Fatalf("status %d: the engine still answers", resp.StatusCode())
	}
	got := rec.reported()
	if len(got) != 1 || !strings.Contains(got[0], "DELETE /storage/{storage_id}") || !strings.Contains(got[0], "size_gb") {
		t.Fatalf("reported %q, want one violation naming the operation and size_gb", got)
	}
	if v := s.Engine.Violations(); len(v) != 1 || v[0].Status != 202 || v[0].Operation != "DELETE /storage/{storage_id}" {
		t.Fatalf("Violations() = %+v", v)
	}
}

// An undeclared status is a violation unless the engine answers it on
// purpose: a stricter document without 409 on destroy catches the engine's
// "deletion protection" answer.
func TestUndeclaredStatusIsReported(t *testing.T) {
	stricter := specWith(t, func(doc map[string]any) {
		delete(obj(obj(obj(obj(doc["paths"])["/storage/{storage_id}"])["delete"])["responses"]), "409")
	})
	var got []tensorpooltest.Violation
	e := tensorpooltest.New(tensorpooltest.WithSpec(stricter), tensorpooltest.WithViolationHandler(func(v tensorpooltest.Violation) { got = append(got, v) }))
	e.AddStorage(tensorpooltest.Storage{ID: "s-1", DeletionProtection: true})
	c, err := gen.NewClientWithResponses(tensorpooltest.InProcessURL, gen.WithHTTPClient(e.HTTPClient()),
		gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+e.APIKey())
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.StorageDestroyWithResponse(ctx, "s-1")
	if err != nil || resp.StatusCode() != 409 {
		t.Fatalf("destroy: %v %v", resp.StatusCode(), err)
	}
	if len(got) != 1 || got[0].Status != 409 {
		t.Fatalf("violations %+v, want the undeclared 409", got)
	}
}

// The engine serves a bigger spec without code for its new operations: they
// answer as the document says, after authentication and validation; a bad
// key gets 403, which the operation does not declare (SpecProblems says so).
func TestUnmodelledOperationAnswersFromTheDocument(t *testing.T) {
	bigger := specWith(t, func(doc map[string]any) {
		obj(doc["paths"])["/tensorpooltest/synthetic"] = map[string]any{"post": map[string]any{
			"operationId": "tensorpooltest_synthetic",
			"security":    []any{map[string]any{"HTTPBearer": []any{}}},
			"responses":   map[string]any{"202": map[string]any{"description": "ok"}},
		}}
	})
	s := tensorpooltest.NewInProcessServer(t, tensorpooltest.WithSpec(bigger))
	if status, body := raw(t, s, "POST", "/tensorpooltest/synthetic", "", ""); status != http.StatusAccepted || body != "" {
		t.Fatalf("status %d body %s, want the 202 without a body the document declares", status, body)
	}
	if status, _ := raw(t, s, "POST", "/tensorpooltest/synthetic", "", "", "Authorization", "Bearer nope"); status != 403 {
		t.Fatalf("unauthenticated call to an unmodelled operation: %d, want 403", status)
	}
	if problems := fmt.Sprint(s.Engine.SpecProblems()); !strings.Contains(problems, "POST /tensorpooltest/synthetic declares no status for a missing or wrong credential") {
		t.Errorf("SpecProblems() = %s", problems)
	}
	if ops := s.Engine.Operations(); len(ops) != len(tensorpooltest.New().Operations())+1 {
		t.Fatalf("Operations() = %q", ops)
	}
}

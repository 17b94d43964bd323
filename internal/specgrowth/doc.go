// Package specgrowth holds the tests that prove openapi.json can change
// without hand edits: openapi.json grown by synthetic additions
// (testdata/grown) and by a real public FastAPI spec (testdata/real), in one
// regeneration, passes the suite in a copy of the repository; `make
// update-spec`, `make spec-diff` and `make api-diff` behave; and the
// generated client tolerates enum values it does not know. It also tests, on
// copies of the repository, the checks that guard gen/ and the spec
// (check-generated, check-format, check-vet), .ci/run and .ci/setup. The
// tests run in parallel, each on its own copy; the longest one is declared
// first (additions_test.go), as go test tends to start it first then. It has
// no non-test code.
package specgrowth

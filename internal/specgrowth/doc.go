// Package specgrowth holds the tests that prove openapi.json can change
// without hand edits: a grown spec (testdata/grown) regenerates, builds and
// passes the suite in a copy of the repository, so does a real public
// FastAPI spec merged into ours (testdata/real), `make update-spec`,
// `make spec-diff` and `make api-diff` behave, and the generated client tolerates enum values it
// does not know. It also tests, on copies of the repository, the checks that
// guard gen/ and the spec (check-generated, check-format, check-vet) and
// .ci/run. It has no non-test code.
package specgrowth

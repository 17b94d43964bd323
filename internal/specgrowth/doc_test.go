// Package specgrowth holds the tests of the pipeline from a changed spec to
// a regenerated client. `make check-specs` runs them (CI too); `make
// check` skips them, because each runs make in a copy of the repository.
// On each real public document of testdata/specs, merged with openapi.json's
// operations, the whole pipeline runs: update-spec, build, vet, the
// engine's seed flow and the tests. Other tests grow openapi.json
// (testdata/grown, testdata/real), check update-spec's verdicts and report,
// the spec-diff and api-diff gates, the preparation rules, check-generated,
// .ci/run and .ci/setup. It has no non-test code.
package specgrowth

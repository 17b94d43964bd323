// Package prismpeer checks the generated client against an independent
// implementation of openapi.json: the Prism mock server. Its test drives every
// operation of the spec through gen.ClientWithResponses and fails when Prism
// rejects the request or the client cannot decode Prism's answer. It needs a
// running Prism (PRISM_URL); `make prism` installs the pinned one, starts it
// and runs the test. It has no non-test code.
package prismpeer

// Package benchmarks measures the client side by side with the alternatives
// issue 8 names: the request economy and detection latency of package wait
// against other polling rules (economy_test.go), against the official CLI
// when the server sends no Retry-After, and against an overloaded server
// with 1,000 ids (pressure_test.go), the overhead of the generated client
// over a hand-written net/http call (client_test.go), and how WaitAll
// scales to 10,000 requests (scale_test.go).
//
// Everything here is test code; `make bench` runs it and rewrites
// BENCHMARKS.md (the short answers) and BENCHMARKS-data.md (every figure) at
// the repository root (see benchmd). Nothing in it runs
// under a plain `go test ./...` for longer than a smoke test.
package benchmarks

// Package benchmarks measures the client side by side with the alternatives
// issue 8 names: the request economy and detection latency of package wait
// against other polling rules (economy_test.go), against the official CLI
// when the server sends no Retry-After, and against an overloaded server
// with 1,000 ids (pressure_test.go), behind a rate limiter, a token bucket
// and nginx's limit_req (ratelimit_test.go, nginx_test.go; issue 21), how
// WaitAll scales to 10,000 requests (scale_test.go), wait at every scale:
// no limiter, a limiter that states its limit, the edges, staggered Pollers
// and the CPU per poll, today's law and the new one (issues 30, 37 and 44,
// waitscale_test.go), at the API's own scale behind slowapi's limiter over
// limits, in virtual time (windows_test.go) and for real, a FastAPI peer
// (slowapi_test.go; issue 44), and the overhead of the generated client
// over a hand-written net/http call (client_test.go).
//
// Everything here is test code. The measurements are tests named TestBench*
// that write Markdown tables and fail when a goal is missed, and one ordinary
// benchmark, BenchmarkClientOverhead; `make bench` (scripts/bench.sh) runs
// them and rewrites BENCHMARKS.md. Under a plain `go test ./...` only the
// quick cross-checks and the rate-limit goals in virtual time run; make
// check-peers adds runs behind nginx and the slowapi peer. scripts/bench.sh builds this
// package on earlier commits too, for the "before" columns it measures.
package benchmarks

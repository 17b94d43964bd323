// Package tensorpooltest is an in-memory TensorPool engine for tests: yours
// and ours. It serves every operation of the vendored OpenAPI document
// (openapi.json), models storage volumes, clusters, attachments and the
// asynchronous request lifecycle the API documents, and validates every
// request and every response against the document with kin-openapi.
//
// The shortest correct use, in a test:
//
//	srv := tensorpooltest.NewServer(t) // or NewInProcessServer(t) inside a synctest bubble
//	srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
//	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
//	err := attachAndWait(ctx, srv.Client, "s-1", "c-1") // your code
//
// Server.Client is the production client, tensorpool.NewClient with the
// engine's key and URL, so your code is tested with the retries, validation
// and errors it meets in production; Server.RawClient shows the engine's raw
// answers.
//
// A request that does not conform to the document is answered 422 with an
// HTTPValidationError body, as upstream's FastAPI would; a missing or wrong
// API key is answered 403 "Access denied", as the seeds declare for attach
// and destroy (request info declares no 403: there it is a guess). A
// response of the engine's that does not conform is reported
// (WithViolationHandler); NewServer makes it fail the test.
//
// Asynchronous requests (attach, destroy) follow a Lifecycle: PENDING,
// PROCESSING, possibly RETRYING, then COMPLETED or FAILED, on durations the
// test chooses. Their effects apply when they reach COMPLETED. Nothing runs
// in the background: the engine computes the state from time.Now() when it
// is called, so inside a testing/synctest bubble it runs in fake time.
//
// InjectFault scripts misbehaviour for the next requests of an operation:
// 429/5xx answers with or without Retry-After, latency, dropped connections,
// malformed JSON, unknown status values.
//
// Where the seeds (the API's published documentation) are silent, the
// engine guesses; each guess is commented in the code with "Guess:".
package tensorpooltest

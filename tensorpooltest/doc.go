// Package tensorpooltest is an in-memory TensorPool engine for tests. It
// serves every operation of the vendored OpenAPI document (openapi.json). It
// models storage volumes, clusters, attachments and the asynchronous request
// lifecycle. It validates every request and response against the document
// with kin-openapi.
//
// The shortest correct use, in a test:
//
//	srv := tensorpooltest.NewServer(t) // or NewInProcessServer(t) inside a synctest bubble
//	srv.Engine.AddCluster(tensorpooltest.Cluster{ID: "c-1"})
//	srv.Engine.AddStorage(tensorpooltest.Storage{ID: "s-1"})
//	err := attachAndWait(ctx, srv.Client, "s-1", "c-1") // your code
//
// Server.Client is the production client (tensorpool.NewClient), so your code
// meets the retries, validation and errors of production. Server.RawClient
// shows the engine's raw answers.
//
// A request that does not conform to the document gets 422 with an
// HTTPValidationError body, as from upstream's FastAPI. A missing or wrong
// API key gets 403 "Access denied". A response of the engine's that does not
// conform is reported (WithViolationHandler); NewServer fails the test.
//
// Asynchronous requests (attach, destroy) follow a Lifecycle: PENDING,
// PROCESSING, possibly RETRYING, then COMPLETED or FAILED, on durations the
// test chooses. Their effects apply at COMPLETED. Nothing runs in the
// background: the engine computes the state from time.Now() when called, so
// inside a testing/synctest bubble it runs in fake time.
//
// InjectFault scripts misbehaviour for the next requests of an operation:
// error answers with or without Retry-After, latency, dropped connections,
// malformed JSON, unknown status values.
//
// Where the seeds (the API's published documentation) are silent, the
// engine guesses. Each guess is marked "Guess:" in the code.
package tensorpooltest

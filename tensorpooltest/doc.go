// Package tensorpooltest is an in-memory TensorPool engine for tests. It
// answers every operation of its OpenAPI document (the vendored
// openapi.json, or WithSpec's). It models storage volumes, clusters,
// attachments and the asynchronous request lifecycle. Every other operation
// answers as the document says: its example, or a value built from its
// schema. It validates every request and response against the document with
// kin-openapi.
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
// A request that does not conform to the document gets the status its
// operation declares for that (422 or 400, its 4XX or default), with an
// HTTPValidationError body as from upstream's FastAPI where the document
// allows it. A missing or wrong API key gets the declared 401 or 403. A
// response of the engine's that does not conform is reported
// (WithViolationHandler); NewServer fails the test.
//
// Asynchronous requests follow a Lifecycle: PENDING, PROCESSING, possibly
// RETRYING, then COMPLETED or FAILED, on durations the test chooses. Attach
// and destroy apply their effects at COMPLETED. Any other operation whose
// 202 answer has a request_id or request_ids creates requests too, so wait
// follows them. Nothing runs in the background: the engine computes the
// state from time.Now() when called, so inside a testing/synctest bubble it
// runs in fake time.
//
// Respond scripts the next answers of any operation: a status, headers and
// a body, or a handler. Requests shows what each operation was sent, without
// the API key. InjectFault scripts misbehaviour on top: error answers with
// or without Retry-After, latency, dropped connections, malformed JSON,
// unknown status values.
//
// Where the seeds (the API's published documentation) are silent, the
// engine guesses. Each guess is marked "Guess:" in the code.
package tensorpooltest

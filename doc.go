// Package tensorpool is the Go client for the TensorPool API: GPU clusters,
// shared storage volumes and jobs.
//
// The typed client is generated from the vendored OpenAPI document into
// package gen; package wait polls asynchronous requests until they finish;
// package tensorpooltest is an in-memory TensorPool engine for tests.
package tensorpool

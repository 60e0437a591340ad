// Package thirdparty is a Go module of its own that depends on Coyote's
// SDK alone, as a third party's plugins do: a provider for a made-up
// "Acme" chat API (package acme, binary coyote-provider-acme) and a RAG
// store that keeps a RAG's chunks in a JSON file (package jsonstore,
// binary coyote-rag-jsonfile). Both pass the SDK's public conformance
// suites (the module's own tests, run by make test-thirdparty), and
// Coyote's end-to-end tests drop the binaries into a plugin directory and
// use them through the real coyote binary.
package thirdparty

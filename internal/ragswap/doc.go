// Package ragswap holds one test: the same RAG built with each store
// driver gives the same answers, so a RAG's driver can be swapped by
// editing one line of its file.
package ragswap

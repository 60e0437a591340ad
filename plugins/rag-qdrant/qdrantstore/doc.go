// Package qdrantstore keeps a RAG's chunks in a Qdrant collection, talking
// to Qdrant over gRPC with github.com/qdrant/go-client. It implements
// ragstore.Store, ragstore.CollectionLister and ragstore.Dropper; the
// command coyote-rag-qdrant serves it.
//
// A store is opened in one of two modes:
//
//   - Attached (OpenRequest.Attached): the collection belongs to someone
//     else (LangChain writes such collections). The store only queries it:
//     Upsert, DeleteFile and Rebuild refuse. Point ids may be integers or
//     UUIDs; the kernel sees them as strings ("42",
//     "3f1b0c2e-1111-4000-8000-000000000001") and the store turns them back
//     into the id Qdrant issued. The text of a point is its "page_content"
//     payload. Collections with named vectors (or multi-vectors) are refused
//     at Open, since a query with one unnamed vector fails on every search.
//   - Owned: Coyote created the collection (dimension from the embedding
//     model, cosine distance) and writes it. Each chunk is one point whose id
//     is a UUID derived from the chunk id, with the payload page_content,
//     file_id, source, chunk_id and metadata (LangChain's layout, plus the
//     ids), and a keyword index on file_id for DeleteFile. Deleting the
//     RAG (Drop) deletes the collection; an attached RAG's is never
//     deleted.
//
// Scores are Qdrant's, unchanged and best first: a Euclid collection's
// scores may be negative, so MinScore 0 means no floor and score_threshold
// is never sent to Qdrant.
//
// driver_config keys: host (a URL or host[:port]; https means TLS; Qdrant's
// REST port 6333, or no port, means its gRPC port 6334), collection (owned
// stores default to the RAG's name), api_key (the kernel has already
// resolved a {{SECRET}}), grpc_port (overrides the port). Local and private
// hosts are reached without the environment's proxy.
//
// This package owns only the talk with Qdrant; it must not know about the
// RAG's yaml file, documents, embeddings or keyword ranking (the kernel's).
package qdrantstore

// Package ragstore is the contract between the Coyote kernel and a RAG
// store plugin, such as coyote-rag-duckdb: where a RAG's chunks and their
// vectors live and how they are searched.
//
// The kernel owns everything else about a RAG: its file (rags/<name>.yaml,
// the original's format: settings, document paths, and per file its hash
// and chunks), loading and splitting documents, embeddings, keyword
// ranking when the store has none, fusion and reranking. A store keeps the
// chunks the kernel gives it and answers searches.
//
// One plugin process serves every open store of its driver: Open names the
// store (the RAG's name) and every later request names it again. A chunk's
// ID is the original's document id, "<file id>-<chunk index>"; ids are
// unique within a store.
//
// Stores are opened read-only for queries and read-write only while the
// kernel indexes, so several coyote processes can query one RAG while one
// indexes it (where the backend allows; a store that cannot share a file
// returns an error wrapping sdk.ErrUnavailable that says who holds it).
//
// Deleting a RAG (.delete rag) is the store's business as much as the
// kernel's: a store that keeps anything outside the RAG's yaml (a file
// beside it, a collection on a server) implements Dropper, and the kernel
// calls Drop before it removes the yaml, so that a delete that fails
// half-way leaves the yaml to retry from. A store that keeps everything in
// the yaml need not implement it.
//
// # What a driver can do
//
// The kernel names no driver: it finds a store plugin by its binary name
// (coyote-rag-<driver>, the RAG file's driver) and learns the rest from
// it. Announce in sdk.Info.Capabilities CapOwned when the kernel may index
// documents into your store, CapAttach when it can query an external
// collection it does not own (a plugin that announces neither is taken to
// own its RAGs). Implement DriverSetup when a RAG needs settings in
// driver_config: the kernel's wizards ask your questions, and it checks
// every driver_config with you before opening a store. Implement
// FileLister so that a store an indexing run left half-written (the
// process was killed) is found when the RAG is next opened, and completed
// with only what it lacks.
//
// # Testing
//
// Package sdk/ragstore/storetest is the conformance suite every store
// passes; sdk/ragstore/rank, ragfile and vecindex are the building blocks
// Coyote's own stores use.
package ragstore

import "context"

// Store is implemented by store plugins, and by the kernel's client for
// them.
type Store interface {
	// Open opens (or, read-write, creates) the store of a RAG.
	Open(ctx context.Context, req *OpenRequest) (*OpenResponse, error)
	// Upsert adds or replaces chunks. The kernel sends them in batches
	// small enough for one gRPC message (see MaxBatchBytes).
	Upsert(ctx context.Context, req *UpsertRequest) error
	// DeleteFile removes every chunk of a file.
	DeleteFile(ctx context.Context, req *DeleteFileRequest) error
	// VectorSearch returns the chunks nearest to a vector, best first.
	VectorSearch(ctx context.Context, req *VectorSearchRequest) (*SearchResponse, error)
	// FetchContent returns the text of chunks in the order of req.IDs;
	// ids the store does not hold are skipped, not an error.
	FetchContent(ctx context.Context, req *FetchContentRequest) (*FetchContentResponse, error)
	// Stats reports the size of a store.
	Stats(ctx context.Context, req *StatsRequest) (*Stats, error)
	// Rebuild is called once at the end of every indexing pass. Full is a
	// complete re-index (the kernel has upserted everything again), where
	// a store may rebuild from scratch; otherwise it must keep what it
	// holds and only refresh its indexes. A store that writes lazily
	// persists here.
	Rebuild(ctx context.Context, req *RebuildRequest) error
	// Close releases a store (and its file lock).
	Close(ctx context.Context, req *CloseRequest) error
}

// KeywordSearcher is implemented by stores with their own keyword index;
// such a plugin announces CapKeywordSearch. The kernel ranks keywords
// itself (BM25) for the others.
type KeywordSearcher interface {
	KeywordSearch(ctx context.Context, req *KeywordSearchRequest) (*SearchResponse, error)
}

// CollectionLister is implemented by stores that attach to a server
// holding several collections (Qdrant): the attach wizard offers the
// user its list. Such a plugin announces CapListCollections.
type CollectionLister interface {
	ListCollections(ctx context.Context, req *ListCollectionsRequest) (*ListCollectionsResponse, error)
}

// Dropper is implemented by stores that keep a RAG's data outside its
// yaml (a file beside it, a collection on a server); such a plugin
// announces CapDrop. The kernel calls Drop when the user deletes the RAG,
// then removes the yaml itself.
type Dropper interface {
	// Drop removes everything the store keeps for the RAG, outside the
	// RAG's yaml. It refuses with sdk.ErrFailedPrecondition a store open
	// in this process (the kernel closes it first); a store held by
	// another process is refused with that store's usual error (one
	// wrapping sdk.ErrUnavailable that says who holds it) rather than
	// deleted under it. Dropping a RAG that has no data (never built, or
	// dropped already) is not an error, so that a delete can be retried.
	// An attached RAG's collection belongs to someone else: Drop leaves
	// it alone.
	Drop(ctx context.Context, req *DropRequest) error
}

// DropRequest names the RAG whose data Drop removes, as OpenRequest
// named it.
type DropRequest struct {
	// Store is the RAG's name.
	Store string
	// Path is the RAG's file, rags/<name>.yaml.
	Path string
	// DriverConfig is the RAG's driver_config, with {{SECRET}}s resolved.
	DriverConfig map[string]any
	// Attached is set for a RAG attached to an external collection.
	Attached bool
}

// FileLister is implemented by stores that can say which files they hold
// and how many chunks of each; such a plugin announces CapListFiles.
//
// It is how an interrupted indexing run is found. The kernel records a
// pass in the RAG's file before it writes the store (the files and chunks
// the store is about to hold), then deletes and upserts; a run killed half
// way leaves a store that holds part of what the file lists, or files the
// file no longer lists. When it opens a RAG, the kernel compares ListFiles
// with the file and completes the store (only what is missing) instead of
// answering from part of the documents. A store without it is trusted as
// it is.
type FileLister interface {
	// ListFiles returns every file of the store that has chunks, each
	// with the number of its chunks a search can find (with a vector),
	// in any order.
	ListFiles(ctx context.Context, req *ListFilesRequest) (*ListFilesResponse, error)
}

// GraphKeeper is implemented by stores that keep a RAG's knowledge graph
// (the entities and relationships its extractor model found) with the
// rest of its data, as DuckDB does in its file; such a plugin announces
// CapGraph. The graph is opaque bytes to the store: the kernel encodes
// it, and a store keeps the last bytes saved. Without it, the kernel keeps
// the graph in the RAG's yaml (knowledge_graph), as the original does.
type GraphKeeper interface {
	// SaveGraph replaces the store's graph (empty Data: none). It is
	// called while the store is open read-write, after the indexing pass's
	// Rebuild; a store that writes lazily persists it before returning.
	SaveGraph(ctx context.Context, req *SaveGraphRequest) error
	// LoadGraph returns the last graph saved, empty when there is none.
	LoadGraph(ctx context.Context, req *LoadGraphRequest) (*LoadGraphResponse, error)
}

// SaveGraphRequest replaces a store's knowledge graph.
type SaveGraphRequest struct {
	Store string
	Data  []byte
}

// LoadGraphRequest asks for a store's knowledge graph.
type LoadGraphRequest struct {
	Store string
}

// LoadGraphResponse holds a store's knowledge graph, empty when none.
type LoadGraphResponse struct {
	Data []byte
}

// ListFilesRequest names the open store whose files ListFiles lists.
type ListFilesRequest struct {
	Store string
}

// ListFilesResponse lists a store's files.
type ListFilesResponse struct {
	Files []FileChunks
}

// FileChunks is one file of a store: its id (Chunk.FileID) and how many
// chunks of it the store holds.
type FileChunks struct {
	FileID string
	Chunks int64
}

// ListCollectionsRequest names a server by a driver_config (host, api_key,
// …), with secrets resolved.
type ListCollectionsRequest struct {
	DriverConfig map[string]any
}

// ListCollectionsResponse lists collection names.
type ListCollectionsResponse struct {
	Names []string
}

// Capabilities a store plugin announces in Describe.
const (
	// CapKeywordSearch: the store implements KeywordSearcher.
	CapKeywordSearch = "keyword-search"
	// CapAttach: the store can attach to an existing external collection
	// (query only; the kernel never upserts or deletes).
	CapAttach = "attach"
	// CapOwned: the store can hold chunks the kernel indexes.
	CapOwned = "owned"
	// CapListCollections: the store implements CollectionLister.
	CapListCollections = "list-collections"
	// CapDrop: the store implements Dropper.
	CapDrop = "drop"
	// CapListFiles: the store implements FileLister.
	CapListFiles = "list-files"
	// CapGraph: the store implements GraphKeeper.
	CapGraph = "graph"
)

// MaxBatchBytes is the most the kernel puts in one Upsert: comfortably
// under gRPC's default 4 MiB message limit.
const MaxBatchBytes = 2 << 20

// Mode is how a store is opened.
type Mode int

const (
	// ReadOnly opens for queries; it never creates the store.
	ReadOnly Mode = iota
	// ReadWrite opens for indexing, creating the store when missing.
	ReadWrite
)

// OpenRequest opens the store of one RAG.
type OpenRequest struct {
	// Store names the store in later requests: the RAG's name.
	Store string
	// Path is the RAG's file, rags/<name>.yaml; a store keeps its own
	// files beside it (<name>.duckdb). The yaml store reads and writes the
	// vectors of that file itself.
	Path string
	// DriverConfig is the RAG's driver_config, with {{SECRET}}s resolved.
	DriverConfig map[string]any
	// Dimension is the embedding model's vector size (0 when unknown, as
	// when attaching).
	Dimension int
	Mode      Mode
	// Attached is set for a RAG attached to an external collection.
	Attached bool
}

// OpenResponse describes the opened store.
type OpenResponse struct {
	Stats Stats
	// Capabilities of this store (CapKeywordSearch may depend on the
	// backend: DuckDB's fts extension, say).
	Capabilities []string
}

// Chunk is one piece of a document.
type Chunk struct {
	ID     string
	FileID string
	Text   string
	// Metadata holds at least "source" (the document's path or URL).
	Metadata map[string]string
	Vector   []float32
}

// UpsertRequest adds or replaces chunks.
type UpsertRequest struct {
	Store  string
	Chunks []Chunk
}

// DeleteFileRequest removes a file's chunks.
type DeleteFileRequest struct {
	Store  string
	FileID string
}

// VectorSearchRequest asks for the chunks nearest to Vector.
type VectorSearchRequest struct {
	Store  string
	Vector []float32
	// TopK is how many hits to return at most, at least 1: the SDK
	// refuses a smaller value with ErrInvalidArgument before it reaches
	// the store.
	TopK int
	// MinScore drops hits scoring below it; 0 means no floor (so negative
	// scores, as Euclid distances give, survive).
	MinScore float32
}

// KeywordSearchRequest asks for the chunks matching words of Query.
type KeywordSearchRequest struct {
	Store string
	Query string
	TopK  int // at least 1, as for VectorSearchRequest
}

// Hit is one search result.
type Hit struct {
	ID    string
	Score float32
}

// SearchResponse lists hits best first.
type SearchResponse struct {
	Hits []Hit
}

// FetchContentRequest asks for the text of chunks.
type FetchContentRequest struct {
	Store string
	IDs   []string
}

// Content is a chunk's text.
type Content struct {
	ID       string
	Text     string
	Metadata map[string]string
}

// FetchContentResponse holds the found chunks in request order.
type FetchContentResponse struct {
	Contents []Content
}

// StatsRequest asks for a store's size.
type StatsRequest struct {
	Store string
}

// Stats is a store's size.
type Stats struct {
	Chunks    int64
	Files     int64
	Dimension int
}

// RebuildRequest ends an indexing pass.
type RebuildRequest struct {
	Store string
	Full  bool
}

// CloseRequest releases a store.
type CloseRequest struct {
	Store string
}

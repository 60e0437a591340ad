package qdrantstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// Version is the driver's version, reported by Describe.
const Version = "0.1.0"

const (
	// openTimeout bounds Open when the caller set no deadline, so that a
	// host that swallows packets does not hang the kernel.
	openTimeout = 30 * time.Second
	// getBatch is the most ids one Get asks for.
	getBatch = 1000
	// maxRecvBytes bounds one answer from Qdrant (a FetchContent of many
	// long chunks); gRPC's default of 4 MiB is too tight for that.
	maxRecvBytes = 64 << 20
)

// Store is the Qdrant driver: every open store of one plugin process, by
// name. The zero value is not usable; call New.
type Store struct {
	mu     sync.Mutex
	stores map[string]*collection
}

// New returns a driver with no store open.
func New() *Store {
	return &Store{stores: map[string]*collection{}}
}

// collection is one open store: a connection and what Open learnt.
type collection struct {
	cfg         *config
	client      *qdrant.Client
	points      qdrant.PointsClient
	collections qdrant.CollectionsClient
	name        string // the RAG's
	attached    bool
	mode        ragstore.Mode
	dim         int
	// noQuery is set once the server answered that it has no Query RPC
	// (Qdrant before 1.10); searches then use Search.
	noQuery atomic.Bool
}

// dial connects to a Qdrant server. gRPC connects lazily: the first call
// is what fails on an unreachable host.
func dial(cfg *config) (*qdrant.Client, error) {
	opts := []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecvBytes))}
	if skipsProxy(cfg.host) {
		opts = append(opts, grpc.WithNoProxy())
	}
	if cfg.apiKey != "" {
		// The key is added here rather than through the client's own
		// option, which warns on every connection without TLS, a local
		// server's included; only a remote one is worth a warning.
		opts = append(opts, grpc.WithChainUnaryInterceptor(apiKeyInterceptor(cfg.apiKey)))
		if !cfg.tls && !skipsProxy(cfg.host) {
			sdk.Logger().Warn("the Qdrant API key is sent without TLS; use an https:// host", "host", cfg.display)
		}
	}
	client, err := qdrant.NewClient(&qdrant.Config{
		Host:   cfg.host,
		Port:   cfg.port,
		UseTLS: cfg.tls,
		// Open reads the collection at once, which says more than the
		// client's version check (a health call that only logs).
		SkipCompatibilityCheck: true,
		PoolSize:               1,
		GrpcOptions:            opts,
	})
	if err != nil {
		return nil, fmt.Errorf("connect to Qdrant at %s: %v: %w", cfg.display, err, sdk.ErrInvalidArgument)
	}
	return client, nil
}

// apiKeyInterceptor sends Qdrant's api-key header with every call.
func apiKeyInterceptor(key string) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return invoker(metadata.AppendToOutgoingContext(ctx, "api-key", key), method, req, reply, cc, opts...)
	}
}

// Open connects to the collection of a RAG. An attached store must exist
// and is only checked; an owned one opened read-write is created when
// missing.
func (s *Store) Open(ctx context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	if req.Store == "" {
		return nil, fmt.Errorf("open: no store name: %w", sdk.ErrInvalidArgument)
	}
	cfg, err := parseConfig(req.DriverConfig, req.Store, req.Attached)
	if err != nil {
		return nil, fmt.Errorf("RAG %q: %w", req.Store, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, openTimeout)
		defer cancel()
	}
	client, err := dial(cfg)
	if err != nil {
		return nil, err
	}
	c := &collection{
		cfg:         cfg,
		client:      client,
		points:      client.GetPointsClient(),
		collections: client.GetCollectionsClient(),
		name:        req.Store,
		attached:    req.Attached,
		mode:        req.Mode,
	}
	resp, err := c.open(ctx, req)
	if err != nil {
		client.Close()
		return nil, err
	}
	s.mu.Lock()
	old := s.stores[req.Store]
	s.stores[req.Store] = c
	s.mu.Unlock()
	if old != nil {
		old.client.Close()
	}
	return resp, nil
}

func (c *collection) open(ctx context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	info, err := c.collections.Get(ctx, &qdrant.GetCollectionInfoRequest{CollectionName: c.cfg.collection})
	switch {
	case err == nil:
	case statusCode(err) != codes.NotFound:
		return nil, qdrantError(err, fmt.Sprintf("read collection %q", c.cfg.collection), c.cfg.display)
	case c.attached:
		return nil, c.missing(ctx)
	case req.Mode != ragstore.ReadWrite:
		return nil, fmt.Errorf("RAG %q has no Qdrant collection %q at %s yet; build the RAG first: %w",
			c.name, c.cfg.collection, c.cfg.display, sdk.ErrNotFound)
	default:
		cerr := c.create(ctx, req.Dimension)
		if cerr == nil {
			c.dim = req.Dimension
			return &ragstore.OpenResponse{
				Stats:        ragstore.Stats{Dimension: c.dim},
				Capabilities: []string{ragstore.CapOwned},
			}, nil
		}
		// Another coyote may have created it in the meantime.
		if info, err = c.collections.Get(ctx, &qdrant.GetCollectionInfoRequest{CollectionName: c.cfg.collection}); err != nil {
			return nil, cerr
		}
	}
	dim, err := c.checkVectors(info.GetResult().GetConfig().GetParams().GetVectorsConfig())
	if err != nil {
		return nil, err
	}
	if req.Dimension > 0 && req.Dimension != dim {
		advice := "rebuild the RAG into a new collection, or use the model it was built with"
		if c.attached {
			advice = "use the embedding model the collection was built with"
		}
		return nil, fmt.Errorf("Qdrant collection %q at %s holds %d-dimensional vectors, but the RAG's embedding model makes %d; %s: %w",
			c.cfg.collection, c.cfg.display, dim, req.Dimension, advice, sdk.ErrFailedPrecondition)
	}
	c.dim = dim
	if !c.attached && req.Mode == ragstore.ReadWrite {
		if _, ok := info.GetResult().GetPayloadSchema()[fieldFileID]; !ok {
			// A collection made by hand, or by an older driver.
			if err := c.indexFileID(ctx); err != nil {
				return nil, err
			}
		}
	}
	stats, err := c.stats(ctx)
	if err != nil {
		return nil, err
	}
	capability := ragstore.CapOwned
	if c.attached {
		capability = ragstore.CapAttach
	}
	return &ragstore.OpenResponse{Stats: *stats, Capabilities: []string{capability}}, nil
}

// missing explains a collection that is not there, naming those that are.
func (c *collection) missing(ctx context.Context) error {
	msg := fmt.Sprintf("Qdrant at %s has no collection %q", c.cfg.display, c.cfg.collection)
	if names, err := listCollections(ctx, c.collections); err == nil {
		if len(names) == 0 {
			msg += " (it has no collections at all)"
		} else {
			msg += " (it has: " + strings.Join(names, ", ") + ")"
		}
	}
	return fmt.Errorf("%s: %w", msg, sdk.ErrNotFound)
}

// checkVectors returns the dimension of a collection's one unnamed dense
// vector, and refuses any other shape: a search sends one unnamed vector,
// which a named-vector collection rejects on every query, so attaching one
// would give a RAG that never answers. A collection with a single named
// vector is refused too: it is a map like the many-named case and fails the
// same way.
func (c *collection) checkVectors(vc *qdrant.VectorsConfig) (int, error) {
	if named := vc.GetParamsMap().GetMap(); named != nil {
		names := make([]string, 0, len(named))
		for n := range named {
			names = append(names, n)
		}
		slices.Sort(names)
		return 0, fmt.Errorf("Qdrant collection %q at %s has named vectors (%s); Coyote searches one unnamed vector per point, so it cannot use this collection: %w",
			c.cfg.collection, c.cfg.display, strings.Join(names, ", "), sdk.ErrUnsupported)
	}
	p := vc.GetParams()
	if p == nil || p.GetSize() == 0 {
		return 0, fmt.Errorf("Qdrant collection %q at %s has no dense vectors to search: %w",
			c.cfg.collection, c.cfg.display, sdk.ErrUnsupported)
	}
	if p.GetMultivectorConfig() != nil {
		return 0, fmt.Errorf("Qdrant collection %q at %s holds multi-vectors (late interaction); Coyote searches one vector per point, so it cannot use this collection: %w",
			c.cfg.collection, c.cfg.display, sdk.ErrUnsupported)
	}
	return int(p.GetSize()), nil
}

// create makes an owned collection: one unnamed vector of the embedding
// model's size, cosine distance, and a keyword index on file_id so that
// DeleteFile does not scan.
func (c *collection) create(ctx context.Context, dim int) error {
	if dim <= 0 {
		return fmt.Errorf("create Qdrant collection %q for RAG %q: the embedding model's dimension is unknown: %w",
			c.cfg.collection, c.name, sdk.ErrInvalidArgument)
	}
	_, err := c.collections.Create(ctx, &qdrant.CreateCollection{
		CollectionName: c.cfg.collection,
		VectorsConfig: qdrant.NewVectorsConfig(&qdrant.VectorParams{
			Size:     uint64(dim),
			Distance: qdrant.Distance_Cosine,
		}),
	})
	if err != nil {
		return qdrantError(err, fmt.Sprintf("create collection %q", c.cfg.collection), c.cfg.display)
	}
	return c.indexFileID(ctx)
}

// indexFileID creates the keyword index on file_id that DeleteFile's
// filter and the file count use.
func (c *collection) indexFileID(ctx context.Context) error {
	_, err := c.points.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{
		CollectionName: c.cfg.collection,
		Wait:           qdrant.PtrOf(true),
		FieldName:      fieldFileID,
		FieldType:      qdrant.FieldType_FieldTypeKeyword.Enum(),
	})
	return qdrantError(err, fmt.Sprintf("index file_id in collection %q", c.cfg.collection), c.cfg.display)
}

// get returns an open store.
func (s *Store) get(name string) (*collection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.stores[name]
	if !ok {
		return nil, fmt.Errorf("RAG store %q is not open: %w", name, sdk.ErrFailedPrecondition)
	}
	return c, nil
}

// writable refuses writes to an attached or read-only store.
func (c *collection) writable(op string) error {
	if c.attached {
		return fmt.Errorf("RAG %q is attached to the external Qdrant collection %q: Coyote does not own its documents and cannot %s; manage the collection directly, or create a Coyote-owned RAG with `.rag <name>`: %w",
			c.name, c.cfg.collection, op, sdk.ErrFailedPrecondition)
	}
	if c.mode != ragstore.ReadWrite {
		return fmt.Errorf("RAG %q was opened read-only and cannot %s: %w", c.name, op, sdk.ErrFailedPrecondition)
	}
	return nil
}

// Upsert writes chunks as points, replacing those of the same chunk id, and
// waits until Qdrant has applied them.
func (s *Store) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	c, err := s.get(req.Store)
	if err != nil {
		return err
	}
	if err := c.writable("add documents"); err != nil {
		return err
	}
	if len(req.Chunks) == 0 {
		return nil
	}
	points := make([]*qdrant.PointStruct, 0, len(req.Chunks))
	for i := range req.Chunks {
		ch := &req.Chunks[i]
		if ch.ID == "" {
			return fmt.Errorf("upsert into RAG %q: chunk %d has no id: %w", c.name, i, sdk.ErrInvalidArgument)
		}
		if len(ch.Vector) != c.dim {
			return fmt.Errorf("upsert into RAG %q: chunk %q has a %d-dimensional vector, the collection holds %d: %w",
				c.name, ch.ID, len(ch.Vector), c.dim, sdk.ErrInvalidArgument)
		}
		points = append(points, &qdrant.PointStruct{
			Id:      chunkPointID(ch.ID),
			Payload: chunkPayload(ch.ID, ch.FileID, ch.Text, ch.Metadata),
			Vectors: qdrant.NewVectorsDense(ch.Vector),
		})
	}
	_, err = c.points.Upsert(ctx, &qdrant.UpsertPoints{
		CollectionName: c.cfg.collection,
		Wait:           qdrant.PtrOf(true),
		Points:         points,
	})
	return qdrantError(err, fmt.Sprintf("upsert %d points into collection %q", len(points), c.cfg.collection), c.cfg.display)
}

// DeleteFile removes every point whose file_id is the file's.
func (s *Store) DeleteFile(ctx context.Context, req *ragstore.DeleteFileRequest) error {
	c, err := s.get(req.Store)
	if err != nil {
		return err
	}
	if err := c.writable("remove documents"); err != nil {
		return err
	}
	if req.FileID == "" {
		return fmt.Errorf("delete from RAG %q: no file id: %w", c.name, sdk.ErrInvalidArgument)
	}
	_, err = c.points.Delete(ctx, &qdrant.DeletePoints{
		CollectionName: c.cfg.collection,
		Wait:           qdrant.PtrOf(true),
		Points: qdrant.NewPointsSelectorFilter(&qdrant.Filter{
			Must: []*qdrant.Condition{qdrant.NewMatchKeyword(fieldFileID, req.FileID)},
		}),
	})
	return qdrantError(err, fmt.Sprintf("delete file %q from collection %q", req.FileID, c.cfg.collection), c.cfg.display)
}

// VectorSearch asks Qdrant for the nearest points. Qdrant's
// score_threshold is never sent: it is metric-aware, and on a Euclid
// collection (negative scores) a threshold of 0 would drop every hit. The
// floor is applied here, where 0 means none.
func (s *Store) VectorSearch(ctx context.Context, req *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	c, err := s.get(req.Store)
	if err != nil {
		return nil, err
	}
	if req.TopK < 1 {
		return nil, fmt.Errorf("search RAG %q: top_k is %d, it must be at least 1: %w", c.name, req.TopK, sdk.ErrInvalidArgument)
	}
	if len(req.Vector) != c.dim {
		return nil, fmt.Errorf("search RAG %q: the query vector has %d dimensions, the collection holds %d: %w",
			c.name, len(req.Vector), c.dim, sdk.ErrInvalidArgument)
	}
	withPayload := qdrant.NewWithPayloadEnable(false)
	if !c.attached {
		withPayload = qdrant.NewWithPayloadInclude(fieldChunkID)
	}
	points, err := c.search(ctx, req.Vector, uint64(req.TopK), withPayload)
	if err != nil {
		return nil, qdrantError(err, fmt.Sprintf("search collection %q", c.cfg.collection), c.cfg.display)
	}
	resp := &ragstore.SearchResponse{Hits: make([]ragstore.Hit, 0, len(points))}
	for _, p := range points {
		if req.MinScore != 0 && p.GetScore() < req.MinScore {
			continue
		}
		id := c.hitID(p)
		if id == "" {
			continue
		}
		resp.Hits = append(resp.Hits, ragstore.Hit{ID: id, Score: p.GetScore()})
	}
	return resp, nil
}

// search runs Query, or Search on a server that has no Query.
func (c *collection) search(ctx context.Context, vec []float32, limit uint64, withPayload *qdrant.WithPayloadSelector) ([]*qdrant.ScoredPoint, error) {
	if !c.noQuery.Load() {
		r, err := c.points.Query(ctx, &qdrant.QueryPoints{
			CollectionName: c.cfg.collection,
			Query:          qdrant.NewQueryDense(vec),
			Limit:          qdrant.PtrOf(limit),
			WithPayload:    withPayload,
		})
		if err == nil {
			return r.GetResult(), nil
		}
		if !isUnimplemented(err) {
			return nil, err
		}
		c.noQuery.Store(true)
	}
	r, err := c.points.Search(ctx, &qdrant.SearchPoints{
		CollectionName: c.cfg.collection,
		Vector:         vec,
		Limit:          limit,
		WithPayload:    withPayload,
	})
	return r.GetResult(), err
}

// hitID is the kernel's id of a found point: an owned chunk's own id, or
// an attached point's id as text. Points an owned store did not write (no
// chunk_id) are not its chunks and are skipped.
func (c *collection) hitID(p *qdrant.ScoredPoint) string {
	if c.attached {
		return pointIDString(p.GetId())
	}
	id, _ := payloadString(p.GetPayload(), fieldChunkID)
	return id
}

// FetchContent gets the points' payloads and returns their text in the
// order of req.IDs, which carries the kernel's ranking; Qdrant answers in
// its own order. Ids the collection does not hold, ids no point can have,
// and points without a page_content text are skipped.
func (s *Store) FetchContent(ctx context.Context, req *ragstore.FetchContentRequest) (*ragstore.FetchContentResponse, error) {
	c, err := s.get(req.Store)
	if err != nil {
		return nil, err
	}
	resp := &ragstore.FetchContentResponse{}
	if len(req.IDs) == 0 {
		return resp, nil
	}
	type wanted struct {
		id  string
		key string
	}
	var (
		order []wanted
		ids   []*qdrant.PointId
		seen  = map[string]bool{}
	)
	for _, id := range req.IDs {
		var pid *qdrant.PointId
		if c.attached {
			var ok bool
			if pid, ok = parsePointID(id); !ok {
				continue
			}
		} else {
			pid = chunkPointID(id)
		}
		key := pointKey(pid)
		if seen[key] {
			continue
		}
		seen[key] = true
		order = append(order, wanted{id, key})
		ids = append(ids, pid)
	}
	found := make(map[string]*qdrant.RetrievedPoint, len(ids))
	for start := 0; start < len(ids); start += getBatch {
		batch := ids[start:min(start+getBatch, len(ids))]
		r, err := c.points.Get(ctx, &qdrant.GetPoints{
			CollectionName: c.cfg.collection,
			Ids:            batch,
			WithPayload:    qdrant.NewWithPayloadInclude(fieldText, fieldMetadata, fieldSource),
		})
		if err != nil {
			return nil, qdrantError(err, fmt.Sprintf("fetch %d points from collection %q", len(batch), c.cfg.collection), c.cfg.display)
		}
		for _, p := range r.GetResult() {
			found[pointKey(p.GetId())] = p
		}
	}
	noText := 0
	for _, w := range order {
		p, ok := found[w.key]
		if !ok {
			continue
		}
		text, ok := payloadString(p.GetPayload(), fieldText)
		if !ok {
			noText++
			continue
		}
		resp.Contents = append(resp.Contents, ragstore.Content{ID: w.id, Text: text, Metadata: payloadMetadata(p.GetPayload())})
	}
	if noText > 0 {
		sdk.Logger().Warn("points without a page_content text skipped", "rag", c.name, "collection", c.cfg.collection, "points", noText)
	}
	return resp, nil
}

// Stats counts the collection's points exactly (the collection info's
// count is an estimate) and, for an owned store, its files.
func (s *Store) Stats(ctx context.Context, req *ragstore.StatsRequest) (*ragstore.Stats, error) {
	c, err := s.get(req.Store)
	if err != nil {
		return nil, err
	}
	return c.stats(ctx)
}

func (c *collection) stats(ctx context.Context) (*ragstore.Stats, error) {
	r, err := c.points.Count(ctx, &qdrant.CountPoints{CollectionName: c.cfg.collection, Exact: qdrant.PtrOf(true)})
	if err != nil {
		return nil, qdrantError(err, fmt.Sprintf("count points of collection %q", c.cfg.collection), c.cfg.display)
	}
	st := &ragstore.Stats{Chunks: int64(r.GetResult().GetCount()), Dimension: c.dim}
	if !c.attached && st.Chunks > 0 {
		st.Files = c.countFiles(ctx, uint64(st.Chunks))
	}
	return st, nil
}

// countFiles counts the distinct file ids of an owned collection with a
// facet over its file_id index; 0 when the server cannot (Qdrant before
// 1.12), since the count is informative only.
func (c *collection) countFiles(ctx context.Context, chunks uint64) int64 {
	r, err := c.points.Facet(ctx, &qdrant.FacetCounts{
		CollectionName: c.cfg.collection,
		Key:            fieldFileID,
		Limit:          qdrant.PtrOf(chunks),
		Exact:          qdrant.PtrOf(true),
	})
	if err != nil {
		sdk.Logger().Debug("file count unavailable", "rag", c.name, "error", err)
		return 0
	}
	return int64(len(r.GetHits()))
}

// Rebuild has nothing to do for an owned collection: Qdrant indexes points
// as they arrive, and a full re-index has already upserted every chunk. An
// attached collection refuses, as the original does, so that a rebuild
// never looks as though it worked while writing nothing.
func (s *Store) Rebuild(ctx context.Context, req *ragstore.RebuildRequest) error {
	c, err := s.get(req.Store)
	if err != nil {
		return err
	}
	if c.attached {
		return c.writable("rebuild it")
	}
	return nil
}

// Close forgets a store and closes its connection. Closing a store that is
// not open is not an error.
func (s *Store) Close(ctx context.Context, req *ragstore.CloseRequest) error {
	s.mu.Lock()
	c := s.stores[req.Store]
	delete(s.stores, req.Store)
	s.mu.Unlock()
	if c != nil {
		c.client.Close()
	}
	return nil
}

// CloseAll closes every open store, for the plugin's shutdown.
func (s *Store) CloseAll() {
	s.mu.Lock()
	stores := s.stores
	s.stores = map[string]*collection{}
	s.mu.Unlock()
	for _, c := range stores {
		c.client.Close()
	}
}

// ListCollections lists the collections of the Qdrant server that a
// driver_config names (its collection is ignored), sorted: what the attach
// wizard offers.
func (s *Store) ListCollections(ctx context.Context, req *ragstore.ListCollectionsRequest) (*ragstore.ListCollectionsResponse, error) {
	cfg, err := parseServer(req.DriverConfig)
	if err != nil {
		return nil, err
	}
	client, err := dial(cfg)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	names, err := listCollections(ctx, client.GetCollectionsClient())
	if err != nil {
		return nil, qdrantError(err, "list collections", cfg.display)
	}
	return &ragstore.ListCollectionsResponse{Names: names}, nil
}

func listCollections(ctx context.Context, cc qdrant.CollectionsClient) ([]string, error) {
	r, err := cc.List(ctx, &qdrant.ListCollectionsRequest{})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(r.GetCollections()))
	for _, d := range r.GetCollections() {
		names = append(names, d.GetName())
	}
	slices.Sort(names)
	return names, nil
}

// Drop deletes an owned RAG's collection (driver_config.collection, or
// the RAG's name). An attached RAG's collection belongs to someone else:
// Drop leaves it alone and succeeds, so that the kernel removes only the
// RAG's yaml. A store open in this process is refused; a collection that
// is not there is not an error.
func (s *Store) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	if req.Store == "" {
		return fmt.Errorf("drop: no store name: %w", sdk.ErrInvalidArgument)
	}
	if req.Attached {
		return nil
	}
	s.mu.Lock()
	_, open := s.stores[req.Store]
	s.mu.Unlock()
	if open {
		return fmt.Errorf("drop RAG %q: its store is open; close it first: %w", req.Store, sdk.ErrFailedPrecondition)
	}
	cfg, err := parseConfig(req.DriverConfig, req.Store, false)
	if err != nil {
		return fmt.Errorf("RAG %q: %w", req.Store, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, openTimeout)
		defer cancel()
	}
	client, err := dial(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	// Qdrant answers a missing collection with false, or (some versions)
	// with NotFound: both mean there is nothing left to drop.
	_, err = client.GetCollectionsClient().Delete(ctx, &qdrant.DeleteCollection{CollectionName: cfg.collection})
	if err != nil && statusCode(err) != codes.NotFound {
		return qdrantError(err, fmt.Sprintf("delete collection %q", cfg.collection), cfg.display)
	}
	sdk.Logger().Debug("dropped RAG store", "store", req.Store, "collection", cfg.collection, "host", cfg.display)
	return nil
}

var (
	_ ragstore.Store            = (*Store)(nil)
	_ ragstore.CollectionLister = (*Store)(nil)
	_ ragstore.Dropper          = (*Store)(nil)
)

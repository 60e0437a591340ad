// Package qdrantfake is an in-process Qdrant for tests: a gRPC server built
// on the go-client's generated service interfaces, holding collections in
// memory. It answers the calls the rag-qdrant driver makes
// (Collections.Get/List/Create/Delete/CollectionExists, Points.Upsert/
// Delete/Get/Query/Search/Count/CreateFieldIndex/Facet) with Qdrant's status codes and
// messages, and nothing else (the embedded Unimplemented servers answer
// the rest). No Qdrant server can be installed here; tests of the driver,
// and of the kernel with the driver, run against this instead.
//
// Scores follow the original's account of Qdrant: cosine (vectors
// normalised), dot product, and Euclid as the negative distance, best
// first. Get answers in storage order, not request order, as Qdrant may.
//
// It models single dense-vector collections, the only kind Coyote
// attaches to or owns. Named-vector collections exist so tests can check
// they are refused at Open; searching one, or creating a sparse-only
// collection, is answered with an error that says it is outside the model,
// so a test that strays there fails loudly instead of passing on made-up
// results.
package qdrantfake

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Server is a running fake Qdrant.
type Server struct {
	// mu guards the fields up to grpc; every RPC holds it (see serve).
	mu          sync.Mutex
	collections map[string]*collection
	apiKey      string
	noQuery     bool
	queries     []*qdrant.QueryPoints
	searches    []*qdrant.SearchPoints

	grpc *grpc.Server
	addr string
}

// CollectionConfig describes a collection made by a test (the shapes an
// attached collection may have).
type CollectionConfig struct {
	// Dimension of the vectors; for Named, of each.
	Dimension int
	// Distance is qdrant.Distance_Cosine when zero.
	Distance qdrant.Distance
	// Named makes a collection of named vectors with these names.
	Named []string
	// Multivector makes the unnamed vector a multi-vector (late
	// interaction).
	Multivector bool
}

type collection struct {
	cfg     CollectionConfig
	points  map[string]*point
	indexed map[string]qdrant.FieldType
}

func newCollection(cfg CollectionConfig) *collection {
	return &collection{cfg: cfg, points: map[string]*point{}, indexed: map[string]qdrant.FieldType{}}
}

type point struct {
	id      *qdrant.PointId
	key     string
	vector  []float32
	payload map[string]*qdrant.Value
}

// Start serves a fake Qdrant on a loopback port until the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0")
	if err != nil {
		tb.Fatalf("start fake Qdrant: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Listen serves a fake Qdrant at addr (host:port) until Close.
func Listen(addr string) (*Server, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{collections: map[string]*collection{}, addr: lis.Addr().String()}
	s.grpc = grpc.NewServer(grpc.UnaryInterceptor(s.serve))
	qdrant.RegisterCollectionsServer(s.grpc, &collectionsService{s: s})
	qdrant.RegisterPointsServer(s.grpc, &pointsService{s: s})
	go s.grpc.Serve(lis) //nolint:errcheck // ends with Close
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.grpc.Stop() }

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.addr }

// URL is the server's address as a driver_config host.
func (s *Server) URL() string { return "http://" + s.addr }

// RequireAPIKey makes every call without this api-key header fail as
// Qdrant does.
func (s *Server) RequireAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// DisableQuery makes the server answer Query as Qdrant before 1.10 does:
// unimplemented.
func (s *Server) DisableQuery() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noQuery = true
}

// Queries returns the Query requests received so far.
func (s *Server) Queries() []*qdrant.QueryPoints {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

// Searches returns the Search requests received so far.
func (s *Server) Searches() []*qdrant.SearchPoints {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.searches)
}

// AddCollection creates a collection as another program would.
func (s *Server) AddCollection(name string, cfg CollectionConfig) {
	if cfg.Distance == qdrant.Distance_UnknownDistance {
		cfg.Distance = qdrant.Distance_Cosine
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.collections[name] = newCollection(cfg)
}

// DropCollection deletes a collection as another program would.
func (s *Server) DropCollection(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.collections, name)
}

// AddPoint stores a point as another program would. id is a uint64 (or
// int) or a UUID string; payload values are what qdrant.NewValueMap takes.
func (s *Server) AddPoint(coll string, id any, vector []float32, payload map[string]any) {
	var pid *qdrant.PointId
	switch v := id.(type) {
	case int:
		pid = qdrant.NewIDNum(uint64(v))
	case uint64:
		pid = qdrant.NewIDNum(v)
	case string:
		pid = qdrant.NewIDUUID(v)
	default:
		panic(fmt.Sprintf("qdrantfake: point id %T", id))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[coll]
	if c == nil {
		panic("qdrantfake: no collection " + coll)
	}
	p, err := c.newPoint(pid, qdrant.NewVectorsDense(vector), qdrant.NewValueMap(payload))
	if err != nil {
		panic(err)
	}
	c.points[p.key] = p
}

// Count is the number of points in a collection (-1 when it does not
// exist).
func (s *Server) Count(coll string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[coll]
	if c == nil {
		return -1
	}
	return len(c.points)
}

// Collection returns a collection's configuration, and whether it exists.
func (s *Server) Collection(name string) (CollectionConfig, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[name]
	if c == nil {
		return CollectionConfig{}, false
	}
	return c.cfg, true
}

// Indexed reports whether a payload field has an index in a collection.
func (s *Server) Indexed(coll, field string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[coll]
	if c == nil {
		return false
	}
	_, ok := c.indexed[field]
	return ok
}

// serve runs every RPC: it checks the api-key header, then calls the
// handler holding s.mu, so that the handlers need no locking of their own.
func (s *Server) serve(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.apiKey != "" {
		md, _ := metadata.FromIncomingContext(ctx)
		if got := md.Get("api-key"); len(got) == 0 || got[0] != s.apiKey {
			return nil, status.Error(codes.Unauthenticated, "Invalid api-key")
		}
	}
	return handler(ctx, req)
}

// collectionLocked returns a collection or Qdrant's not-found error.
func (s *Server) collectionLocked(name string) (*collection, error) {
	c := s.collections[name]
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "Not found: Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

// newPoint checks a point against the collection's vector shape.
func (c *collection) newPoint(id *qdrant.PointId, vectors *qdrant.Vectors, payload map[string]*qdrant.Value) (*point, error) {
	key, id, err := pointKey(id)
	if err != nil {
		return nil, err
	}
	if vectors.GetVectors() != nil {
		for name := range vectors.GetVectors().GetVectors() {
			if !slices.Contains(c.cfg.Named, name) {
				return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Not existing vector name error: %s", name)
			}
		}
		// Named vectors are kept only to be refused by searches.
		return &point{id: id, key: key, payload: payload}, nil
	}
	if len(c.cfg.Named) > 0 {
		return nil, status.Error(codes.InvalidArgument, "Wrong input: Not existing vector name error: ")
	}
	v := vectors.GetVector()
	data := v.GetDense().GetData()
	if data == nil {
		data = v.GetData() //nolint:staticcheck // old clients send the deprecated field
	}
	if len(data) != c.cfg.Dimension {
		return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.cfg.Dimension, len(data))
	}
	vec := slices.Clone(data)
	if c.cfg.Distance == qdrant.Distance_Cosine {
		normalize(vec)
	}
	return &point{id: id, key: key, vector: vec, payload: payload}, nil
}

// pointKey checks an id and returns its map key and its canonical form
// (Qdrant answers UUIDs hyphenated and in lower case).
func pointKey(id *qdrant.PointId) (string, *qdrant.PointId, error) {
	switch v := id.GetPointIdOptions().(type) {
	case *qdrant.PointId_Num:
		return "n" + strconv.FormatUint(v.Num, 10), id, nil
	case *qdrant.PointId_Uuid:
		u, ok := canonicalUUID(v.Uuid)
		if !ok {
			return "", nil, status.Errorf(codes.InvalidArgument, "Unable to parse UUID: %s", v.Uuid)
		}
		return "u" + u, qdrant.NewIDUUID(u), nil
	}
	return "", nil, status.Error(codes.InvalidArgument, "Wrong input: empty point id")
}

func canonicalUUID(s string) (string, bool) {
	s = strings.TrimPrefix(strings.ToLower(s), "urn:uuid:")
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) == 36 {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return "", false
		}
		s = strings.ReplaceAll(s, "-", "")
	}
	if len(s) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", false
	}
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:], true
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
}

// score is Qdrant's score of a stored vector for a query: bigger is
// better.
func (c *collection) score(stored, query []float32) float32 {
	switch c.cfg.Distance {
	case qdrant.Distance_Euclid:
		var d float64
		for i := range stored {
			x := float64(stored[i]) - float64(query[i])
			d += x * x
		}
		return -float32(math.Sqrt(d))
	case qdrant.Distance_Manhattan:
		var d float64
		for i := range stored {
			d += math.Abs(float64(stored[i]) - float64(query[i]))
		}
		return -float32(d)
	}
	var dot float64
	for i := range stored {
		dot += float64(stored[i]) * float64(query[i])
	}
	return float32(dot)
}

// matches reports whether a point's payload passes a filter: the keyword
// matches of must, must_not and should, which is all the driver sends.
func matches(p *point, f *qdrant.Filter) (bool, error) {
	if f == nil {
		return true, nil
	}
	for _, cond := range f.GetMust() {
		ok, err := matchCondition(p, cond)
		if err != nil || !ok {
			return false, err
		}
	}
	for _, cond := range f.GetMustNot() {
		ok, err := matchCondition(p, cond)
		if err != nil || ok {
			return false, err
		}
	}
	if len(f.GetShould()) > 0 {
		for _, cond := range f.GetShould() {
			ok, err := matchCondition(p, cond)
			if err != nil {
				return false, err
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	}
	return true, nil
}

func matchCondition(p *point, cond *qdrant.Condition) (bool, error) {
	fc := cond.GetField()
	if fc == nil || fc.GetMatch() == nil {
		return false, status.Error(codes.Unimplemented, "qdrantfake: only field match conditions are implemented")
	}
	v, ok := p.payload[fc.GetKey()]
	if !ok {
		return false, nil
	}
	m := fc.GetMatch()
	switch m.GetMatchValue().(type) {
	case *qdrant.Match_Keyword:
		return v.GetStringValue() == m.GetKeyword(), nil
	case *qdrant.Match_Integer:
		return v.GetIntegerValue() == m.GetInteger(), nil
	}
	return false, status.Error(codes.Unimplemented, "qdrantfake: only keyword and integer matches are implemented")
}

// selectPayload applies a with_payload selector.
func selectPayload(p map[string]*qdrant.Value, sel *qdrant.WithPayloadSelector) map[string]*qdrant.Value {
	switch {
	case sel == nil:
		return nil
	case sel.GetInclude() != nil:
		out := map[string]*qdrant.Value{}
		for _, f := range sel.GetInclude().GetFields() {
			if v, ok := p[f]; ok {
				out[f] = v
			}
		}
		return out
	case sel.GetExclude() != nil:
		out := map[string]*qdrant.Value{}
		for k, v := range p {
			if !slices.Contains(sel.GetExclude().GetFields(), k) {
				out[k] = v
			}
		}
		return out
	case sel.GetEnable():
		return p
	}
	return nil
}

// matching returns the points that pass a filter (all of them for a nil
// one), in storage order.
func (c *collection) matching(f *qdrant.Filter) ([]*point, error) {
	var out []*point
	for _, p := range c.points {
		ok, err := matches(p, f)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, byKey)
	return out, nil
}

// byKey orders points as Qdrant stores them.
func byKey(a, b *point) int { return cmp.Compare(a.key, b.key) }

package qdrantfake

import (
	"cmp"
	"context"
	"slices"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type collectionsService struct {
	qdrant.UnimplementedCollectionsServer
	s *Server
}

func (cs *collectionsService) Get(_ context.Context, req *qdrant.GetCollectionInfoRequest) (*qdrant.GetCollectionInfoResponse, error) {
	c, err := cs.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	var vc *qdrant.VectorsConfig
	params := func() *qdrant.VectorParams {
		p := &qdrant.VectorParams{Size: uint64(c.cfg.Dimension), Distance: c.cfg.Distance}
		if c.cfg.Multivector {
			p.MultivectorConfig = &qdrant.MultiVectorConfig{Comparator: qdrant.MultiVectorComparator_MaxSim}
		}
		return p
	}
	if len(c.cfg.Named) > 0 {
		m := map[string]*qdrant.VectorParams{}
		for _, n := range c.cfg.Named {
			m[n] = params()
		}
		vc = qdrant.NewVectorsConfigMap(m)
	} else {
		vc = qdrant.NewVectorsConfig(params())
	}
	schema := map[string]*qdrant.PayloadSchemaInfo{}
	for f, t := range c.indexed {
		schema[f] = &qdrant.PayloadSchemaInfo{DataType: qdrant.PayloadSchemaType(t + 1)}
	}
	n := uint64(len(c.points))
	return &qdrant.GetCollectionInfoResponse{Result: &qdrant.CollectionInfo{
		Status:        qdrant.CollectionStatus_Green,
		Config:        &qdrant.CollectionConfig{Params: &qdrant.CollectionParams{VectorsConfig: vc}},
		PayloadSchema: schema,
		PointsCount:   &n,
	}}, nil
}

func (cs *collectionsService) List(context.Context, *qdrant.ListCollectionsRequest) (*qdrant.ListCollectionsResponse, error) {
	r := &qdrant.ListCollectionsResponse{}
	for name := range cs.s.collections {
		r.Collections = append(r.Collections, &qdrant.CollectionDescription{Name: name})
	}
	slices.SortFunc(r.Collections, func(a, b *qdrant.CollectionDescription) int { return cmp.Compare(a.Name, b.Name) })
	return r, nil
}

func (cs *collectionsService) CollectionExists(_ context.Context, req *qdrant.CollectionExistsRequest) (*qdrant.CollectionExistsResponse, error) {
	_, ok := cs.s.collections[req.GetCollectionName()]
	return &qdrant.CollectionExistsResponse{Result: &qdrant.CollectionExists{Exists: ok}}, nil
}

func (cs *collectionsService) Create(_ context.Context, req *qdrant.CreateCollection) (*qdrant.CollectionOperationResponse, error) {
	name := req.GetCollectionName()
	if name == "" {
		return nil, status.Error(codes.InvalidArgument, "Validation error in body: collection_name: must not be empty")
	}
	vc := req.GetVectorsConfig()
	cfg := CollectionConfig{}
	switch {
	case vc.GetParams() != nil:
		p := vc.GetParams()
		cfg.Dimension, cfg.Distance, cfg.Multivector = int(p.GetSize()), p.GetDistance(), p.GetMultivectorConfig() != nil
	case vc.GetParamsMap() != nil:
		for n, p := range vc.GetParamsMap().GetMap() {
			cfg.Named = append(cfg.Named, n)
			cfg.Dimension, cfg.Distance = int(p.GetSize()), p.GetDistance()
		}
		slices.Sort(cfg.Named)
	default:
		return nil, status.Error(codes.InvalidArgument, "qdrantfake: only dense-vector collections are modelled (sparse-only ones are outside the fake; Coyote cannot attach them)")
	}
	if cfg.Dimension < 1 {
		return nil, status.Error(codes.InvalidArgument, "Validation error in body: vectors.size: value 0 invalid, must be 1 or larger")
	}
	if cfg.Distance == qdrant.Distance_UnknownDistance {
		return nil, status.Error(codes.InvalidArgument, "Wrong input: unknown distance")
	}
	if _, ok := cs.s.collections[name]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "Wrong input: Collection `%s` already exists!", name)
	}
	cs.s.collections[name] = newCollection(cfg)
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

func (cs *collectionsService) Delete(_ context.Context, req *qdrant.DeleteCollection) (*qdrant.CollectionOperationResponse, error) {
	_, ok := cs.s.collections[req.GetCollectionName()]
	delete(cs.s.collections, req.GetCollectionName())
	return &qdrant.CollectionOperationResponse{Result: ok}, nil
}

type pointsService struct {
	qdrant.UnimplementedPointsServer
	s *Server
}

func completed() *qdrant.PointsOperationResponse {
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{Status: qdrant.UpdateStatus_Completed}}
}

func (ps *pointsService) Upsert(_ context.Context, req *qdrant.UpsertPoints) (*qdrant.PointsOperationResponse, error) {
	c, err := ps.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	// All or nothing, as one Qdrant operation.
	batch := make([]*point, 0, len(req.GetPoints()))
	for _, in := range req.GetPoints() {
		p, err := c.newPoint(in.GetId(), in.GetVectors(), in.GetPayload())
		if err != nil {
			return nil, err
		}
		batch = append(batch, p)
	}
	for _, p := range batch {
		c.points[p.key] = p
	}
	return completed(), nil
}

func (ps *pointsService) Delete(_ context.Context, req *qdrant.DeletePoints) (*qdrant.PointsOperationResponse, error) {
	c, err := ps.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	sel := req.GetPoints()
	switch {
	case sel.GetPoints() != nil:
		for _, id := range sel.GetPoints().GetIds() {
			key, _, err := pointKey(id)
			if err != nil {
				return nil, err
			}
			delete(c.points, key)
		}
	case sel.GetFilter() != nil:
		found, err := c.matching(sel.GetFilter())
		if err != nil {
			return nil, err
		}
		for _, p := range found {
			delete(c.points, p.key)
		}
	default:
		return nil, status.Error(codes.InvalidArgument, "Wrong input: no points selector")
	}
	return completed(), nil
}

func (ps *pointsService) Get(_ context.Context, req *qdrant.GetPoints) (*qdrant.GetResponse, error) {
	c, err := ps.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	var found []*point
	for _, id := range req.GetIds() {
		key, _, err := pointKey(id)
		if err != nil {
			return nil, err
		}
		if p, ok := c.points[key]; ok && !slices.Contains(found, p) {
			found = append(found, p)
		}
	}
	// Storage order, not request order.
	slices.SortFunc(found, byKey)
	r := &qdrant.GetResponse{}
	for _, p := range found {
		r.Result = append(r.Result, &qdrant.RetrievedPoint{Id: p.id, Payload: selectPayload(p.payload, req.GetWithPayload())})
	}
	return r, nil
}

func (ps *pointsService) Query(_ context.Context, req *qdrant.QueryPoints) (*qdrant.QueryResponse, error) {
	s := ps.s
	if s.noQuery {
		return nil, status.Error(codes.Unimplemented, "unknown method Query for service qdrant.Points")
	}
	s.queries = append(s.queries, req)
	c, err := s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	in := req.GetQuery().GetNearest()
	if in.GetDense() == nil {
		return nil, status.Error(codes.Unimplemented, "qdrantfake: only nearest queries with a dense vector are implemented")
	}
	limit := uint64(10)
	if req.Limit != nil {
		limit = req.GetLimit()
	}
	hits, err := c.search(in.GetDense().GetData(), req.GetUsing(), req.GetFilter(), limit, req.ScoreThreshold, req.GetWithPayload())
	if err != nil {
		return nil, err
	}
	return &qdrant.QueryResponse{Result: hits}, nil
}

func (ps *pointsService) Search(_ context.Context, req *qdrant.SearchPoints) (*qdrant.SearchResponse, error) {
	s := ps.s
	s.searches = append(s.searches, req)
	c, err := s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	hits, err := c.search(req.GetVector(), req.GetVectorName(), req.GetFilter(), req.GetLimit(), req.ScoreThreshold, req.GetWithPayload())
	if err != nil {
		return nil, err
	}
	return &qdrant.SearchResponse{Result: hits}, nil
}

// search scores every point (an exact scan), best first.
func (c *collection) search(query []float32, using string, filter *qdrant.Filter, limit uint64, threshold *float32, sel *qdrant.WithPayloadSelector) ([]*qdrant.ScoredPoint, error) {
	if (len(c.cfg.Named) > 0 || using != "") && !slices.Contains(c.cfg.Named, using) {
		return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Not existing vector name error: %s", using)
	}
	if len(c.cfg.Named) > 0 {
		return nil, status.Error(codes.Unimplemented, "qdrantfake: named-vector collections are modelled for listing and refusal only (Coyote refuses them at Open, so it never searches one)")
	}
	if c.cfg.Multivector {
		return nil, status.Error(codes.InvalidArgument, "Wrong input: Vector type error: expected multi-vector")
	}
	if len(query) != c.cfg.Dimension {
		return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.cfg.Dimension, len(query))
	}
	q := slices.Clone(query)
	if c.cfg.Distance == qdrant.Distance_Cosine {
		normalize(q)
	}
	type scored struct {
		p     *point
		score float32
	}
	found, err := c.matching(filter)
	if err != nil {
		return nil, err
	}
	var all []scored
	for _, p := range found {
		sc := c.score(p.vector, q)
		if threshold != nil && sc < *threshold {
			continue
		}
		all = append(all, scored{p, sc})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	if uint64(len(all)) > limit {
		all = all[:limit]
	}
	out := make([]*qdrant.ScoredPoint, 0, len(all))
	for _, h := range all {
		out = append(out, &qdrant.ScoredPoint{Id: h.p.id, Score: h.score, Payload: selectPayload(h.p.payload, sel)})
	}
	return out, nil
}

func (ps *pointsService) Count(_ context.Context, req *qdrant.CountPoints) (*qdrant.CountResponse, error) {
	c, err := ps.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	found, err := c.matching(req.GetFilter())
	if err != nil {
		return nil, err
	}
	return &qdrant.CountResponse{Result: &qdrant.CountResult{Count: uint64(len(found))}}, nil
}

func (ps *pointsService) CreateFieldIndex(_ context.Context, req *qdrant.CreateFieldIndexCollection) (*qdrant.PointsOperationResponse, error) {
	c, err := ps.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	c.indexed[req.GetFieldName()] = req.GetFieldType()
	return completed(), nil
}

func (ps *pointsService) Facet(_ context.Context, req *qdrant.FacetCounts) (*qdrant.FacetResponse, error) {
	c, err := ps.s.collectionLocked(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if t, ok := c.indexed[req.GetKey()]; !ok || t != qdrant.FieldType_FieldTypeKeyword {
		return nil, status.Errorf(codes.InvalidArgument, "Bad request: Index required but not found for \"%s\" of one of the following types: [keyword, integer, bool]", req.GetKey())
	}
	found, err := c.matching(req.GetFilter())
	if err != nil {
		return nil, err
	}
	counts := map[string]uint64{}
	for _, p := range found {
		if v := p.payload[req.GetKey()].GetStringValue(); v != "" {
			counts[v]++
		}
	}
	r := &qdrant.FacetResponse{}
	for v, n := range counts {
		r.Hits = append(r.Hits, &qdrant.FacetHit{Value: qdrant.NewFacetValue(v), Count: n})
	}
	slices.SortFunc(r.Hits, func(a, b *qdrant.FacetHit) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value.GetStringValue(), b.Value.GetStringValue()))
	})
	limit := uint64(10)
	if req.Limit != nil {
		limit = req.GetLimit()
	}
	if uint64(len(r.Hits)) > limit {
		r.Hits = r.Hits[:limit]
	}
	return r, nil
}

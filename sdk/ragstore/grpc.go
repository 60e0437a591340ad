package ragstore

import (
	"context"
	"fmt"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/ragstorev1"
)

// Plugin wraps a Store for sdk.Serve:
//
//	sdk.Serve(sdk.Info{Name: "mystore", Version: "0.1.0"}, ragstore.Plugin(myStore))
//
// The plugin announces CapKeywordSearch when impl implements
// KeywordSearcher, CapListCollections for CollectionLister, CapDrop for
// Dropper, CapListFiles for FileLister, CapGraph for GraphKeeper and
// CapSetup for DriverSetup; CapOwned and CapAttach are the plugin author's to add in
// sdk.Info.Capabilities. The kernel calls Plugin with a nil implementation
// to build its side of the connection.
func Plugin(impl Store) sdk.Plugin {
	return &GRPCPlugin{Impl: impl}
}

// GRPCPlugin carries a Store over gRPC: it serves Impl in the plugin
// process and dispenses a client implementing Store and KeywordSearcher in
// the kernel.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl Store
}

// Kind reports sdk.KindRAG.
func (p *GRPCPlugin) Kind() string { return sdk.KindRAG }

// Capabilities reports what the optional interfaces of the implementation
// add.
func (p *GRPCPlugin) Capabilities() []string {
	var caps []string
	if _, ok := p.Impl.(KeywordSearcher); ok {
		caps = append(caps, CapKeywordSearch)
	}
	if _, ok := p.Impl.(CollectionLister); ok {
		caps = append(caps, CapListCollections)
	}
	if _, ok := p.Impl.(Dropper); ok {
		caps = append(caps, CapDrop)
	}
	if _, ok := p.Impl.(DriverSetup); ok {
		caps = append(caps, CapSetup)
	}
	if _, ok := p.Impl.(FileLister); ok {
		caps = append(caps, CapListFiles)
	}
	if _, ok := p.Impl.(GraphKeeper); ok {
		caps = append(caps, CapGraph)
	}
	return caps
}

// GRPCServer registers the implementation with the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterRagStoreServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the kernel's Store for a connected plugin.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &grpcClient{client: pb.NewRagStoreClient(c)}, nil
}

// grpcServer adapts a Store to the generated service.
type grpcServer struct {
	pb.UnimplementedRagStoreServer
	impl Store
}

func (s *grpcServer) Open(ctx context.Context, req *pb.OpenRequest) (*pb.OpenResponse, error) {
	r, err := openRequestFromProto(req)
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	resp, err := s.impl.Open(ctx, r)
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	if resp == nil {
		resp = &OpenResponse{}
	}
	return &pb.OpenResponse{Stats: statsToProto(&resp.Stats), Capabilities: resp.Capabilities}, nil
}

func (s *grpcServer) Upsert(ctx context.Context, req *pb.UpsertRequest) (*pb.UpsertResponse, error) {
	if err := s.impl.Upsert(ctx, &UpsertRequest{Store: req.GetStore(), Chunks: chunksFromProto(req.GetChunks())}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.UpsertResponse{}, nil
}

func (s *grpcServer) DeleteFile(ctx context.Context, req *pb.DeleteFileRequest) (*pb.DeleteFileResponse, error) {
	if err := s.impl.DeleteFile(ctx, &DeleteFileRequest{Store: req.GetStore(), FileID: req.GetFileId()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.DeleteFileResponse{}, nil
}

func (s *grpcServer) VectorSearch(ctx context.Context, req *pb.VectorSearchRequest) (*pb.SearchResponse, error) {
	if err := checkTopK(req.GetTopK()); err != nil {
		return nil, err
	}
	resp, err := s.impl.VectorSearch(ctx, &VectorSearchRequest{
		Store:    req.GetStore(),
		Vector:   req.GetVector(),
		TopK:     int(req.GetTopK()),
		MinScore: req.GetMinScore(),
	})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return searchToProto(resp), nil
}

func (s *grpcServer) KeywordSearch(ctx context.Context, req *pb.KeywordSearchRequest) (*pb.SearchResponse, error) {
	k, ok := s.impl.(KeywordSearcher)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("keyword search: %w", sdk.ErrUnsupported))
	}
	if err := checkTopK(req.GetTopK()); err != nil {
		return nil, err
	}
	resp, err := k.KeywordSearch(ctx, &KeywordSearchRequest{Store: req.GetStore(), Query: req.GetQuery(), TopK: int(req.GetTopK())})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return searchToProto(resp), nil
}

// checkTopK refuses a search for fewer than one hit before it reaches the
// store, so that every driver answers it alike.
func checkTopK(k int32) error {
	if k < 1 {
		return sdk.ToStatus(fmt.Errorf("top_k must be at least 1, not %d: %w", k, sdk.ErrInvalidArgument))
	}
	return nil
}

func (s *grpcServer) ListCollections(ctx context.Context, req *pb.ListCollectionsRequest) (*pb.ListCollectionsResponse, error) {
	l, ok := s.impl.(CollectionLister)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("list collections: %w", sdk.ErrUnsupported))
	}
	dc, err := driverConfigFromJSON(req.GetDriverConfigJson())
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	resp, err := l.ListCollections(ctx, &ListCollectionsRequest{DriverConfig: dc})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.ListCollectionsResponse{Names: resp.Names}, nil
}

func (s *grpcServer) Drop(ctx context.Context, req *pb.DropRequest) (*pb.DropResponse, error) {
	d, ok := s.impl.(Dropper)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("drop: %w", sdk.ErrUnsupported))
	}
	r, err := dropRequestFromProto(req)
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	if err := d.Drop(ctx, r); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.DropResponse{}, nil
}

func (s *grpcServer) Setup(ctx context.Context, req *pb.SetupRequest) (*pb.SetupResponse, error) {
	d, ok := s.impl.(DriverSetup)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("setup: %w", sdk.ErrUnsupported))
	}
	resp, err := d.Setup(ctx, &SetupRequest{Store: req.GetStore(), Attached: req.GetAttached()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return setupResponseToProto(resp), nil
}

func (s *grpcServer) ValidateConfig(ctx context.Context, req *pb.ValidateConfigRequest) (*pb.ValidateConfigResponse, error) {
	d, ok := s.impl.(DriverSetup)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("validate driver_config: %w", sdk.ErrUnsupported))
	}
	dc, err := driverConfigFromJSON(req.GetDriverConfigJson())
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	if err := d.ValidateConfig(ctx, &ValidateConfigRequest{Store: req.GetStore(), DriverConfig: dc, Attached: req.GetAttached()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.ValidateConfigResponse{}, nil
}

func (s *grpcServer) ListFiles(ctx context.Context, req *pb.ListFilesRequest) (*pb.ListFilesResponse, error) {
	l, ok := s.impl.(FileLister)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("list files: %w", sdk.ErrUnsupported))
	}
	resp, err := l.ListFiles(ctx, &ListFilesRequest{Store: req.GetStore()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	out := &pb.ListFilesResponse{}
	if resp != nil {
		out.Files = make([]*pb.FileChunks, len(resp.Files))
		for i, f := range resp.Files {
			out.Files[i] = &pb.FileChunks{FileId: f.FileID, Chunks: f.Chunks}
		}
	}
	return out, nil
}

func (s *grpcServer) SaveGraph(ctx context.Context, req *pb.SaveGraphRequest) (*pb.SaveGraphResponse, error) {
	g, ok := s.impl.(GraphKeeper)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("save the knowledge graph: %w", sdk.ErrUnsupported))
	}
	if err := g.SaveGraph(ctx, &SaveGraphRequest{Store: req.GetStore(), Data: req.GetData()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.SaveGraphResponse{}, nil
}

func (s *grpcServer) LoadGraph(ctx context.Context, req *pb.LoadGraphRequest) (*pb.LoadGraphResponse, error) {
	g, ok := s.impl.(GraphKeeper)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("load the knowledge graph: %w", sdk.ErrUnsupported))
	}
	resp, err := g.LoadGraph(ctx, &LoadGraphRequest{Store: req.GetStore()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	out := &pb.LoadGraphResponse{}
	if resp != nil {
		out.Data = resp.Data
	}
	return out, nil
}

func (s *grpcServer) FetchContent(ctx context.Context, req *pb.FetchContentRequest) (*pb.FetchContentResponse, error) {
	resp, err := s.impl.FetchContent(ctx, &FetchContentRequest{Store: req.GetStore(), IDs: req.GetIds()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	out := &pb.FetchContentResponse{}
	if resp != nil {
		out.Contents = make([]*pb.Content, len(resp.Contents))
		for i, c := range resp.Contents {
			out.Contents[i] = &pb.Content{Id: c.ID, Text: c.Text, Metadata: c.Metadata}
		}
	}
	return out, nil
}

func (s *grpcServer) Stats(ctx context.Context, req *pb.StatsRequest) (*pb.StatsResponse, error) {
	st, err := s.impl.Stats(ctx, &StatsRequest{Store: req.GetStore()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.StatsResponse{Stats: statsToProto(st)}, nil
}

func (s *grpcServer) Rebuild(ctx context.Context, req *pb.RebuildRequest) (*pb.RebuildResponse, error) {
	if err := s.impl.Rebuild(ctx, &RebuildRequest{Store: req.GetStore(), Full: req.GetFull()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.RebuildResponse{}, nil
}

func (s *grpcServer) Close(ctx context.Context, req *pb.CloseRequest) (*pb.CloseResponse, error) {
	if err := s.impl.Close(ctx, &CloseRequest{Store: req.GetStore()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.CloseResponse{}, nil
}

// grpcClient is the kernel's Store for a plugin process. It also
// implements KeywordSearcher, CollectionLister, Dropper, FileLister and
// DriverSetup; a plugin without them answers sdk.ErrUnsupported.
type grpcClient struct {
	client pb.RagStoreClient
}

func (c *grpcClient) Open(ctx context.Context, req *OpenRequest) (*OpenResponse, error) {
	r, err := openRequestToProto(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Open(ctx, r)
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &OpenResponse{Stats: statsFromProto(resp.GetStats()), Capabilities: resp.GetCapabilities()}, nil
}

// Upsert sends the chunks in as many calls as MaxBatchBytes asks for, so
// that no message outgrows gRPC's limits whatever the caller sends.
func (c *grpcClient) Upsert(ctx context.Context, req *UpsertRequest) error {
	for _, batch := range SplitBatches(req.Chunks, MaxBatchBytes) {
		if _, err := c.client.Upsert(ctx, &pb.UpsertRequest{Store: req.Store, Chunks: chunksToProto(batch)}); err != nil {
			return sdk.FromStatus(err)
		}
	}
	return nil
}

func (c *grpcClient) DeleteFile(ctx context.Context, req *DeleteFileRequest) error {
	_, err := c.client.DeleteFile(ctx, &pb.DeleteFileRequest{Store: req.Store, FileId: req.FileID})
	return sdk.FromStatus(err)
}

func (c *grpcClient) VectorSearch(ctx context.Context, req *VectorSearchRequest) (*SearchResponse, error) {
	resp, err := c.client.VectorSearch(ctx, &pb.VectorSearchRequest{
		Store:    req.Store,
		Vector:   req.Vector,
		TopK:     int32(req.TopK),
		MinScore: req.MinScore,
	})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return searchFromProto(resp), nil
}

func (c *grpcClient) KeywordSearch(ctx context.Context, req *KeywordSearchRequest) (*SearchResponse, error) {
	resp, err := c.client.KeywordSearch(ctx, &pb.KeywordSearchRequest{Store: req.Store, Query: req.Query, TopK: int32(req.TopK)})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return searchFromProto(resp), nil
}

func (c *grpcClient) ListCollections(ctx context.Context, req *ListCollectionsRequest) (*ListCollectionsResponse, error) {
	raw, err := driverConfigToJSON(req.DriverConfig)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.ListCollections(ctx, &pb.ListCollectionsRequest{DriverConfigJson: raw})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &ListCollectionsResponse{Names: resp.GetNames()}, nil
}

func (c *grpcClient) Drop(ctx context.Context, req *DropRequest) error {
	r, err := dropRequestToProto(req)
	if err != nil {
		return err
	}
	_, err = c.client.Drop(ctx, r)
	return sdk.FromStatus(err)
}

func (c *grpcClient) Setup(ctx context.Context, req *SetupRequest) (*SetupResponse, error) {
	resp, err := c.client.Setup(ctx, &pb.SetupRequest{Store: req.Store, Attached: req.Attached})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return setupResponseFromProto(resp), nil
}

func (c *grpcClient) ValidateConfig(ctx context.Context, req *ValidateConfigRequest) error {
	raw, err := driverConfigToJSON(req.DriverConfig)
	if err != nil {
		return err
	}
	_, err = c.client.ValidateConfig(ctx, &pb.ValidateConfigRequest{Store: req.Store, DriverConfigJson: raw, Attached: req.Attached})
	return sdk.FromStatus(err)
}

func (c *grpcClient) ListFiles(ctx context.Context, req *ListFilesRequest) (*ListFilesResponse, error) {
	resp, err := c.client.ListFiles(ctx, &pb.ListFilesRequest{Store: req.Store})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	out := &ListFilesResponse{Files: make([]FileChunks, len(resp.GetFiles()))}
	for i, f := range resp.GetFiles() {
		out.Files[i] = FileChunks{FileID: f.GetFileId(), Chunks: f.GetChunks()}
	}
	return out, nil
}

func (c *grpcClient) SaveGraph(ctx context.Context, req *SaveGraphRequest) error {
	_, err := c.client.SaveGraph(ctx, &pb.SaveGraphRequest{Store: req.Store, Data: req.Data})
	return sdk.FromStatus(err)
}

func (c *grpcClient) LoadGraph(ctx context.Context, req *LoadGraphRequest) (*LoadGraphResponse, error) {
	resp, err := c.client.LoadGraph(ctx, &pb.LoadGraphRequest{Store: req.Store})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &LoadGraphResponse{Data: resp.GetData()}, nil
}

func (c *grpcClient) FetchContent(ctx context.Context, req *FetchContentRequest) (*FetchContentResponse, error) {
	resp, err := c.client.FetchContent(ctx, &pb.FetchContentRequest{Store: req.Store, Ids: req.IDs})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	out := &FetchContentResponse{Contents: make([]Content, len(resp.GetContents()))}
	for i, ct := range resp.GetContents() {
		out.Contents[i] = Content{ID: ct.GetId(), Text: ct.GetText(), Metadata: ct.GetMetadata()}
	}
	return out, nil
}

func (c *grpcClient) Stats(ctx context.Context, req *StatsRequest) (*Stats, error) {
	resp, err := c.client.Stats(ctx, &pb.StatsRequest{Store: req.Store})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	st := statsFromProto(resp.GetStats())
	return &st, nil
}

func (c *grpcClient) Rebuild(ctx context.Context, req *RebuildRequest) error {
	_, err := c.client.Rebuild(ctx, &pb.RebuildRequest{Store: req.Store, Full: req.Full})
	return sdk.FromStatus(err)
}

func (c *grpcClient) Close(ctx context.Context, req *CloseRequest) error {
	_, err := c.client.Close(ctx, &pb.CloseRequest{Store: req.Store})
	return sdk.FromStatus(err)
}

var (
	_ sdk.Plugin        = (*GRPCPlugin)(nil)
	_ Store             = (*grpcClient)(nil)
	_ KeywordSearcher   = (*grpcClient)(nil)
	_ CollectionLister  = (*grpcClient)(nil)
	_ Dropper           = (*grpcClient)(nil)
	_ DriverSetup       = (*grpcClient)(nil)
	_ FileLister        = (*grpcClient)(nil)
	_ pb.RagStoreServer = (*grpcServer)(nil)
)

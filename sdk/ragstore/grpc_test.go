package ragstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/ragstorev1"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// vectorsOnly is a store without its own keyword search.
type vectorsOnly struct{ ragstore.Store }

func TestDescribeAnnouncesKeywordSearchOnlyWhenImplemented(t *testing.T) {
	info := sdk.Info{Name: "mem", Version: "0.1.0", Capabilities: []string{ragstore.CapOwned}}
	desc := plugintest.Serve(t, info, ragstore.Plugin(storetest.Reference())).Describe(t)
	if !slices.Equal(desc.Kinds, []string{sdk.KindRAG}) || !desc.Has(ragstore.CapKeywordSearch) || !desc.Has(ragstore.CapOwned) {
		t.Fatalf("describe = %+v", desc)
	}
	desc = plugintest.Serve(t, info, ragstore.Plugin(vectorsOnly{storetest.Reference()})).Describe(t)
	if desc.Has(ragstore.CapKeywordSearch) || !desc.Has(ragstore.CapOwned) {
		t.Fatalf("describe of a store without keyword search = %+v", desc)
	}
}

func TestKeywordSearchOfAStoreWithoutItIsUnsupported(t *testing.T) {
	s := storetest.Serve(t, vectorsOnly{storetest.Reference()})
	ctx := context.Background()
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: t.TempDir() + "/kb.yaml", Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	_, err := s.(ragstore.KeywordSearcher).KeywordSearch(ctx, &ragstore.KeywordSearchRequest{Store: "kb", Query: "fox", TopK: 3})
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.Contains(err.Error(), "keyword search") {
		t.Fatalf("err = %v, want sdk.ErrUnsupported", err)
	}
}

// Fewer than one hit is refused by the SDK alike for every driver; the
// reference store would otherwise answer it with everything.
func TestSearchForFewerThanOneHitIsInvalidArgument(t *testing.T) {
	s := storetest.Serve(t, storetest.Reference())
	ctx := context.Background()
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: t.TempDir() + "/kb.yaml", Mode: ragstore.ReadWrite, Dimension: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: []ragstore.Chunk{{ID: "1-0", FileID: "1", Text: "fox", Vector: []float32{1}}}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, -1} {
		_, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "kb", Vector: []float32{1}, TopK: k})
		if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), "top_k must be at least 1") {
			t.Errorf("vector search with top_k %d: err = %v", k, err)
		}
		_, err = s.(ragstore.KeywordSearcher).KeywordSearch(ctx, &ragstore.KeywordSearchRequest{Store: "kb", Query: "fox", TopK: k})
		if !errors.Is(err, sdk.ErrInvalidArgument) {
			t.Errorf("keyword search with top_k %d: err = %v", k, err)
		}
	}
	if r, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "kb", Vector: []float32{1}, TopK: 1}); err != nil || len(r.Hits) != 1 {
		t.Fatalf("top_k 1: %+v, %v", r, err)
	}
}

func TestErrorsKeepTheirClassAndTextOverTheWire(t *testing.T) {
	s := storetest.Serve(t, storetest.Reference())
	_, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "docs", Path: t.TempDir() + "/docs.yaml"})
	if !errors.Is(err, sdk.ErrNotFound) || !sdk.IsPluginError(err) || !strings.Contains(err.Error(), `RAG "docs" has no store yet`) {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

// recorder keeps what reached the plugin side.
type recorder struct {
	ragstore.Store
	mu      sync.Mutex
	open    *ragstore.OpenRequest
	upserts [][]ragstore.Chunk
}

func (r *recorder) Open(_ context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	r.open = req
	return &ragstore.OpenResponse{Stats: ragstore.Stats{Chunks: 7, Files: 2, Dimension: 384}, Capabilities: []string{"x"}}, nil
}

func (r *recorder) Upsert(_ context.Context, req *ragstore.UpsertRequest) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.upserts = append(r.upserts, req.Chunks)
	return nil
}

// Nil answers from an implementation arrive as empty ones.
func (r *recorder) VectorSearch(context.Context, *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	return nil, nil
}

func (r *recorder) FetchContent(context.Context, *ragstore.FetchContentRequest) (*ragstore.FetchContentResponse, error) {
	return nil, nil
}

func TestOpenRequestRoundTrips(t *testing.T) {
	rec := &recorder{}
	s := storetest.Serve(t, rec)
	req := &ragstore.OpenRequest{
		Store:     "team-kb",
		Path:      "/home/u/.config/coyote/rags/team-kb.yaml",
		Dimension: 384,
		Mode:      ragstore.ReadWrite,
		Attached:  true,
		DriverConfig: map[string]any{
			"host": "http://localhost:6334", "collection": "kb", "api_key": "sk-resolved",
			"timeout": 30, "tls": false, "tags": []any{"a", "b"}, "nested": map[string]any{"x": 1.5},
		},
	}
	resp, err := s.Open(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if want := (ragstore.OpenResponse{Stats: ragstore.Stats{Chunks: 7, Files: 2, Dimension: 384}, Capabilities: []string{"x"}}); !reflect.DeepEqual(*resp, want) {
		t.Fatalf("response = %+v", resp)
	}
	// Numbers arrive as float64, as JSON gives them (provider options
	// travel the same way).
	want := *req
	want.DriverConfig = map[string]any{
		"host": "http://localhost:6334", "collection": "kb", "api_key": "sk-resolved",
		"timeout": 30.0, "tls": false, "tags": []any{"a", "b"}, "nested": map[string]any{"x": 1.5},
	}
	if !reflect.DeepEqual(rec.open, &want) {
		t.Fatalf("plugin got\n%#v\nwant\n%#v", rec.open, &want)
	}
	if _, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "ro"}); err != nil || rec.open.Mode != ragstore.ReadOnly || rec.open.DriverConfig != nil {
		t.Fatalf("read-only open arrived as %+v (%v)", rec.open, err)
	}
}

func TestUnencodableDriverConfigIsInvalidArgument(t *testing.T) {
	s := storetest.Serve(t, &recorder{})
	_, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "kb", DriverConfig: map[string]any{"f": func() {}}})
	if !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("err = %v", err)
	}
}

func TestNilAnswersArriveEmpty(t *testing.T) {
	s := storetest.Serve(t, &recorder{})
	ctx := context.Background()
	r, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "kb", Vector: []float32{1}, TopK: 1})
	if err != nil || len(r.Hits) != 0 {
		t.Fatalf("search = %+v, %v", r, err)
	}
	f, err := s.FetchContent(ctx, &ragstore.FetchContentRequest{Store: "kb", IDs: []string{"1-0"}})
	if err != nil || len(f.Contents) != 0 {
		t.Fatalf("fetch = %+v, %v", f, err)
	}
}

// An upsert far over gRPC's default 4 MiB message limit (which the test
// server keeps) arrives whole, in batches under MaxBatchBytes, in order.
func TestLargeUpsertIsSentInBatches(t *testing.T) {
	rec := &recorder{}
	s := storetest.Serve(t, rec)
	const dim = 384
	var chunks []ragstore.Chunk
	for i := 0; i < 5000; i++ { // about 7.7 MiB of vectors plus text
		v := make([]float32, dim)
		v[i%dim] = float32(i)
		chunks = append(chunks, ragstore.Chunk{
			ID: fmt.Sprintf("%d-%d", i/100, i%100), FileID: fmt.Sprint(i / 100),
			Text: strings.Repeat("word ", 20), Metadata: map[string]string{"source": "doc.md"}, Vector: v,
		})
	}
	if err := s.Upsert(context.Background(), &ragstore.UpsertRequest{Store: "kb", Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	if len(rec.upserts) < 4 {
		t.Fatalf("%d upsert calls, want at least 4", len(rec.upserts))
	}
	var got []ragstore.Chunk
	for _, b := range rec.upserts {
		size := 0
		for i := range b {
			size += ragstore.WireSize(&b[i])
		}
		if size > ragstore.MaxBatchBytes {
			t.Fatalf("a batch of %d bytes", size)
		}
		got = append(got, b...)
	}
	if !reflect.DeepEqual(got, chunks) {
		t.Fatal("the chunks arrived changed or out of order")
	}
}

func TestSplitBatches(t *testing.T) {
	c := func(textLen int) ragstore.Chunk { return ragstore.Chunk{Text: strings.Repeat("x", textLen)} }
	over := ragstore.WireSize(&ragstore.Chunk{}) // the overhead of an empty chunk
	tests := []struct {
		name  string
		sizes []int
		max   int
		want  []int // chunks per batch
	}{
		{"none", nil, 100, nil},
		{"all fit", []int{10, 10, 10}, 3 * (10 + over), []int{3}},
		{"one over", []int{10, 10, 10}, 3*(10+over) - 1, []int{2, 1}},
		{"a giant alone", []int{10, 1000, 10}, 100, []int{1, 1, 1}},
		{"giant first", []int{1000, 1, 1}, 100, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chunks []ragstore.Chunk
			for _, n := range tt.sizes {
				chunks = append(chunks, c(n))
			}
			var got []int
			for _, b := range ragstore.SplitBatches(chunks, tt.max) {
				got = append(got, len(b))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("batches %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWireSizeIsAnUpperBoundOfTheMessage(t *testing.T) {
	meta := map[string]string{"source": "docs/a/b.md"}
	for i := 0; i < 20; i++ {
		meta[fmt.Sprint("key", i)] = strings.Repeat("v", i*20)
	}
	for _, ch := range []ragstore.Chunk{
		{},
		{ID: "1-0", FileID: "1", Text: "x", Vector: []float32{1}},
		{ID: "12-345", FileID: "12", Text: strings.Repeat("héllo wörld ", 2000), Metadata: meta, Vector: make([]float32, 3072)},
	} {
		one := &pb.UpsertRequest{Chunks: []*pb.Chunk{{Id: ch.ID, FileId: ch.FileID, Text: ch.Text, Metadata: ch.Metadata, Vector: ch.Vector}}}
		if exact := proto.Size(one); ragstore.WireSize(&ch) < exact {
			t.Fatalf("WireSize = %d, the message takes %d", ragstore.WireSize(&ch), exact)
		}
	}
}

// lister is a store that lists collections, recording the driver_config
// that reached it.
type lister struct {
	ragstore.Store
	got map[string]any
}

func (l *lister) ListCollections(_ context.Context, req *ragstore.ListCollectionsRequest) (*ragstore.ListCollectionsResponse, error) {
	l.got = req.DriverConfig
	return &ragstore.ListCollectionsResponse{Names: []string{"alpha", "beta"}}, nil
}

func TestListCollectionsCarriesTheDriverConfig(t *testing.T) {
	l := &lister{Store: storetest.Reference()}
	s := storetest.Serve(t, l).(ragstore.CollectionLister)
	ctx := context.Background()
	resp, err := s.ListCollections(ctx, &ragstore.ListCollectionsRequest{DriverConfig: map[string]any{"host": "http://q:6333", "grpc_port": 7000}})
	if err != nil || !slices.Equal(resp.Names, []string{"alpha", "beta"}) {
		t.Fatalf("list = %+v, %v", resp, err)
	}
	if want := map[string]any{"host": "http://q:6333", "grpc_port": 7000.0}; !reflect.DeepEqual(l.got, want) {
		t.Fatalf("plugin got %#v, want %#v", l.got, want)
	}
	if _, err := s.ListCollections(ctx, &ragstore.ListCollectionsRequest{}); err != nil || l.got != nil {
		t.Fatalf("no driver_config arrived as %#v (%v)", l.got, err)
	}
	if _, err := s.ListCollections(ctx, &ragstore.ListCollectionsRequest{DriverConfig: map[string]any{"f": func() {}}}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("unencodable driver_config: err = %v", err)
	}
	_, err = storetest.Serve(t, storetest.Reference()).(ragstore.CollectionLister).ListCollections(ctx, &ragstore.ListCollectionsRequest{})
	if !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("a store that cannot list: err = %v, want sdk.ErrUnsupported", err)
	}
}

func TestDescribeAnnouncesDropOnlyWhenImplemented(t *testing.T) {
	info := sdk.Info{Name: "mem", Version: "0.1.0"}
	if desc := plugintest.Serve(t, info, ragstore.Plugin(storetest.Reference())).Describe(t); !desc.Has(ragstore.CapDrop) {
		t.Fatalf("describe of a store with Drop = %+v", desc)
	}
	if desc := plugintest.Serve(t, info, ragstore.Plugin(vectorsOnly{storetest.Reference()})).Describe(t); desc.Has(ragstore.CapDrop) {
		t.Fatalf("describe of a store without Drop = %+v", desc)
	}
}

// dropRecorder keeps the DropRequest that reached the plugin side.
type dropRecorder struct {
	ragstore.Store
	got *ragstore.DropRequest
}

func (d *dropRecorder) Drop(_ context.Context, req *ragstore.DropRequest) error {
	d.got = req
	if req.Store == "busy" {
		return fmt.Errorf("RAG busy is open: %w", sdk.ErrFailedPrecondition)
	}
	return nil
}

func TestDropRequestRoundTripsAndErrorsKeepTheirClass(t *testing.T) {
	rec := &dropRecorder{}
	s := storetest.Serve(t, rec).(ragstore.Dropper)
	ctx := context.Background()
	req := &ragstore.DropRequest{
		Store: "team-kb", Path: "/home/u/.config/coyote/rags/team-kb.yaml", Attached: true,
		DriverConfig: map[string]any{"host": "http://localhost:6334", "collection": "kb", "timeout": 30},
	}
	if err := s.Drop(ctx, req); err != nil {
		t.Fatal(err)
	}
	want := *req
	want.DriverConfig = map[string]any{"host": "http://localhost:6334", "collection": "kb", "timeout": 30.0}
	if !reflect.DeepEqual(rec.got, &want) {
		t.Fatalf("plugin got\n%#v\nwant\n%#v", rec.got, &want)
	}
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "busy"}); !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "RAG busy is open") {
		t.Fatalf("err = %v", err)
	}
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", DriverConfig: map[string]any{"f": func() {}}}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("unencodable driver_config: err = %v", err)
	}
}

func TestDropOfAStoreWithoutItIsUnsupported(t *testing.T) {
	s := storetest.Serve(t, vectorsOnly{storetest.Reference()})
	err := s.(ragstore.Dropper).Drop(context.Background(), &ragstore.DropRequest{Store: "kb", Path: t.TempDir() + "/kb.yaml"})
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.Contains(err.Error(), "drop") {
		t.Fatalf("err = %v, want sdk.ErrUnsupported", err)
	}
}

// configured is a store with setup questions, recording the driver_config
// it was asked to validate.
type configured struct {
	ragstore.Store
	got *ragstore.ValidateConfigRequest
}

func (c *configured) Setup(_ context.Context, req *ragstore.SetupRequest) (*ragstore.SetupResponse, error) {
	qs := []ragstore.Question{
		{Key: "host", Prompt: "Host", Default: "http://localhost:1", Required: true},
		{Key: "token", Prompt: "Vault secret", Kind: ragstore.QuestionSecret},
	}
	if req.Attached {
		qs = append(qs, ragstore.Question{Key: "collection", Prompt: "Collection", Kind: ragstore.QuestionCollection})
	} else {
		qs = append(qs, ragstore.Question{Key: "collection", Prompt: "Collection", Default: req.Store})
	}
	return &ragstore.SetupResponse{Questions: qs, Note: "text from page_content"}, nil
}

func (c *configured) ValidateConfig(_ context.Context, req *ragstore.ValidateConfigRequest) error {
	c.got = req
	if req.DriverConfig["host"] == nil {
		return fmt.Errorf("driver_config.host is missing: %w", sdk.ErrInvalidArgument)
	}
	return nil
}

func TestSetupAndValidateConfigRoundTrip(t *testing.T) {
	c := &configured{Store: storetest.Reference()}
	info := sdk.Info{Name: "mem", Version: "0.1.0"}
	if desc := plugintest.Serve(t, info, ragstore.Plugin(c)).Describe(t); !desc.Has(ragstore.CapSetup) {
		t.Fatalf("describe of a store with setup = %+v", desc)
	}
	s := storetest.Serve(t, c).(ragstore.DriverSetup)
	ctx := context.Background()
	resp, err := s.Setup(ctx, &ragstore.SetupRequest{Store: "kb", Attached: true})
	if err != nil {
		t.Fatal(err)
	}
	want := &ragstore.SetupResponse{Note: "text from page_content", Questions: []ragstore.Question{
		{Key: "host", Prompt: "Host", Default: "http://localhost:1", Kind: ragstore.QuestionText, Required: true},
		{Key: "token", Prompt: "Vault secret", Kind: ragstore.QuestionSecret},
		{Key: "collection", Prompt: "Collection", Kind: ragstore.QuestionCollection},
	}}
	if !reflect.DeepEqual(resp, want) {
		t.Fatalf("setup\n%+v\nwant\n%+v", resp, want)
	}
	if resp, _ := s.Setup(ctx, &ragstore.SetupRequest{Store: "kb"}); resp.Questions[2].Default != "kb" {
		t.Fatalf("owned setup: %+v", resp)
	}
	if err := s.ValidateConfig(ctx, &ragstore.ValidateConfigRequest{Store: "kb", Attached: true, DriverConfig: map[string]any{"host": "h", "port": 2}}); err != nil {
		t.Fatal(err)
	}
	if c.got.Store != "kb" || !c.got.Attached || !reflect.DeepEqual(c.got.DriverConfig, map[string]any{"host": "h", "port": 2.0}) {
		t.Fatalf("plugin got %+v", c.got)
	}
	err = s.ValidateConfig(ctx, &ragstore.ValidateConfigRequest{Store: "kb"})
	if !errors.Is(err, sdk.ErrInvalidArgument) || err.Error() != "driver_config.host is missing: invalid argument" {
		t.Fatalf("err = %v", err)
	}
	bare := storetest.Serve(t, storetest.Reference()).(ragstore.DriverSetup)
	if _, err := bare.Setup(ctx, &ragstore.SetupRequest{}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("a store without setup: err = %v, want sdk.ErrUnsupported", err)
	}
	if err := bare.ValidateConfig(ctx, &ragstore.ValidateConfigRequest{}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("a store without setup: err = %v, want sdk.ErrUnsupported", err)
	}
}

func TestListFilesCrossesTheWireAndIsOptional(t *testing.T) {
	info := sdk.Info{Name: "mem", Version: "0.1.0"}
	if desc := plugintest.Serve(t, info, ragstore.Plugin(storetest.Reference())).Describe(t); !desc.Has(ragstore.CapListFiles) {
		t.Fatalf("describe of a store with ListFiles = %+v", desc)
	}
	if desc := plugintest.Serve(t, info, ragstore.Plugin(vectorsOnly{storetest.Reference()})).Describe(t); desc.Has(ragstore.CapListFiles) {
		t.Fatalf("describe of a store without ListFiles = %+v", desc)
	}
	ctx := context.Background()
	s := storetest.Serve(t, storetest.Reference())
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: t.TempDir() + "/kb.yaml", Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: storetest.Chunks()}); err != nil {
		t.Fatal(err)
	}
	resp, err := s.(ragstore.FileLister).ListFiles(ctx, &ragstore.ListFilesRequest{Store: "kb"})
	want := []ragstore.FileChunks{{FileID: "1", Chunks: 3}, {FileID: "2", Chunks: 2}, {FileID: "3", Chunks: 1}}
	if err != nil || !reflect.DeepEqual(resp.Files, want) {
		t.Fatalf("list files = %+v, %v; want %+v", resp, err, want)
	}
	if _, err := s.(ragstore.FileLister).ListFiles(ctx, &ragstore.ListFilesRequest{Store: "nope"}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("list files of a store not open: err = %v, want sdk.ErrFailedPrecondition", err)
	}
	_, err = storetest.Serve(t, vectorsOnly{storetest.Reference()}).(ragstore.FileLister).ListFiles(ctx, &ragstore.ListFilesRequest{Store: "kb"})
	if !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("a store that cannot list files: err = %v, want sdk.ErrUnsupported", err)
	}
}

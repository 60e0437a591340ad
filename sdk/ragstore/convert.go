package ragstore

import (
	"encoding/json"
	"fmt"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/ragstorev1"
)

// driverConfigToJSON encodes a driver config for the wire, where it
// travels as a JSON object, as a provider's options do (nil stays empty).
func driverConfigToJSON(dc map[string]any) ([]byte, error) {
	if dc == nil {
		return nil, nil
	}
	raw, err := json.Marshal(dc)
	if err != nil {
		return nil, fmt.Errorf("driver_config: %w: %w", err, sdk.ErrInvalidArgument)
	}
	return raw, nil
}

// driverConfigFromJSON decodes driverConfigToJSON's form: numbers arrive as
// float64, lists as []any and maps as map[string]any.
func driverConfigFromJSON(raw []byte) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var dc map[string]any
	if err := json.Unmarshal(raw, &dc); err != nil {
		return nil, fmt.Errorf("driver_config: %w: %w", err, sdk.ErrInvalidArgument)
	}
	return dc, nil
}

func openRequestToProto(r *OpenRequest) (*pb.OpenRequest, error) {
	out := &pb.OpenRequest{
		Store:     r.Store,
		Path:      r.Path,
		Dimension: int32(r.Dimension),
		Attached:  r.Attached,
	}
	if r.Mode == ReadWrite {
		out.Mode = pb.Mode_MODE_READ_WRITE
	}
	raw, err := driverConfigToJSON(r.DriverConfig)
	if err != nil {
		return nil, fmt.Errorf("RAG %q: %w", r.Store, err)
	}
	out.DriverConfigJson = raw
	return out, nil
}

func openRequestFromProto(r *pb.OpenRequest) (*OpenRequest, error) {
	out := &OpenRequest{
		Store:     r.GetStore(),
		Path:      r.GetPath(),
		Dimension: int(r.GetDimension()),
		Attached:  r.GetAttached(),
	}
	switch r.GetMode() {
	case pb.Mode_MODE_READ_ONLY:
		out.Mode = ReadOnly
	case pb.Mode_MODE_READ_WRITE:
		out.Mode = ReadWrite
	default:
		// A mode from a newer kernel: refuse rather than guess (a store
		// opened read-write by mistake would lock out other processes).
		return nil, fmt.Errorf("open RAG %q: unknown mode %d: %w", out.Store, r.GetMode(), sdk.ErrInvalidArgument)
	}
	dc, err := driverConfigFromJSON(r.GetDriverConfigJson())
	if err != nil {
		return nil, fmt.Errorf("RAG %q: %w", out.Store, err)
	}
	out.DriverConfig = dc
	return out, nil
}

func dropRequestToProto(r *DropRequest) (*pb.DropRequest, error) {
	raw, err := driverConfigToJSON(r.DriverConfig)
	if err != nil {
		return nil, fmt.Errorf("RAG %q: %w", r.Store, err)
	}
	return &pb.DropRequest{Store: r.Store, Path: r.Path, DriverConfigJson: raw, Attached: r.Attached}, nil
}

func dropRequestFromProto(r *pb.DropRequest) (*DropRequest, error) {
	dc, err := driverConfigFromJSON(r.GetDriverConfigJson())
	if err != nil {
		return nil, fmt.Errorf("RAG %q: %w", r.GetStore(), err)
	}
	return &DropRequest{Store: r.GetStore(), Path: r.GetPath(), DriverConfig: dc, Attached: r.GetAttached()}, nil
}

func chunksToProto(cs []Chunk) []*pb.Chunk {
	out := make([]*pb.Chunk, len(cs))
	for i := range cs {
		c := &cs[i]
		out[i] = &pb.Chunk{Id: c.ID, FileId: c.FileID, Text: c.Text, Metadata: c.Metadata, Vector: c.Vector}
	}
	return out
}

func chunksFromProto(cs []*pb.Chunk) []Chunk {
	out := make([]Chunk, len(cs))
	for i, c := range cs {
		out[i] = Chunk{ID: c.GetId(), FileID: c.GetFileId(), Text: c.GetText(), Metadata: c.GetMetadata(), Vector: c.GetVector()}
	}
	return out
}

func searchToProto(r *SearchResponse) *pb.SearchResponse {
	out := &pb.SearchResponse{}
	if r == nil {
		return out
	}
	out.Hits = make([]*pb.Hit, len(r.Hits))
	for i, h := range r.Hits {
		out.Hits[i] = &pb.Hit{Id: h.ID, Score: h.Score}
	}
	return out
}

func searchFromProto(r *pb.SearchResponse) *SearchResponse {
	out := &SearchResponse{Hits: make([]Hit, len(r.GetHits()))}
	for i, h := range r.GetHits() {
		out.Hits[i] = Hit{ID: h.GetId(), Score: h.GetScore()}
	}
	return out
}

func statsToProto(s *Stats) *pb.Stats {
	if s == nil {
		return &pb.Stats{}
	}
	return &pb.Stats{Chunks: s.Chunks, Files: s.Files, Dimension: int32(s.Dimension)}
}

func statsFromProto(s *pb.Stats) Stats {
	return Stats{Chunks: s.GetChunks(), Files: s.GetFiles(), Dimension: int(s.GetDimension())}
}

var questionKinds = map[string]pb.QuestionKind{
	"":                 pb.QuestionKind_QUESTION_KIND_TEXT,
	QuestionText:       pb.QuestionKind_QUESTION_KIND_TEXT,
	QuestionSecret:     pb.QuestionKind_QUESTION_KIND_SECRET,
	QuestionCollection: pb.QuestionKind_QUESTION_KIND_COLLECTION,
}

func setupResponseToProto(r *SetupResponse) *pb.SetupResponse {
	out := &pb.SetupResponse{}
	if r == nil {
		return out
	}
	out.Note = r.Note
	for _, q := range r.Questions {
		out.Questions = append(out.Questions, &pb.Question{Key: q.Key, Prompt: q.Prompt, Default: q.Default, Kind: questionKinds[q.Kind], Required: q.Required})
	}
	return out
}

func setupResponseFromProto(r *pb.SetupResponse) *SetupResponse {
	out := &SetupResponse{Note: r.GetNote()}
	for _, q := range r.GetQuestions() {
		kind := QuestionText
		switch q.GetKind() {
		case pb.QuestionKind_QUESTION_KIND_SECRET:
			kind = QuestionSecret
		case pb.QuestionKind_QUESTION_KIND_COLLECTION:
			kind = QuestionCollection
		}
		out.Questions = append(out.Questions, Question{Key: q.GetKey(), Prompt: q.GetPrompt(), Default: q.GetDefault(), Kind: kind, Required: q.GetRequired()})
	}
	return out
}

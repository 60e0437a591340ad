package memstore

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestFileNameSitsBesideTheYAML(t *testing.T) {
	for in, want := range map[string]string{
		"/c/rags/kb.yaml": "/c/rags/kb.memstore.json",
		"/c/rags/kb.yml":  "/c/rags/kb.memstore.json",
		"/c/rags/kb":      "/c/rags/kb.memstore.json",
	} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordsAreLowercaseLettersAndDigits(t *testing.T) {
	if got := Words("Zebras, 2 STRIPES—même!"); !slices.Equal(got, []string{"zebras", "2", "stripes", "même"}) {
		t.Fatalf("Words = %q", got)
	}
}

func TestReopeningWithAnotherDimensionAsksForARebuild(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kb.yaml")
	s := New()
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: path, Dimension: 2, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: []ragstore.Chunk{{ID: "1-0", FileID: "1", Vector: []float32{1, 0}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: path, Dimension: 3, Mode: ragstore.ReadWrite})
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("err = %v", err)
	}
}

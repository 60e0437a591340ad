package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// envRagPlugin makes the test binary a RAG store plugin: "mem" drops (and
// writes each DropRequest it gets to drop.json beside the RAG's yaml),
// "keep" has no Drop, as the yaml store.
const envRagPlugin = "COYOTE_CONVO_TEST_RAG"

func init() {
	switch os.Getenv(envRagPlugin) {
	case "mem":
		sdk.Serve(sdk.Info{Name: "mem", Version: "0.0.1"}, ragstore.Plugin(&droppingStore{Store: storetest.Reference()}))
	case "keep":
		sdk.Serve(sdk.Info{Name: "keep", Version: "0.0.1"}, ragstore.Plugin(keepingStore{storetest.Reference()}))
	}
}

type droppingStore struct{ ragstore.Store }

func (s *droppingStore) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(req.Path), "drop.json"), b, 0o644); err != nil {
		return err
	}
	return s.Store.(ragstore.Dropper).Drop(ctx, req)
}

type keepingStore struct{ ragstore.Store }

// ragState returns a State whose plugin host runs this test binary as
// coyote-rag-mem and coyote-rag-keep, and whose vault holds KEY.
func ragState(t *testing.T) *State {
	t.Helper()
	st := newState(t, twoClients)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, mode := range []string{"mem", "keep"} {
		script := fmt.Sprintf("#!/bin/sh\n%s=%s exec %q\n", envRagPlugin, mode, exe)
		if err := os.WriteFile(filepath.Join(dir, plugins.BinaryName(sdk.KindRAG, mode)), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h := plugins.New(plugins.Options{Dirs: []string{dir}})
	t.Cleanup(h.Close)
	st.d.Host = func() (*plugins.Host, error) { return h, nil }
	st.d.Secret = func(name string) (string, error) {
		if name == "KEY" {
			return "sk-resolved", nil
		}
		return "", fmt.Errorf("no secret %s in the vault", name)
	}
	if err := os.MkdirAll(st.d.Paths.RagsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return st
}

// writeRAG writes rags/<name>.yaml and the reference store's file beside
// it; it returns the store's file.
func writeRAG(t *testing.T, st *State, name, yaml string) string {
	t.Helper()
	if err := os.WriteFile(st.RAGPath(name), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(st.d.Paths.RagsDir, name+".memstore.json")
	if err := os.WriteFile(data, []byte(`{"dimension":0,"chunks":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDropRAGAsksTheStoreWithTheRAGsSettings(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		attached   bool
	}{
		{"owned", "driver: mem\nembedding_model: a:one\ndriver_config:\n  collection: team\n  api_key: '{{KEY}}'\n", false},
		{"attached", "driver: mem\nattached: true\ndriver_config:\n  collection: team\n  api_key: '{{KEY}}'\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := ragState(t)
			data := writeRAG(t, st, "kb", tt.yaml)
			if err := st.DropRAG(context.Background(), "kb"); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(st.d.Paths.RagsDir, "drop.json"))
			if err != nil {
				t.Fatalf("the store was not asked to drop: %v", err)
			}
			var got ragstore.DropRequest
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			want := ragstore.DropRequest{
				Store: "kb", Path: st.RAGPath("kb"), Attached: tt.attached,
				DriverConfig: map[string]any{"collection": "team", "api_key": "sk-resolved"},
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the store got\n%+v\nwant\n%+v", got, want)
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the store's file after DropRAG: %v", err)
			}
			if _, err := os.Stat(st.RAGPath("kb")); err != nil {
				t.Fatalf("DropRAG removed the yaml, the caller's job: %v", err)
			}
		})
	}
}

// A store plugin without Drop (the yaml store) keeps nothing outside the
// yaml: DropRAG succeeds without asking it.
func TestDropRAGOfAStoreWithoutDropSucceeds(t *testing.T) {
	st := ragState(t)
	data := writeRAG(t, st, "kb", "driver: keep\nembedding_model: a:one\n")
	if err := st.DropRAG(context.Background(), "kb"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(data); err != nil {
		t.Fatalf("a store without Drop lost its file: %v", err)
	}
}

// An attached RAG whose secret is gone can still be deleted: its
// collection is never dropped, so the plugin is not asked.
func TestDropRAGOfAnAttachedRAGWithoutItsSecretSucceeds(t *testing.T) {
	st := ragState(t)
	data := writeRAG(t, st, "kb", "driver: mem\nattached: true\ndriver_config:\n  collection: team\n  api_key: '{{GONE}}'\n")
	if err := st.DropRAG(context.Background(), "kb"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(data); err != nil {
		t.Fatalf("the attached RAG's store was dropped: %v", err)
	}
}

func TestDropRAGRefusesWhatItCannotReadAndSaysWhatToDo(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       []string
	}{
		{"broken yaml", "driver: mem\nchunk_size: [1\n", []string{"cannot delete RAG kb: ", "kb.yaml:", "; fix it, or remove ", "kb.yaml by hand"}},
		{"missing plugin", "driver: nosuch\n", []string{"cannot delete RAG kb: ", `unknown driver "nosuch": no store plugin coyote-rag-nosuch is installed (installed: keep, mem)`, "install the plugin, or remove ", "kb.yaml by hand"}},
		{"missing secret", "driver: mem\ndriver_config:\n  api_key: '{{GONE}}'\n", []string{"cannot delete RAG kb: ", "GONE", "add the secret, or remove ", "kb.yaml by hand"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := ragState(t)
			data := writeRAG(t, st, "kb", tt.yaml)
			err := st.DropRAG(context.Background(), "kb")
			if err == nil {
				t.Fatal("DropRAG succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			if _, err := os.Stat(data); err != nil {
				t.Fatalf("a refused DropRAG removed the store's file: %v", err)
			}
		})
	}
}

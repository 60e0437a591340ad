package llm

import (
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
)

func TestResolve(t *testing.T) {
	cfg := &config.Config{Clients: []config.Client{
		{Name: "openai", Type: "openai", Models: []models.Model{{Name: "text-embedding-3-small", Type: "embedding"}, {Name: "gpt-4.1", MaxOutputTokens: 32768}}},
		{Name: "ollama", Type: "openai-compatible", Models: []models.Model{{Name: "llama3:8b"}}},
		{Name: "groq", Type: "openai-compatible"},
		{Name: "claude", Type: "claude"},
		{Name: "bare", Type: "openai-compatible"},
	}}
	tests := []struct {
		id, def            string
		client, model, err string
		maxOut             int64
	}{
		{id: "openai:gpt-4.1", client: "openai", model: "gpt-4.1", maxOut: 32768},
		{id: "openai:gpt-9-unlisted", client: "openai", model: "gpt-9-unlisted"},
		{id: "ollama:llama3:8b", client: "ollama", model: "llama3:8b"},
		{id: "openai", client: "openai", model: "gpt-4.1"},
		{id: "", def: "ollama", client: "ollama", model: "llama3:8b"},
		{id: "", client: "openai", model: "gpt-4.1"},
		// No models listed: the catalog's, by type or else by name.
		{id: "claude", client: "claude", model: models.Builtin("claude")[0].Name},
		{id: "groq", client: "groq", model: models.Builtin("groq")[0].Name},
		{id: "nope:x", err: `unknown model "nope:x": there is no client named "nope" (clients: openai, ollama, groq, claude, bare)`},
		{id: "bare", err: `client "bare" has no known chat models: use -m bare:<model>`},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.def, func(t *testing.T) {
			cfg.Model = tt.def
			got, err := Resolve(cfg, tt.id)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got.Client.Name != tt.client || got.Model.Name != tt.model || got.Model.MaxOutputTokens != tt.maxOut && tt.maxOut != 0 {
				t.Fatalf("got %+v %v", got, err)
			}
			if got.ID() != tt.client+":"+tt.model {
				t.Fatalf("ID = %s", got.ID())
			}
		})
	}
}

func TestChatModelIDs(t *testing.T) {
	cfg := &config.Config{Clients: []config.Client{
		{Name: "a", Type: "x", Models: []models.Model{{Name: "m1"}, {Name: "e", Type: "embedding"}, {Name: "m2", Type: "chat"}}},
		{Name: "claude", Type: "claude"},
	}}
	ids := ChatModelIDs(cfg)
	if len(ids) < 3 || ids[0] != "a:m1" || ids[1] != "a:m2" || !strings.HasPrefix(ids[2], "claude:") {
		t.Fatalf("ids = %v", ids)
	}
	for _, id := range ids {
		if strings.Contains(id, "embed") {
			t.Fatalf("an embedding model is listed: %s", id)
		}
	}
}

// Package llm is the kernel's side of talking to models: which client and
// model an id means (with the catalog), and the calls themselves — chat,
// embeddings, reranking — through the client's provider plugin, with what
// the catalog and config.yaml say about each model applied (real names,
// required max tokens, system-message quirks, request patches) and
// transient failures retried. It never switches on a provider: a client's
// type picks the plugin, and the catalog is data.
package llm

import (
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
)

// Target is where a request goes: a client and one of its models.
type Target struct {
	Client *config.Client
	Model  models.Model
}

// ID is the model id, "client:model".
func (t Target) ID() string { return t.Client.Name + ":" + t.Model.Name }

// ClientModels returns the models a client offers: the ones it lists in
// config.yaml, else the catalog's for its type, else the catalog's for its
// name (an openai-compatible client named groq gets the groq models).
func ClientModels(c *config.Client) []models.Model {
	if len(c.Models) > 0 {
		return c.Models
	}
	if ms := models.Catalog(c.Type); ms != nil {
		return ms
	}
	return models.Catalog(c.Name)
}

// Resolve turns a model id into a target. The id is "client:model" (the
// model part may itself contain colons, as in "ollama:llama3:8b"), or a
// bare client name meaning that client's first chat model. An empty id
// means the configured default model, or the first client's first chat
// model. A model the client does not list is still used, with no catalog
// facts: a local server may have models nobody listed.
func Resolve(cfg *config.Config, id string) (Target, error) {
	if id == "" {
		id = cfg.Model
	}
	if id == "" {
		if len(cfg.Clients) == 0 {
			return Target{}, fmt.Errorf("no clients are configured: add one under `clients:` in config.yaml")
		}
		id = cfg.Clients[0].Name
	}
	name, model, hasModel := strings.Cut(id, ":")
	cl, ok := cfg.Client(name)
	if !ok {
		return Target{}, fmt.Errorf("unknown model %q: there is no client named %q (clients: %s)", id, name, cfg.ClientNames())
	}
	known := ClientModels(cl)
	if hasModel && model != "" {
		for _, m := range known {
			if m.Name == model {
				return Target{Client: cl, Model: m}, nil
			}
		}
		return Target{Client: cl, Model: models.Model{Name: model}}, nil
	}
	if m, ok := FirstChat(known); ok {
		return Target{Client: cl, Model: m}, nil
	}
	return Target{Client: cl}, &NoModelsError{Client: cl.Name}
}

// NoModelsError means a bare client name was given for a client that lists
// no chat models and has none in the catalog. Target.Client is still set,
// so the caller may ask the provider (Conn.LiveModels).
type NoModelsError struct{ Client string }

func (e *NoModelsError) Error() string {
	return fmt.Sprintf("client %q has no known chat models: use -m %s:<model>, or list its models in config.yaml", e.Client, e.Client)
}

// FirstChat returns the first chat model of ms.
func FirstChat(ms []models.Model) (models.Model, bool) {
	for _, m := range ms {
		if m.IsChat() {
			return m, true
		}
	}
	return models.Model{}, false
}

// ChatModelIDs lists every chat model of every client, as "client:model",
// in config order.
func ChatModelIDs(cfg *config.Config) []string {
	var ids []string
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		for _, m := range ClientModels(c) {
			if m.IsChat() {
				ids = append(ids, c.Name+":"+m.Name)
			}
		}
	}
	return ids
}

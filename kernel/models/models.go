// Package models owns what Coyote knows about models: the Model type shared
// by the catalog and by clients' `models:` lists, the embedded catalog
// (assets/models.yaml, in the original's format), and which models a client
// offers. It reads data; it talks to no plugin.
package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/assets"
)

// Types of models.
const (
	TypeChat      = "chat"
	TypeEmbedding = "embedding"
	TypeReranker  = "reranker"
)

// Model is one model, as the catalog and config.yaml describe it.
type Model struct {
	Name string `yaml:"name" json:"name"`
	// Type is chat (also when empty), embedding or reranker.
	Type string `yaml:"type,omitempty" json:"type,omitempty"`
	// RealName is the name sent to the provider when it differs from Name
	// (catalog variants such as "o4-mini-high").
	RealName        string `yaml:"real_name,omitempty" json:"real_name,omitempty"`
	MaxInputTokens  int64  `yaml:"max_input_tokens,omitempty" json:"max_input_tokens,omitempty"`
	MaxOutputTokens int64  `yaml:"max_output_tokens,omitempty" json:"max_output_tokens,omitempty"`
	// RequireMaxTokens means every request must say max_output_tokens.
	RequireMaxTokens        bool     `yaml:"require_max_tokens,omitempty" json:"require_max_tokens,omitempty"`
	InputPrice              float64  `yaml:"input_price,omitempty" json:"input_price,omitempty"`
	OutputPrice             float64  `yaml:"output_price,omitempty" json:"output_price,omitempty"`
	SupportsVision          bool     `yaml:"supports_vision,omitempty" json:"supports_vision,omitempty"`
	SupportsFunctionCalling bool     `yaml:"supports_function_calling,omitempty" json:"supports_function_calling,omitempty"`
	ReasoningLevels         []string `yaml:"reasoning_levels,omitempty" json:"reasoning_levels,omitempty"`
	DefaultReasoningEffort  string   `yaml:"default_reasoning_effort,omitempty" json:"default_reasoning_effort,omitempty"`
	NoStream                bool     `yaml:"no_stream,omitempty" json:"no_stream,omitempty"`
	NoSystemMessage         bool     `yaml:"no_system_message,omitempty" json:"no_system_message,omitempty"`
	SystemPromptPrefix      string   `yaml:"system_prompt_prefix,omitempty" json:"system_prompt_prefix,omitempty"`
	// Embedding models: how much one input may hold, the chunk size RAG
	// uses by default, and how many inputs one call may carry.
	MaxTokensPerChunk int64 `yaml:"max_tokens_per_chunk,omitempty" json:"max_tokens_per_chunk,omitempty"`
	DefaultChunkSize  int64 `yaml:"default_chunk_size,omitempty" json:"default_chunk_size,omitempty"`
	MaxBatchSize      int64 `yaml:"max_batch_size,omitempty" json:"max_batch_size,omitempty"`
	// Patch changes every request for this model: {url, body, headers}.
	Patch map[string]any `yaml:"patch,omitempty" json:"patch,omitempty"`
}

// UnmarshalYAML reads a model, accepting default_reasoning_level as another
// spelling of default_reasoning_effort (the original's catalog uses both).
func (m *Model) UnmarshalYAML(n *yaml.Node) error {
	type plain Model
	var aux struct {
		plain `yaml:",inline"`
		Level string `yaml:"default_reasoning_level"`
	}
	if err := n.Decode(&aux); err != nil {
		return err
	}
	*m = Model(aux.plain)
	if m.DefaultReasoningEffort == "" {
		m.DefaultReasoningEffort = aux.Level
	}
	return nil
}

// IsChat reports whether the model is a chat model.
func (m *Model) IsChat() bool { return m.Type == "" || m.Type == TypeChat }

// APIName is the name to send to the provider.
func (m *Model) APIName() string {
	if m.RealName != "" {
		return m.RealName
	}
	return m.Name
}

// Provider is one entry of the catalog.
type Provider struct {
	Provider string  `yaml:"provider" json:"provider"`
	Models   []Model `yaml:"models" json:"models"`
}

// ParseCatalog reads a catalog in the original's models.yaml format.
func ParseCatalog(data []byte) ([]Provider, error) {
	var ps []Provider
	if err := yaml.Unmarshal(data, &ps); err != nil {
		return nil, err
	}
	for i, p := range ps {
		if p.Provider == "" {
			return nil, fmt.Errorf("catalog entry %d has no provider", i+1)
		}
		for j, m := range p.Models {
			if m.Name == "" {
				return nil, fmt.Errorf("provider %s: model %d has no name", p.Provider, j+1)
			}
		}
	}
	return ps, nil
}

// Builtin returns the embedded catalog's models of a provider, decoding
// only that provider's part (the whole catalog takes milliseconds to parse;
// one provider, microseconds).
func Builtin(provider string) []Model {
	data, ok := assets.CatalogProvider(provider)
	if !ok {
		return nil
	}
	var ms []Model
	if err := json.Unmarshal(data, &ms); err != nil {
		// The embedded JSON is generated and tested; this cannot happen
		// in a released binary.
		panic(fmt.Sprintf("embedded catalog of %s: %v", provider, err))
	}
	return ms
}

// BuiltinProviders lists the providers of the embedded catalog.
func BuiltinProviders() []string {
	ps := assets.CatalogProviderNames()
	sort.Strings(ps)
	return ps
}

// CatalogJSON turns a catalog into the JSON file of each provider, by file
// name, as assets embeds them. A provider listed twice has its models
// merged in order.
func CatalogJSON(catalog []byte) (map[string][]byte, error) {
	ps, err := ParseCatalog(catalog)
	if err != nil {
		return nil, err
	}
	merged := map[string][]Model{}
	for _, p := range ps {
		merged[p.Provider] = append(merged[p.Provider], p.Models...)
	}
	files := map[string][]byte{}
	for name, ms := range merged {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", " ")
		if err := enc.Encode(ms); err != nil {
			return nil, fmt.Errorf("provider %s: %w", name, err)
		}
		files[name+".json"] = buf.Bytes()
	}
	return files, nil
}

// Cost is the price in USD of a call that used in input and out output
// tokens, from the model's prices per million tokens. ok is false when
// the model has no known price: a catalog entry without prices, or a
// model nobody listed, costs an unknown amount, not nothing. Cached input
// is priced as input (the catalog has no cache price), so the cost of a
// call that read the cache is an upper bound.
func (m *Model) Cost(in, out int64) (cost float64, ok bool) {
	if m.InputPrice <= 0 && m.OutputPrice <= 0 {
		return 0, false
	}
	return (float64(in)*m.InputPrice + float64(out)*m.OutputPrice) / 1e6, true
}

// HasPrice reports whether the model's price is known.
func (m *Model) HasPrice() bool { return m.InputPrice > 0 || m.OutputPrice > 0 }

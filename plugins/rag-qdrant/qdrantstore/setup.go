package qdrantstore

import (
	"context"
	"fmt"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// Setup asks what the original's attach wizard asks: the server, the API
// key as a vault secret, and the collection, picked from the server's list
// for an attached RAG and named (the RAG's name by default) for an owned
// one, which the store creates.
func (s *Store) Setup(_ context.Context, req *ragstore.SetupRequest) (*ragstore.SetupResponse, error) {
	qs := []ragstore.Question{
		{Key: "host", Prompt: "Qdrant host", Default: "http://localhost:6333", Required: true},
		{Key: "api_key", Prompt: "Vault secret holding the API key (empty: the server needs none)", Kind: ragstore.QuestionSecret},
	}
	if req.Attached {
		return &ragstore.SetupResponse{
			Questions: append(qs, ragstore.Question{Key: "collection", Prompt: "Collection (number or name)", Kind: ragstore.QuestionCollection, Required: true}),
			Note:      "Each point's text is read from its page_content payload.",
		}, nil
	}
	return &ragstore.SetupResponse{
		Questions: append(qs, ragstore.Question{Key: "collection", Prompt: "Collection (created when missing)", Default: req.Store, Required: true}),
	}, nil
}

// ValidateConfig checks driver_config as Open reads it.
func (s *Store) ValidateConfig(_ context.Context, req *ragstore.ValidateConfigRequest) error {
	if _, err := parseConfig(req.DriverConfig, req.Store, req.Attached); err != nil {
		return fmt.Errorf("RAG %s: %w", req.Store, err)
	}
	return nil
}

var _ ragstore.DriverSetup = (*Store)(nil)

package qdrantstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestSetupAsksTheOriginalsAttachQuestions(t *testing.T) {
	s := New()
	resp, err := s.Setup(context.Background(), &ragstore.SetupRequest{Store: "kb", Attached: true})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, q := range resp.Questions {
		keys = append(keys, q.Key+":"+q.Kind)
	}
	if got := strings.Join(keys, " "); got != "host: api_key:secret collection:collection" {
		t.Errorf("attach questions %s", got)
	}
	owned, _ := s.Setup(context.Background(), &ragstore.SetupRequest{Store: "kb"})
	if c := owned.Questions[2]; c.Key != "collection" || c.Kind != "" || c.Default != "kb" {
		t.Errorf("owned collection question %+v", c)
	}
}

func TestValidateConfig(t *testing.T) {
	tests := []struct {
		name     string
		dc       map[string]any
		attached bool
		err      string
	}{
		{"attached", map[string]any{"host": "http://localhost:6333", "collection": "docs"}, true, ""},
		{"owned takes the RAG's name", map[string]any{"host": "localhost"}, false, ""},
		{"no host", map[string]any{"collection": "docs"}, true, "driver_config.host is missing"},
		{"attached without collection", map[string]any{"host": "h"}, true, "driver_config.collection is missing"},
		{"bad scheme", map[string]any{"host": "ftp://h", "collection": "c"}, true, `scheme "ftp"`},
		{"bad port", map[string]any{"host": "h", "grpc_port": "x"}, false, "not a port number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().ValidateConfig(context.Background(), &ragstore.ValidateConfigRequest{Store: "kb", DriverConfig: tt.dc, Attached: tt.attached})
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "RAG kb: ") {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

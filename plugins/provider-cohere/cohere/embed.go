package cohere

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

type embedRequest struct {
	Model           string   `json:"model"`
	Texts           []string `json:"texts"`
	InputType       string   `json:"input_type"`
	EmbeddingTypes  []string `json:"embedding_types"`
	OutputDimension int      `json:"output_dimension,omitempty"`
}

type embedResponse struct {
	Embeddings struct {
		Float [][]float32 `json:"float"`
	} `json:"embeddings"`
	Meta struct {
		BilledUnits *tokenCount `json:"billed_units"`
	} `json:"meta"`
}

// Embed embeds the inputs with /embed, at most 96 a call, and returns the
// vectors in input order. The input type is search_query or
// search_document (the default), as Cohere's v3 and later models require.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Model) == "" {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	inputType := "search_document"
	switch req.InputType {
	case "", provider.InputDocument:
	case provider.InputQuery:
		inputType = "search_query"
	default:
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "input type %q is neither %q nor %q", req.InputType, provider.InputQuery, provider.InputDocument)
	}
	if req.Dimensions < 0 {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "%d dimensions asked for", req.Dimensions)
	}
	out := &provider.EmbedResponse{Vectors: make([][]float32, 0, len(req.Inputs)), Usage: &provider.Usage{}}
	for start := 0; start < len(req.Inputs); start += maxTexts {
		texts := req.Inputs[start:min(start+maxTexts, len(req.Inputs))]
		body, err := json.Marshal(&embedRequest{Model: req.Model, Texts: texts, InputType: inputType,
			EmbeddingTypes: []string{"float"}, OutputDimension: req.Dimensions})
		if err != nil {
			return nil, c.http.Fail(sdk.ErrInvalidArgument, "encode the request: %v", err)
		}
		var resp embedResponse
		if err := c.call(ctx, "/embed", body, req.Patches, &resp); err != nil {
			return nil, err
		}
		if len(resp.Embeddings.Float) != len(texts) {
			return nil, c.http.Fail(sdk.ErrBadResponse, "%s returned %d embeddings for %d inputs", c.http.BaseForHumans, len(resp.Embeddings.Float), len(texts))
		}
		for i, v := range resp.Embeddings.Float {
			if len(v) == 0 {
				return nil, c.http.Fail(sdk.ErrBadResponse, "%s returned an empty embedding for input %d", c.http.BaseForHumans, start+i+1)
			}
		}
		out.Vectors = append(out.Vectors, resp.Embeddings.Float...)
		if b := resp.Meta.BilledUnits; b != nil {
			out.Usage.InputTokens += int64(b.InputTokens)
		}
	}
	return out, nil
}

type rerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n,omitempty"`
}

type rerankResponse struct {
	Results []struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	} `json:"results"`
}

// Rerank scores the documents against the query with /rerank, best first.
func (p *Provider) Rerank(ctx context.Context, req *provider.RerankRequest) (*provider.RerankResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Model) == "" {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	if req.TopN < 0 {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "top %d asked for", req.TopN)
	}
	out := &provider.RerankResponse{}
	if len(req.Documents) == 0 {
		return out, nil
	}
	body, err := json.Marshal(&rerankRequest{Model: req.Model, Query: req.Query, Documents: req.Documents, TopN: req.TopN})
	if err != nil {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "encode the request: %v", err)
	}
	var resp rerankResponse
	if err := c.call(ctx, "/rerank", body, req.Patches, &resp); err != nil {
		return nil, err
	}
	for _, r := range resp.Results {
		if r.Index < 0 || r.Index >= len(req.Documents) {
			return nil, c.http.Fail(sdk.ErrBadResponse, "%s ranked document %d of %d", c.http.BaseForHumans, r.Index, len(req.Documents))
		}
		out.Results = append(out.Results, provider.RerankResult{Index: r.Index, Score: r.RelevanceScore})
	}
	// Cohere answers best first; a proxy may not.
	for i := 1; i < len(out.Results); i++ {
		for j := i; j > 0 && out.Results[j].Score > out.Results[j-1].Score; j-- {
			out.Results[j], out.Results[j-1] = out.Results[j-1], out.Results[j]
		}
	}
	if req.TopN > 0 && len(out.Results) > req.TopN {
		out.Results = out.Results[:req.TopN]
	}
	return out, nil
}

// call posts body to path and decodes the JSON reply into v.
func (c *client) call(ctx context.Context, path string, body []byte, patches []provider.RequestPatch, v any) error {
	x, err := c.post(ctx, path, body, "application/json", patches)
	if err != nil {
		return err
	}
	defer x.Close()
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return c.http.Fail(sdk.ErrBadResponse, "malformed reply from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return nil
}

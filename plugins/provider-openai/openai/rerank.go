package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// The request body of POST /rerank (Jina's and Cohere's shape, which vLLM
// and others copy; Voyage says top_k).
type rerankBody struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n,omitempty"`
	TopK      int      `json:"top_k,omitempty"`
	// ReturnDocuments is false for Jina, which would echo every document.
	ReturnDocuments *bool `json:"return_documents,omitempty"`
}

// wireRerankResult is one result, as {index, relevance_score} or (Hugging
// Face's text-embeddings-inference) {index, score}.
type wireRerankResult struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// Rerank sends the documents to {api_base}/rerank and returns their scores,
// best first. OpenAI's own API has no such endpoint.
func (p *Provider) Rerank(ctx context.Context, req *provider.RerankRequest) (*provider.RerankResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	if c.azure {
		return nil, c.fail(sdk.ErrUnsupported, "Azure OpenAI has no rerank API; use a client of a service that can (jina, voyageai, cohere)")
	}
	if c.typ == TypeOpenAI {
		return nil, c.fail(sdk.ErrUnsupported, "the OpenAI API cannot rerank; use an %s client of a service that can (jina, voyageai, or a server with a /rerank endpoint such as vLLM)", TypeOpenAICompatible)
	}
	if req.Model == "" {
		return nil, c.fail(sdk.ErrInvalidArgument, "no model given")
	}
	if req.TopN < 0 {
		return nil, c.fail(sdk.ErrInvalidArgument, "top %d results asked for", req.TopN)
	}
	if len(req.Documents) == 0 {
		return &provider.RerankResponse{Results: []provider.RerankResult{}}, nil
	}
	body := rerankBody{Model: req.Model, Query: req.Query, Documents: req.Documents}
	switch c.dialect {
	case dialectVoyage:
		body.TopK = req.TopN
	case dialectJina:
		body.TopN = req.TopN
		body.ReturnDocuments = new(bool)
	default:
		body.TopN = req.TopN
	}
	data, err := json.Marshal(&body)
	if err != nil {
		return nil, c.fail(sdk.ErrInvalidArgument, "cannot encode the request: %v", err)
	}
	x, err := c.send(ctx, http.MethodPost, "/rerank", data, "application/json", req.Patches)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.statusError(x, req.Model, "/rerank")
	}
	if data, err = x.ReadAll(maxBody); err != nil {
		return nil, err
	}
	results, errRaw, err := decodeRerank(data, len(req.Documents))
	switch {
	case errRaw != nil:
		return nil, c.replyError(errRaw)
	case err != nil:
		return nil, c.fail(sdk.ErrBadResponse, "malformed rerank reply from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	slices.SortStableFunc(results, func(a, b provider.RerankResult) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.Index, b.Index)
	})
	if req.TopN > 0 && len(results) > req.TopN {
		results = results[:req.TopN]
	}
	return &provider.RerankResponse{Results: results}, nil
}

// decodeRerank reads the results of n documents from {"results": [...]},
// Voyage's {"data": [...]} or a bare array. A non-null "error" member is
// returned raw instead.
func decodeRerank(data []byte, n int) ([]provider.RerankResult, json.RawMessage, error) {
	var list []wireRerankResult
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, nil, err
		}
	} else {
		var body struct {
			Results []wireRerankResult `json:"results"`
			Data    []wireRerankResult `json:"data"`
			Error   json.RawMessage    `json:"error"`
		}
		if err := json.Unmarshal(trimmed, &body); err != nil {
			return nil, nil, err
		}
		if len(body.Error) > 0 && string(body.Error) != "null" {
			return nil, body.Error, nil
		}
		switch {
		case body.Results != nil:
			list = body.Results
		case body.Data != nil:
			list = body.Data
		default:
			return nil, nil, fmt.Errorf("no results")
		}
	}
	out := make([]provider.RerankResult, 0, len(list))
	seen := make([]bool, n)
	for i, r := range list {
		score := r.RelevanceScore
		if score == nil {
			score = r.Score
		}
		switch {
		case r.Index == nil || score == nil:
			return nil, nil, fmt.Errorf("result %d lacks an index or a score", i+1)
		case *r.Index < 0 || *r.Index >= n:
			return nil, nil, fmt.Errorf("index %d is out of range for %d documents", *r.Index, n)
		case seen[*r.Index]:
			return nil, nil, fmt.Errorf("two results for index %d", *r.Index)
		}
		seen[*r.Index] = true
		out = append(out, provider.RerankResult{Index: *r.Index, Score: *score})
	}
	return out, nil, nil
}

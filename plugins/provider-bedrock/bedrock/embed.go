package bedrock

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Bedrock offers embeddings and reranking through InvokeModel, with each
// model family's own JSON: Amazon Titan embeds one text a request, Cohere
// a batch; Cohere's and Amazon's rerank models take a query and documents.

// invoke calls InvokeModel with a JSON body and returns the reply's body.
func (c *client) invoke(ctx context.Context, model string, body any, patches []provider.RequestPatch) ([]byte, error) {
	rt, err := c.runtime(ctx)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, c.fail(sdk.ErrInvalidArgument, "encode the request: %v", err)
	}
	out, err := rt.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{
		ModelId: aws.String(model), Body: data, ContentType: aws.String("application/json"), Accept: aws.String("application/json"),
	}, func(o *bedrockruntime.Options) { o.APIOptions = append(o.APIOptions, withPatches(patches)) })
	if err != nil {
		return nil, c.apiError(ctx, err, model)
	}
	return out.Body, nil
}

// Embed returns the vectors of req.Inputs, in order.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	if req.Model == "" {
		return nil, c.fail(sdk.ErrInvalidArgument, "no embedding model given")
	}
	if strings.Contains(req.Model, "cohere.") {
		return c.embedCohere(ctx, req)
	}
	return c.embedTitan(ctx, req)
}

func (c *client) embedCohere(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	inputType := "search_document"
	if req.InputType == provider.InputQuery {
		inputType = "search_query"
	}
	body := map[string]any{"texts": req.Inputs, "input_type": inputType, "truncate": "END"}
	if req.Dimensions > 0 {
		body["output_dimension"] = req.Dimensions
	}
	data, err := c.invoke(ctx, req.Model, body, req.Patches)
	if err != nil {
		return nil, err
	}
	// embed-v3 answers {"embeddings": [[...]]}; v4, and v3 asked for
	// embedding_types, {"embeddings": {"float": [[...]]}}.
	var reply struct {
		Embeddings json.RawMessage `json:"embeddings"`
	}
	var vectors [][]float32
	if err := json.Unmarshal(data, &reply); err == nil && len(reply.Embeddings) > 0 {
		if reply.Embeddings[0] == '{' {
			var typed struct {
				Float [][]float32 `json:"float"`
			}
			err = json.Unmarshal(reply.Embeddings, &typed)
			vectors = typed.Float
		} else {
			err = json.Unmarshal(reply.Embeddings, &vectors)
		}
		if err != nil {
			vectors = nil
		}
	}
	if len(vectors) != len(req.Inputs) {
		return nil, c.fail(sdk.ErrBadResponse, "%d vectors from %s for %d texts: %s", len(vectors), c.endpoint, len(req.Inputs), httpkit.Quote(data))
	}
	return &provider.EmbedResponse{Vectors: vectors}, nil
}

func (c *client) embedTitan(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	out := &provider.EmbedResponse{Vectors: make([][]float32, 0, len(req.Inputs)), Usage: &provider.Usage{}}
	for _, text := range req.Inputs {
		body := map[string]any{"inputText": text}
		if req.Dimensions > 0 {
			body["dimensions"] = req.Dimensions
		}
		data, err := c.invoke(ctx, req.Model, body, req.Patches)
		if err != nil {
			return nil, err
		}
		var reply struct {
			Embedding  []float32 `json:"embedding"`
			TokenCount int64     `json:"inputTextTokenCount"`
		}
		if err := json.Unmarshal(data, &reply); err != nil || len(reply.Embedding) == 0 {
			return nil, c.fail(sdk.ErrBadResponse, "the embedding from %s is not Titan's JSON: %s", c.endpoint, httpkit.Quote(data))
		}
		out.Vectors = append(out.Vectors, reply.Embedding)
		out.Usage.InputTokens += reply.TokenCount
	}
	return out, nil
}

// Rerank scores documents with a rerank model (cohere.rerank-*,
// amazon.rerank-*), best first.
func (p *Provider) Rerank(ctx context.Context, req *provider.RerankRequest) (*provider.RerankResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	if req.Model == "" {
		return nil, c.fail(sdk.ErrInvalidArgument, "no rerank model given")
	}
	body := map[string]any{"query": req.Query, "documents": req.Documents}
	if req.TopN > 0 {
		body["top_n"] = req.TopN
	}
	if strings.Contains(req.Model, "cohere.") {
		body["api_version"] = 2
	}
	data, err := c.invoke(ctx, req.Model, body, req.Patches)
	if err != nil {
		return nil, err
	}
	var reply struct {
		Results []struct {
			Index *int    `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return nil, c.fail(sdk.ErrBadResponse, "the ranking from %s is not JSON: %s", c.endpoint, httpkit.Quote(data))
	}
	out := &provider.RerankResponse{}
	for _, r := range reply.Results {
		if r.Index == nil || *r.Index < 0 || *r.Index >= len(req.Documents) {
			return nil, c.fail(sdk.ErrBadResponse, "the ranking from %s names a document that was not sent: %s", c.endpoint, httpkit.Quote(data))
		}
		out.Results = append(out.Results, provider.RerankResult{Index: *r.Index, Score: r.Score})
	}
	slices.SortStableFunc(out.Results, func(a, b provider.RerankResult) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if req.TopN > 0 && len(out.Results) > req.TopN {
		out.Results = out.Results[:req.TopN]
	}
	return out, nil
}

var (
	_ provider.Embedder = (*Provider)(nil)
	_ provider.Reranker = (*Provider)(nil)
)

package vertexai

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/coyote-cli/coyote/plugins/provider-gemini/gemini"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// maxBody bounds a reply of vectors.
const maxBody = 64 << 20

// maxInstances is the most texts one predict call of a text-embedding
// model takes; Gemini's embedding models take one at a time.
const maxInstances = 250

type predictBody struct {
	Instances  []instance         `json:"instances"`
	Parameters *predictParameters `json:"parameters,omitempty"`
}

type instance struct {
	Content  string `json:"content"`
	TaskType string `json:"task_type,omitempty"`
}

type predictParameters struct {
	OutputDimensionality int `json:"outputDimensionality,omitempty"`
}

type predictReply struct {
	Predictions []struct {
		Embeddings struct {
			Values     []float32 `json:"values"`
			Statistics struct {
				TokenCount float64 `json:"token_count"`
			} `json:"statistics"`
		} `json:"embeddings"`
	} `json:"predictions"`
}

// Embed embeds the inputs with the model's predict method, in batches,
// and returns the vectors in input order.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	task, err := gemini.EmbedTask(c.http, req)
	if err != nil {
		return nil, err
	}
	if publisher(req.Model) != "google" {
		return nil, c.http.Fail(sdk.ErrUnsupported, "model %q does not embed on Vertex AI", req.Model)
	}
	batch := maxInstances
	if strings.HasPrefix(req.Model, "gemini-") {
		batch = 1
	}
	url := c.modelURL("google", req.Model, "predict")
	out := &provider.EmbedResponse{Vectors: make([][]float32, 0, len(req.Inputs)), Usage: &provider.Usage{}}
	for start := 0; start < len(req.Inputs); start += batch {
		texts := req.Inputs[start:min(start+batch, len(req.Inputs))]
		body := predictBody{Instances: make([]instance, len(texts))}
		for i, t := range texts {
			body.Instances[i] = instance{Content: t, TaskType: task}
		}
		if req.Dimensions > 0 {
			body.Parameters = &predictParameters{OutputDimensionality: req.Dimensions}
		}
		data, err := json.Marshal(&body)
		if err != nil {
			return nil, c.http.Fail(sdk.ErrInvalidArgument, "encode the request: %v", err)
		}
		reply, err := c.predict(ctx, url, data, req)
		if err != nil {
			return nil, err
		}
		if len(reply.Predictions) != len(texts) {
			return nil, c.http.Fail(sdk.ErrBadResponse, "%s returned %d embeddings for %d inputs", c.http.BaseForHumans, len(reply.Predictions), len(texts))
		}
		for i, pr := range reply.Predictions {
			if len(pr.Embeddings.Values) == 0 {
				return nil, c.http.Fail(sdk.ErrBadResponse, "%s returned an empty embedding for input %d", c.http.BaseForHumans, start+i+1)
			}
			out.Vectors = append(out.Vectors, pr.Embeddings.Values)
			out.Usage.InputTokens += int64(pr.Embeddings.Statistics.TokenCount)
		}
	}
	return out, nil
}

func (c *client) predict(ctx context.Context, url string, body []byte, req *provider.EmbedRequest) (*predictReply, error) {
	x, err := c.gemini.Post(ctx, url, body, "application/json", req.Patches)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.gemini.StatusError(x, req.Model)
	}
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return nil, err
	}
	var reply predictReply
	if err := json.Unmarshal(data, &reply); err != nil {
		return nil, c.http.Fail(sdk.ErrBadResponse, "malformed embeddings from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return &reply, nil
}

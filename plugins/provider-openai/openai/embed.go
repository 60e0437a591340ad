package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/jsonscan"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// maxEmbedBody bounds a reply of vectors: 2048 inputs of 3072 values, as
// OpenAI allows, take about 80 MB of JSON.
const maxEmbedBody = 256 << 20

// replyBuffers recycles the buffers that replies of vectors are read into,
// up to maxPooledReply bytes each: a batch of vectors is a large reply, and
// clearing a fresh buffer for each costs more than decoding it.
var replyBuffers sync.Pool

const maxPooledReply = 8 << 20

// The request body of POST /embeddings, in the three dialects.
type embedBody struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	// EncodingFormat is "float" for OpenAI and its imitators; Jina and
	// Voyage send floats by default and name the option differently.
	EncodingFormat string `json:"encoding_format,omitempty"`
	Dimensions     int    `json:"dimensions,omitempty"`
	// Voyage's names for the size and the input type.
	OutputDimension int    `json:"output_dimension,omitempty"`
	InputType       string `json:"input_type,omitempty"`
	// Jina's name for the input type.
	Task string `json:"task,omitempty"`
}

// Embed sends the inputs to {api_base}/embeddings and returns one vector per
// input, in input order.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	body, err := c.embedBody(req)
	if err != nil {
		return nil, err
	}
	if len(req.Inputs) == 0 {
		return &provider.EmbedResponse{Vectors: [][]float32{}}, nil
	}
	x, err := c.send(ctx, http.MethodPost, c.endpoint("embeddings", req.Model), body, "application/json", req.Patches)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.statusError(x, req.Model, "/embeddings")
	}
	bp, _ := replyBuffers.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer replyBuffers.Put(bp)
	data, err := x.ReadAllTo((*bp)[:0], maxEmbedBody)
	if err != nil {
		return nil, err
	}
	if cap(data) <= maxPooledReply {
		*bp = data
	}
	vectors, usage, errRaw, err := decodeEmbeddings(data, len(req.Inputs))
	switch {
	case errRaw != nil:
		return nil, c.replyError(errRaw)
	case err != nil:
		return nil, c.fail(sdk.ErrBadResponse, "malformed embeddings from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return &provider.EmbedResponse{Vectors: vectors, Usage: usage}, nil
}

// embedBody checks the request and encodes it in the client's dialect.
func (c *client) embedBody(req *provider.EmbedRequest) ([]byte, error) {
	if req.Model == "" {
		return nil, c.fail(sdk.ErrInvalidArgument, "no model given")
	}
	if req.Dimensions < 0 {
		return nil, c.fail(sdk.ErrInvalidArgument, "%d dimensions asked for", req.Dimensions)
	}
	switch req.InputType {
	case "", provider.InputQuery, provider.InputDocument:
	default:
		return nil, c.fail(sdk.ErrInvalidArgument, "input type %q is neither %q nor %q", req.InputType, provider.InputQuery, provider.InputDocument)
	}
	body := embedBody{Model: req.Model, Input: req.Inputs}
	switch c.dialect {
	case dialectVoyage:
		body.OutputDimension = req.Dimensions
		body.InputType = req.InputType
	case dialectJina:
		body.Dimensions = req.Dimensions
		switch req.InputType {
		case provider.InputQuery:
			body.Task = "retrieval.query"
		case provider.InputDocument:
			body.Task = "retrieval.passage"
		}
	default:
		body.EncodingFormat = "float"
		body.Dimensions = req.Dimensions
	}
	data, err := json.Marshal(&body)
	if err != nil {
		return nil, c.fail(sdk.ErrInvalidArgument, "cannot encode the request: %v", err)
	}
	return data, nil
}

// decodeEmbeddings reads the reply to n inputs: data[] of {index,
// embedding}, placed by index, and usage. A non-null "error" member is
// returned raw instead. It reads with jsonscan rather than encoding/json,
// which takes longer over the numbers than the whole call through the
// plugin (see the benchmarks).
func decodeEmbeddings(data []byte, n int) (vectors [][]float32, usage *provider.Usage, errRaw []byte, err error) {
	s := jsonscan.New(data)
	vectors = make([][]float32, n)
	got, dims := 0, 0
	var prompt, total float64
	var counted bool
	err = s.Object(func(key []byte) error {
		switch string(key) {
		case "data":
			if s.Null() {
				return nil
			}
			pos := 0
			return s.Array(func() error {
				index := pos
				pos++
				var vec []float32
				seen := false
				err := s.Object(func(key []byte) error {
					var err error
					switch string(key) {
					case "index":
						var f float64
						if f, err = s.Float64(); err == nil {
							if f < 0 || f >= float64(n) || f != math.Trunc(f) {
								return fmt.Errorf("index %v is out of range for %d inputs", f, n)
							}
							index = int(f)
						}
					case "embedding":
						seen = true
						vec, err = readVector(s, dims)
					default:
						_, err = s.Skip()
					}
					return err
				})
				switch {
				case err != nil:
					return err
				case !seen || len(vec) == 0:
					return fmt.Errorf("item %d has no embedding", pos)
				case index >= n:
					return fmt.Errorf("more than %d vectors for %d inputs", n, n)
				case vectors[index] != nil:
					return fmt.Errorf("two vectors for index %d", index)
				case dims != 0 && len(vec) != dims:
					return fmt.Errorf("vectors of %d and %d values", dims, len(vec))
				}
				dims = len(vec)
				vectors[index] = vec
				got++
				return nil
			})
		case "usage":
			if s.Null() {
				return nil
			}
			return s.Object(func(key []byte) error {
				var err error
				switch string(key) {
				case "prompt_tokens":
					prompt, err = s.Float64()
					counted = true
				case "total_tokens":
					total, err = s.Float64()
					counted = true
				default:
					_, err = s.Skip()
				}
				return err
			})
		case "error":
			if s.Null() {
				return nil
			}
			raw, err := s.Skip()
			errRaw = raw
			return err
		default:
			_, err := s.Skip()
			return err
		}
	})
	if errRaw != nil {
		return nil, nil, errRaw, nil
	}
	if err == nil {
		err = s.End()
	}
	if err == nil && got != n {
		err = fmt.Errorf("%d vectors for %d inputs", got, n)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if counted {
		if prompt == 0 {
			prompt = total
		}
		usage = &provider.Usage{InputTokens: int64(prompt)}
	}
	return vectors, usage, nil, nil
}

// readVector reads an embedding: an array of numbers, or a base64 string
// of little-endian float32 values (what encoding_format "base64" asks
// for). sizeHint is the expected length.
func readVector(s *jsonscan.Scanner, sizeHint int) ([]float32, error) {
	if s.Next() != '"' {
		return s.Floats(make([]float32, 0, sizeHint))
	}
	raw, err := s.String()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(buf, raw)
	if err != nil || n%4 != 0 {
		return nil, errors.New("a base64 embedding is not a whole number of float32 values")
	}
	v := make([]float32, n/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return v, nil
}

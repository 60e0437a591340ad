package gemini

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/jsonscan"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Embed embeds the inputs with batchEmbedContents, one request per input,
// at most 100 inputs a call, and returns the vectors in input order.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	task, err := EmbedTask(c.http, req)
	if err != nil {
		return nil, err
	}
	out := &provider.EmbedResponse{Vectors: make([][]float32, 0, len(req.Inputs))}
	url := c.methodURL(req.Model, "batchEmbedContents")
	name := modelPath(req.Model)
	// Every request of a batch ends the same way.
	tail := []byte(`}]}`)
	if task != "" {
		tail = append(tail, `,"taskType":"`+task+`"`...)
	}
	if req.Dimensions > 0 {
		tail = append(tail, `,"outputDimensionality":`+strconv.Itoa(req.Dimensions)...)
	}
	tail = append(tail, '}')
	head := append(appendString([]byte(`{"model":`), name), `,"content":{"parts":[{"text":`...)
	for start := 0; start < len(req.Inputs); start += maxBatch {
		batch := req.Inputs[start:min(start+maxBatch, len(req.Inputs))]
		// A fresh buffer each time: the transport may still hold the last.
		size := 16
		for _, text := range batch {
			size += len(head) + len(text) + 8 + len(tail)
		}
		body := append(make([]byte, 0, size), `{"requests":[`...)
		for i, text := range batch {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, head...)
			body = appendString(body, text)
			body = append(body, tail...)
		}
		body = append(body, "]}"...)
		vectors, err := c.embedBatch(ctx, url, body, req)
		if err != nil {
			return nil, err
		}
		if len(vectors) != len(batch) {
			return nil, c.http.Fail(sdk.ErrBadResponse, "%s returned %d embeddings for %d inputs", c.http.BaseForHumans, len(vectors), len(batch))
		}
		out.Vectors = append(out.Vectors, vectors...)
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, url string, body []byte, req *provider.EmbedRequest) ([][]float32, error) {
	x, err := c.Post(ctx, url, body, "application/json", req.Patches)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.StatusError(x, req.Model)
	}
	// Bodies of vectors are large; their buffers are recycled.
	var buf []byte
	if b, ok := c.bodies.Get().(*[]byte); ok {
		buf = (*b)[:0]
	}
	data, err := x.ReadAllTo(buf, maxBody)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cap(data) <= 16<<20 {
			c.bodies.Put(&data)
		}
	}()
	vectors, err := parseEmbeddings(data)
	if err != nil {
		return nil, c.http.Fail(sdk.ErrBadResponse, "malformed embeddings from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return vectors, nil
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	from := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(append(b, s[from:i]...), `\ufffd`...)
				i++
				from = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[from:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		from = i
	}
	return append(append(b, s[from:]...), '"')
}

// parseEmbeddings reads {"embeddings":[{"values":[...]}, ...]} with
// jsonscan: a batch of vectors is mostly numbers, which encoding/json
// decodes several times slower than the round trip that brought them.
// Members other than "embeddings" and "values" are skipped, after checking
// they are JSON.
func parseEmbeddings(data []byte) ([][]float32, error) {
	s := jsonscan.New(data)
	var out [][]float32
	dims := 0
	found := false
	err := s.Object(func(key []byte) error {
		if string(key) != "embeddings" {
			_, err := s.Skip()
			return err
		}
		found = true
		return s.Array(func() error {
			var vec []float32
			sawValues := false
			err := s.Object(func(key []byte) error {
				if string(key) != "values" {
					_, err := s.Skip()
					return err
				}
				sawValues = true
				var err error
				vec, err = s.Floats(make([]float32, 0, dims))
				return err
			})
			if err != nil {
				return err
			}
			if !sawValues {
				return fmt.Errorf("embedding %d has no values", len(out))
			}
			dims = len(vec)
			out = append(out, vec)
			return nil
		})
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("no embeddings in the reply")
	}
	return out, nil
}

// EmbedTask checks an embeddings request as Google's APIs take it (Gemini
// here, Vertex AI's predict too) and returns its task type: "" for no
// input type, RETRIEVAL_QUERY or RETRIEVAL_DOCUMENT. hc names the client
// in the error.
func EmbedTask(hc *httpkit.Client, req *provider.EmbedRequest) (string, error) {
	if strings.TrimSpace(req.Model) == "" {
		return "", hc.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	if req.Dimensions < 0 {
		return "", hc.Fail(sdk.ErrInvalidArgument, "%d dimensions asked for", req.Dimensions)
	}
	switch req.InputType {
	case "":
		return "", nil
	case provider.InputQuery:
		return "RETRIEVAL_QUERY", nil
	case provider.InputDocument:
		return "RETRIEVAL_DOCUMENT", nil
	}
	return "", hc.Fail(sdk.ErrInvalidArgument, "input type %q is neither %q nor %q", req.InputType, provider.InputQuery, provider.InputDocument)
}

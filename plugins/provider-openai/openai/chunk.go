package openai

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// chunkParser decodes one stream chunk into the few fields the provider
// uses. It is encoding/json on a small typed struct: about 5 µs a chunk,
// well inside the per-chunk budget, and nothing to maintain.
type chunkParser struct {
	chunk chunkInfo
}

// chunkInfo is what a chunk says.
type chunkInfo struct {
	choices []choiceInfo
	usage   *provider.Usage
	// errorRaw is the value of a non-null "error" member.
	errorRaw []byte
}

type choiceInfo struct {
	index            int
	content          string
	reasoningContent string
	reasoning        string
	finishReason     string
	tools            []toolDelta
}

type toolDelta struct {
	index               int
	hasIndex            bool
	id, name, arguments string
}

// The wire shape of a chunk. Fields are loose (json.RawMessage, pointers)
// where servers disagree.
type wireChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
					// A string holding JSON, or (from some servers) the JSON
					// object itself.
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
	// Groq reports usage here.
	XGroq *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"x_groq"`
	Error json.RawMessage `json:"error"`
}

// parse decodes data. A field of an unexpected type is ignored (servers
// differ), but data that is not a JSON object is an error.
func (p *chunkParser) parse(data []byte) error {
	var w wireChunk
	if err := json.Unmarshal(data, &w); err != nil && !errors.As(err, new(*json.UnmarshalTypeError)) {
		return err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return errors.New("a stream chunk must be a JSON object")
	}
	c := &p.chunk
	c.choices, c.usage, c.errorRaw = c.choices[:0], nil, nil
	if len(w.Error) > 0 && string(w.Error) != "null" {
		c.errorRaw = w.Error
	}
	u := w.Usage
	if u == nil && w.XGroq != nil {
		u = w.XGroq.Usage
	}
	if u != nil {
		c.usage = u.usage()
	}
	for _, wc := range w.Choices {
		ch := choiceInfo{
			index:            wc.Index,
			content:          wc.Delta.Content,
			reasoningContent: wc.Delta.ReasoningContent,
			reasoning:        wc.Delta.Reasoning,
			finishReason:     wc.FinishReason,
		}
		for _, tc := range wc.Delta.ToolCalls {
			d := toolDelta{id: tc.ID, name: tc.Function.Name, arguments: rawText(tc.Function.Arguments)}
			if tc.Index != nil {
				d.index, d.hasIndex = *tc.Index, true
			}
			ch.tools = append(ch.tools, d)
		}
		c.choices = append(c.choices, ch)
	}
	return nil
}

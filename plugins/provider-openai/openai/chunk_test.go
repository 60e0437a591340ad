package openai

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// parsed flattens what the parser found, for comparisons.
type parsed struct {
	Choices []parsedChoice
	Usage   *provider.Usage
	Error   string
}

type parsedChoice struct {
	Index                                        int
	Content, ReasoningContent, Reasoning, Finish string
	Tools                                        []toolDelta
}

func flatten(c *chunkInfo) parsed {
	out := parsed{Usage: c.usage, Error: string(c.errorRaw)}
	for _, ch := range c.choices {
		pc := parsedChoice{Index: ch.index, Content: ch.content, ReasoningContent: ch.reasoningContent,
			Reasoning: ch.reasoning, Finish: ch.finishReason}
		if len(ch.tools) > 0 {
			pc.Tools = append([]toolDelta(nil), ch.tools...)
		}
		out.Choices = append(out.Choices, pc)
	}
	return out
}

func TestChunkParser(t *testing.T) {
	tests := []struct {
		in   string
		want parsed
	}{
		{
			`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}`,
			parsed{Choices: []parsedChoice{{Content: "Hi"}}},
		},
		{
			` { "choices" : [ { "index" : 0 , "delta" : { "content" : "a\"b\\c\/d\b\f\n\r\t\u00e9\u65e5\ud83d\ude42" } } ] } `,
			parsed{Choices: []parsedChoice{{Content: "a\"b\\c/d\b\f\n\r\té日🙂"}}},
		},
		{
			`{"choices":[{"delta":{"content":"lone \ud83d and \ude42 and \ud83d\u0041"}}]}`,
			parsed{Choices: []parsedChoice{{Content: "lone \uFFFD and \uFFFD and \uFFFDA"}}},
		},
		{
			"{\"choices\":[{\"delta\":{\"content\":\"bad \xff\xfe utf8 \xe6\x97\"}}]}",
			parsed{Choices: []parsedChoice{{Content: "bad \uFFFD\uFFFD utf8 \uFFFD\uFFFD"}}},
		},
		{
			`{"choices":[{"index":0,"delta":{"reasoning_content":"think","reasoning":"alt","content":null}},{"index":1,"delta":{"content":"other"}}]}`,
			parsed{Choices: []parsedChoice{{ReasoningContent: "think", Reasoning: "alt"}, {Index: 1, Content: "other"}}},
		},
		{
			`{"choices":[{"index":0,"delta":{"reasoning":{"summary":"not a string"},"content":["not","a","string"]}}]}`,
			parsed{Choices: []parsedChoice{{}}},
		},
		{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}},{"index":1,"function":{"arguments":"{\"a\":"}},{"function":{"arguments":{"x": [1, 2]}}},{"index":null,"id":null}]},"finish_reason":"tool_calls"}]}`,
			parsed{Choices: []parsedChoice{{Finish: "tool_calls", Tools: []toolDelta{
				{index: 0, hasIndex: true, id: "call_1", name: "f"},
				{index: 1, hasIndex: true, arguments: `{"a":`},
				{arguments: `{"x": [1, 2]}`},
				{},
			}}}},
		},
		{
			`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3.0,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":0}}}`,
			parsed{Usage: &provider.Usage{InputTokens: 12, OutputTokens: 3}},
		},
		{
			`{"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":30,"prompt_tokens_details":{"cached_tokens":32},"completion_tokens_details":{"reasoning_tokens":24}}}`,
			parsed{Usage: &provider.Usage{InputTokens: 40, OutputTokens: 30, CachedTokens: 32, ReasoningTokens: 24}},
		},
		{
			`{"choices":[{"delta":{},"finish_reason":"stop"}],"x_groq":{"id":"req_1","usage":{"prompt_tokens":5,"completion_tokens":1e1}}}`,
			parsed{Choices: []parsedChoice{{Finish: "stop"}}, Usage: &provider.Usage{InputTokens: 5, OutputTokens: 10}},
		},
		{
			`{"error":{"message":"boom","type":"server_error","code":null}}`,
			parsed{Error: `{"message":"boom","type":"server_error","code":null}`},
		},
		{
			`{"error":null,"choices":null,"usage":null,"x":[true,false,null,-0.5e-3,{"y":[]}],"\u0063hoices":[{"delta":{"content":"escaped key"}}]}`,
			parsed{Choices: []parsedChoice{{Content: "escaped key"}}},
		},
		{
			`{"choices":[{"delta":{"content":"first"}}],"choices":[{"delta":{"content":"second"}}]}`,
			parsed{Choices: []parsedChoice{{Content: "second"}}},
		},
	}
	var p chunkParser
	for _, tt := range tests {
		if err := p.parse([]byte(tt.in)); err != nil {
			t.Fatalf("parse(%s): %v", tt.in, err)
		}
		if got := flatten(&p.chunk); !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("parse(%s)\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
		// encoding/json must agree on the strings it can decode.
		var ref struct {
			Choices []struct {
				Delta struct {
					Content json.RawMessage `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(tt.in), &ref) == nil {
			for i, c := range ref.Choices {
				var s string
				if json.Unmarshal(c.Delta.Content, &s) == nil && i < len(p.chunk.choices) && s != p.chunk.choices[i].content {
					t.Fatalf("content %q, encoding/json says %q", p.chunk.choices[i].content, s)
				}
			}
		}
	}
}

func TestChunkParserRejectsWhatIsNotAJSONObject(t *testing.T) {
	var p chunkParser
	for _, in := range []string{``, ` `, `{`, `{"choices":[{`, `{"a":1,}`, `[1]`, `"text"`, `{}x`} {
		if err := p.parse([]byte(in)); err == nil {
			t.Errorf("parse(%q) succeeded", in)
		}
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		body string
		want errorInfo
	}{
		{`{"error":{"message":"Bad key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			errorInfo{"Bad key", "invalid_request_error", "invalid_api_key", true, true}},
		{`{"error":"model not found"}`, errorInfo{"model not found", "", "", true, false}},
		{`{"object":"error","message":"too long","type":"BadRequestError","code":400}`, errorInfo{"too long", "BadRequestError", "400", true, false}},
		{`{"detail":"Not Found"}`, errorInfo{"Not Found", "", "", true, false}},
		{`{"detail":[{"loc":["body"],"msg":"field required"}]}`, errorInfo{`[{"loc":["body"],"msg":"field required"}]`, "", "", true, false}},
		{"upstream connect error\nor disconnect", errorInfo{"upstream connect error or disconnect", "", "", false, false}},
		{"<html>nope</html>", errorInfo{}},
		{"", errorInfo{}},
		{`{"unrelated":true}`, errorInfo{`{"unrelated":true}`, "", "", false, false}},
	}
	for _, tt := range tests {
		if got := parseErrorBody([]byte(tt.body)); got != tt.want {
			t.Errorf("parseErrorBody(%q) = %+v, want %+v", tt.body, got, tt.want)
		}
	}
}

func BenchmarkChunkParser(b *testing.B) {
	line := []byte(`{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	var p chunkParser
	b.ReportAllocs()
	for b.Loop() {
		if err := p.parse(line); err != nil || p.chunk.choices[0].content != " world" {
			b.Fatal(err)
		}
	}
}

package openai

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// embeddingsJSON is an OpenAI embeddings reply for vectors, items in the
// given order, each number written by format.
func embeddingsJSON(vectors [][]float32, order []int, format func(float32) string) string {
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[`)
	for i, idx := range order {
		if i > 0 {
			b.WriteString(",\n ")
		}
		b.WriteString(`{"object":"embedding","index":` + strconv.Itoa(idx) + `,"embedding":[`)
		for j, f := range vectors[idx] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(format(f))
		}
		b.WriteString("]}")
	}
	b.WriteString(`],"model":"m","usage":{"prompt_tokens":12,"total_tokens":12}}`)
	return b.String()
}

func TestDecodeEmbeddingsMatchesEncodingJSON(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	formats := map[string]func(float32) string{
		"shortest": func(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) },
		"float64":  func(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 64) },
		"fixed":    func(f float32) string { return strconv.FormatFloat(float64(f), 'f', 10, 64) },
		"exponent": func(f float32) string { return strconv.FormatFloat(float64(f), 'E', 8, 32) },
	}
	for name, format := range formats {
		t.Run(name, func(t *testing.T) {
			n, dims := 9, 50
			vectors := make([][]float32, n)
			for i := range vectors {
				vectors[i] = make([]float32, dims)
				for j := range vectors[i] {
					vectors[i][j] = float32(rnd.NormFloat64() * math.Pow(10, float64(rnd.IntN(8)-6)))
				}
			}
			order := rnd.Perm(n)
			body := embeddingsJSON(vectors, order, format)
			got, usage, errRaw, err := decodeEmbeddings([]byte(body), n)
			if err != nil || errRaw != nil {
				t.Fatalf("%v %s", err, errRaw)
			}
			var ref struct {
				Data []struct {
					Index     int
					Embedding []float32
				}
			}
			if err := json.Unmarshal([]byte(body), &ref); err != nil {
				t.Fatal(err)
			}
			for _, d := range ref.Data {
				if !reflect.DeepEqual(got[d.Index], d.Embedding) {
					t.Fatalf("vector %d = %v, encoding/json says %v", d.Index, got[d.Index], d.Embedding)
				}
			}
			if *usage != (provider.Usage{InputTokens: 12}) {
				t.Fatalf("usage %+v", usage)
			}
		})
	}
}

func TestDecodeEmbeddings(t *testing.T) {
	b64 := func(v ...float32) string {
		raw := make([]byte, 4*len(v))
		for i, f := range v {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
		}
		return strconv.Quote(base64.StdEncoding.EncodeToString(raw))
	}
	tests := []struct {
		name    string
		body    string
		n       int
		want    [][]float32
		usage   *provider.Usage
		errRaw  string
		wantErr string
	}{
		{name: "minimal", body: `{"data":[{"embedding":[1,2]}]}`, n: 1, want: [][]float32{{1, 2}}},
		{
			name:  "index after the vector, odd spacing and members",
			body:  " {\"model\" : \"m\",\"data\":[ {\"embedding\" :[ 0.5 ,-0.25 ] ,\"index\":1 ,\"extra\":{\"a\":[1,{\"b\":null}],\"c\":\"]}\\\"\"}},\r\n\t{\"index\":0,\"embedding\":[3,4e-1]} ] ,\"usage\":{\"total_tokens\":5},\"object\":\"list\"} \n",
			n:     2,
			want:  [][]float32{{3, 0.4}, {0.5, -0.25}},
			usage: &provider.Usage{InputTokens: 5},
		},
		{name: "escaped keys", body: `{"d\u0061ta":[{"\u0069ndex":0,"embedding":[7]}]}`, n: 1, want: [][]float32{{7}}},
		{name: "base64", body: `{"data":[{"index":0,"embedding":` + b64(0.5, -1, 3.25) + `}]}`, n: 1, want: [][]float32{{0.5, -1, 3.25}}},
		{name: "null members", body: `{"data":[{"index":0,"embedding":[1]}],"usage":null,"error":null}`, n: 1, want: [][]float32{{1}}},
		{name: "error object", body: `{"error":{"message":"quota","type":"insufficient_quota"}}`, n: 1, errRaw: `{"message":"quota","type":"insufficient_quota"}`},
		{name: "error after data", body: `{"data":[],"error":{"message":"x"}}`, n: 1, errRaw: `{"message":"x"}`},
		{name: "too few", body: `{"data":[{"index":0,"embedding":[1]}]}`, n: 2, wantErr: "1 vectors for 2 inputs"},
		{name: "too many", body: `{"data":[{"embedding":[1]},{"embedding":[2]}]}`, n: 1, wantErr: "more than 1 vectors"},
		{name: "index out of range", body: `{"data":[{"index":3,"embedding":[1]}]}`, n: 2, wantErr: "out of range"},
		{name: "fractional index", body: `{"data":[{"index":0.5,"embedding":[1]}]}`, n: 2, wantErr: "out of range"},
		{name: "duplicate index", body: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`, n: 2, wantErr: "two vectors for index 0"},
		{name: "ragged", body: `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2,3]}]}`, n: 2, wantErr: "vectors of 1 and 2 values"},
		{name: "no embedding", body: `{"data":[{"index":0}]}`, n: 1, wantErr: "no embedding"},
		{name: "empty embedding", body: `{"data":[{"index":0,"embedding":[]}]}`, n: 1, wantErr: "no embedding"},
		{name: "null data", body: `{"data":null}`, n: 1, wantErr: "0 vectors for 1 inputs"},
		{name: "truncated in a number", body: `{"data":[{"index":0,"embedding":[1,2.`, n: 1, wantErr: "ends where"},
		{name: "a lone minus", body: `{"data":[{"index":0,"embedding":[1,-]}]}`, n: 1, wantErr: "bad number"},
		{name: "truncated after a number", body: `{"data":[{"index":0,"embedding":[1,2`, n: 1, wantErr: "ends where"},
		{name: "truncated in a string", body: `{"data":[{"object":"embe`, n: 1, wantErr: "inside a string"},
		{name: "truncated in a skipped value", body: `{"model":{"a":[1,2`, n: 1, wantErr: "a JSON value"},
		{name: "bad skipped value", body: `{"model":tru,"data":[]}`, n: 1, wantErr: "a JSON value"},
		{name: "NaN", body: `{"data":[{"index":0,"embedding":[NaN]}]}`, n: 1, wantErr: "a number"},
		{name: "string number", body: `{"data":[{"index":0,"embedding":["1"]}]}`, n: 1, wantErr: "a number"},
		{name: "hex", body: `{"data":[{"index":0,"embedding":[0x10]}]}`, n: 1, wantErr: "'x'"},
		{name: "overflow", body: `{"data":[{"index":0,"embedding":[1e39]}]}`, n: 1, wantErr: "bad number"},
		{name: "trailing garbage", body: `{"data":[{"index":0,"embedding":[1]}]} x`, n: 1, wantErr: "the end"},
		{name: "trailing comma", body: `{"data":[{"index":0,"embedding":[1,]}]}`, n: 1, wantErr: "a number"},
		{name: "not an object", body: `[1,2]`, n: 1, wantErr: "an object"},
		{name: "HTML", body: `<html>`, n: 1, wantErr: "an object"},
		{name: "empty", body: ``, n: 1, wantErr: "ends where"},
		{name: "bad base64", body: `{"data":[{"index":0,"embedding":"AAA="}]}`, n: 1, wantErr: "base64"},
		{name: "control character", body: "{\"da\nta\":1}", n: 1, wantErr: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, usage, errRaw, err := decodeEmbeddings([]byte(tt.body), tt.n)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(errRaw) != tt.errRaw {
				t.Fatalf("err = %v, errRaw %s", err, errRaw)
			}
			if tt.errRaw != "" {
				return
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(usage, tt.usage) {
				t.Fatalf("got %v usage %+v, want %v %+v", got, usage, tt.want, tt.usage)
			}
		})
	}
}

func TestDecodeRerank(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		n       int
		want    []provider.RerankResult
		errRaw  string
		wantErr string
	}{
		{name: "Jina and Cohere", body: `{"model":"m","results":[{"index":1,"relevance_score":0.9,"document":{"text":"b"}},{"index":0,"relevance_score":0.1}]}`,
			n: 2, want: []provider.RerankResult{{Index: 1, Score: 0.9}, {Index: 0, Score: 0.1}}},
		{name: "Voyage", body: `{"object":"list","data":[{"relevance_score":0.5,"index":0}],"usage":{"total_tokens":3}}`,
			n: 1, want: []provider.RerankResult{{Index: 0, Score: 0.5}}},
		{name: "TEI", body: `[{"index":0,"score":0.25},{"index":1,"score":-3}]`, n: 2, want: []provider.RerankResult{{Index: 0, Score: 0.25}, {Index: 1, Score: -3}}},
		{name: "empty results", body: `{"results":[]}`, n: 2, want: []provider.RerankResult{}},
		{name: "error", body: `{"error":{"message":"no"}}`, n: 1, errRaw: `{"message":"no"}`},
		{name: "no results", body: `{"model":"m"}`, n: 1, wantErr: "no results"},
		{name: "no score", body: `{"results":[{"index":0}]}`, n: 1, wantErr: "lacks an index or a score"},
		{name: "no index", body: `{"results":[{"relevance_score":1}]}`, n: 1, wantErr: "lacks an index or a score"},
		{name: "out of range", body: `{"results":[{"index":2,"relevance_score":1}]}`, n: 2, wantErr: "out of range"},
		{name: "duplicate", body: `{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":1}]}`, n: 2, wantErr: "two results"},
		{name: "truncated", body: `{"results":[{"index":0,"relevance_sc`, n: 1, wantErr: "unexpected end"},
		{name: "not JSON", body: `Internal error`, n: 1, wantErr: "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errRaw, err := decodeRerank([]byte(tt.body), tt.n)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(errRaw) != tt.errRaw {
				t.Fatalf("err = %v, errRaw %s", err, errRaw)
			}
			if tt.errRaw == "" && !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPresets(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		base    string
		dialect string
		wantErr string
	}{
		{name: "ai21", base: "https://api.ai21.com/studio/v1"},
		{name: "cloudflare", options: map[string]any{"account_id": "abc 123"}, base: "https://api.cloudflare.com/client/v4/accounts/abc%20123/ai/v1"},
		{name: "cloudflare", wantErr: "account_id"},
		{name: "cloudflare", options: map[string]any{"account_id": 42}, wantErr: "account_id"},
		{name: "deepinfra", base: "https://api.deepinfra.com/v1/openai"},
		{name: "deepseek", base: "https://api.deepseek.com"},
		{name: "ernie", base: "https://qianfan.baidubce.com/v2"},
		{name: "github", base: "https://models.inference.ai.azure.com"},
		{name: "groq", base: "https://api.groq.com/openai/v1"},
		{name: "Groq", base: "https://api.groq.com/openai/v1"},
		{name: "hunyuan", base: "https://api.hunyuan.cloud.tencent.com/v1"},
		{name: "minimax", base: "https://api.minimax.chat/v1"},
		{name: "mistral", base: "https://api.mistral.ai/v1"},
		{name: "moonshot", base: "https://api.moonshot.cn/v1"},
		{name: "openrouter", base: "https://openrouter.ai/api/v1"},
		{name: "perplexity", base: "https://api.perplexity.ai"},
		{name: "qianwen", base: "https://dashscope.aliyuncs.com/compatible-mode/v1"},
		{name: "xai", base: "https://api.x.ai/v1"},
		{name: "zhipuai", base: "https://open.bigmodel.cn/api/paas/v4"},
		{name: "jina", base: "https://api.jina.ai/v1", dialect: dialectJina},
		{name: "voyageai", base: "https://api.voyageai.com/v1", dialect: dialectVoyage},
		{name: "ollama", wantErr: "set api_base (for example http://localhost:11434/v1"},
		{name: "my-groq", wantErr: "set api_base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newClient(&provider.ClientConfig{Name: tt.name, Type: TypeOpenAICompatible, Options: tt.options})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), `openai-compatible client "`+tt.name+`": `) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.http.Base != tt.base || c.dialect != tt.dialect {
				t.Fatalf("base %q dialect %q, want %q %q", c.http.Base, c.dialect, tt.base, tt.dialect)
			}
		})
	}
}

func TestAPIBaseWinsOverPresetAndTypeOpenAIHasNone(t *testing.T) {
	tests := []struct {
		cfg     provider.ClientConfig
		base    string
		dialect string
	}{
		{provider.ClientConfig{Name: "groq", Type: TypeOpenAICompatible, APIBase: "http://localhost:8080/v1/"}, "http://localhost:8080/v1", dialectOpenAI},
		{provider.ClientConfig{Name: "voyageai", Type: TypeOpenAICompatible, APIBase: "http://proxy.local/voyage"}, "http://proxy.local/voyage", dialectVoyage},
		{provider.ClientConfig{Name: "embedder", Type: TypeOpenAICompatible, APIBase: "https://api.jina.ai/v1"}, "https://api.jina.ai/v1", dialectJina},
		{provider.ClientConfig{Name: "v", Type: TypeOpenAICompatible, APIBase: "https://api.voyageai.com/v1"}, "https://api.voyageai.com/v1", dialectVoyage},
		{provider.ClientConfig{Name: "groq", Type: TypeOpenAI}, DefaultAPIBase, dialectOpenAI},
		{provider.ClientConfig{Name: "jina", Type: TypeOpenAI}, DefaultAPIBase, dialectOpenAI},
	}
	for _, tt := range tests {
		c, err := newClient(&tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c.http.Base != tt.base || c.dialect != tt.dialect {
			t.Fatalf("%v: base %q dialect %q, want %q %q", tt.cfg, c.http.Base, c.dialect, tt.base, tt.dialect)
		}
	}
}

// benchBody is a reply of 64 vectors of 384 values, as OpenAI writes them.
func benchBody() []byte {
	rnd := rand.New(rand.NewPCG(5, 6))
	vectors := make([][]float32, 64)
	for i := range vectors {
		vectors[i] = make([]float32, 384)
		for j := range vectors[i] {
			vectors[i][j] = float32(rnd.NormFloat64() / 20)
		}
	}
	order := make([]int, 64)
	for i := range order {
		order[i] = i
	}
	return []byte(embeddingsJSON(vectors, order, func(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }))
}

func BenchmarkDecodeEmbeddings64x384(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := decodeEmbeddings(body, 64); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeEmbeddings64x384EncodingJSON is the same with
// encoding/json, the reason for the hand-written decoder.
func BenchmarkDecodeEmbeddings64x384EncodingJSON(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var reply struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &reply); err != nil || len(reply.Data) != 64 {
			b.Fatal(err)
		}
	}
}

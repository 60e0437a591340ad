// Package fakellm owns Coyote's stand-ins for LLM HTTP APIs, so tests and
// benchmarks can exercise provider plugins without any network: OpenAI
// (chat completions streamed and not, embeddings, and the /rerank endpoint
// of Jina, vLLM and others), Anthropic's Messages API (anthropic.go) and
// Google's Gemini API (gemini.go). Each speaks its API's real wire format
// and rejects malformed requests as the real one does; all three answer
// from the same Reply.
//
// A test describes how the server answers each request with a Respond
// function returning a Reply (text, reasoning, tool calls, delays, HTTP
// errors or a broken stream), starts it with StartOpenAI and later inspects
// what the client sent with Requests:
//
//	f := &fakellm.OpenAI{APIKey: "sk-test", Respond: func(*fakellm.ChatRequest) fakellm.Reply {
//		return fakellm.Reply{Text: "hi there", Chunks: 2}
//	}}
//	base := fakellm.StartOpenAI(t, f) // http://127.0.0.1:port/v1
//
// Embeddings are FakeVector of each input and rerank scores are FakeScore,
// so a test knows the expected answer without asking the server;
// EmbedRequests and RerankRequests return what the client sent.
package fakellm

import (
	"cmp"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Reply says how the fake answers one chat request.
type Reply struct {
	// Text is the assistant's answer.
	Text string
	// Chunks is the number of content deltas Text is split into. Zero sends
	// one delta per word, each word with the whitespace before it. A count
	// up to the number of words groups words evenly; a larger count splits
	// the text evenly by runes (never inside a UTF-8 sequence), so that
	// exactly Chunks deltas are sent. When Chunks exceeds the number of
	// runes, the extra deltas are empty.
	Chunks int
	// Reasoning is sent before the text as reasoning_content deltas, in
	// about four pieces.
	Reasoning string
	// ToolCalls are streamed the way OpenAI does: a first delta with index,
	// id, type and name, then the arguments over at least three more deltas.
	// The deltas of several calls are interleaved, so clients must
	// reassemble them by index.
	ToolCalls []ToolCall
	// Delay is waited before every chunk but the first (so the first event
	// reaches the client at once). A cancelled request stops the wait. For a
	// non-streamed reply it is waited once.
	Delay time.Duration
	// Stall makes a streamed reply send its first piece of content, then
	// nothing more until the request is cancelled.
	Stall bool
	// Usage is reported in the usage chunk. When nil, counts are derived
	// from the lengths of the request and the reply (about four bytes a
	// token). The usage chunk is only sent when the request asks for it
	// with stream_options.include_usage, as OpenAI does.
	Usage *Usage
	// FinishReason defaults to "stop", or "tool_calls" when ToolCalls is
	// non-empty.
	FinishReason string
	// Status, when 400 or more, makes the server answer with this HTTP
	// status and an OpenAI error body instead of a reply.
	Status int
	// ErrorMessage is the error body's message for Status; each status has
	// a sensible default.
	ErrorMessage string
	// RetryAfter, if set, is sent as the Retry-After header with Status.
	RetryAfter string
	// LimitResetsAt, with Status 429, makes the Codex fake answer that the
	// ChatGPT plan's usage limit is reached until then (its
	// usage_limit_reached error). The other fakes ignore it.
	LimitResetsAt time.Time
	// Malformed sends a chunk of broken JSON after half of the content
	// deltas, then ends the stream.
	Malformed bool
	// Truncate ends the body after half of the content deltas, without a
	// finish reason and without [DONE].
	Truncate bool
	// StreamError sends an error chunk with this message after half of the
	// content deltas, then ends the stream. A non-streamed request gets a
	// 500 with this message instead.
	StreamError string
	// ReasoningSignature is the opaque signature of the reasoning, for the
	// providers that send one (Claude's signature_delta, Gemini's
	// thoughtSignature). The OpenAI fake ignores it.
	ReasoningSignature string
	// RedactedReasoning, when set, is sent as a redacted-thinking block by
	// the fakes whose API has one (Claude). The OpenAI fake ignores it.
	RedactedReasoning string
}

// ToolCall is one function call the fake model makes.
type ToolCall struct{ ID, Name, Arguments string }

// Usage is a token count reported to the client. CachedTokens is the
// part of the prompt read from the cache (OpenAI's
// prompt_tokens_details.cached_tokens, Anthropic's
// cache_read_input_tokens, counted apart from its input_tokens);
// ReasoningTokens the thinking (OpenAI's
// completion_tokens_details.reasoning_tokens, within CompletionTokens;
// Gemini's thoughtsTokenCount, on top of them).
type Usage struct{ PromptTokens, CompletionTokens, CachedTokens, ReasoningTokens int }

// ChatRequest is what the fake recorded of one request: the decoded JSON
// body and the Authorization header.
type ChatRequest struct {
	Model    string
	Messages []map[string]any
	Stream   bool
	// IncludeUsage is stream_options.include_usage.
	IncludeUsage    bool
	Temperature     *float64
	TopP            *float64
	Tools           []map[string]any
	ReasoningEffort string
	// Raw is the whole decoded body (nil if it was not a JSON object).
	Raw map[string]any
	// Authorization is the header as received.
	Authorization string
	// Header holds every request header as received (fakes of APIs that
	// authenticate otherwise, such as x-api-key, read it from here).
	Header http.Header
}

// DefaultText is the answer when OpenAI.Respond is nil.
const DefaultText = "Hello from the fake OpenAI server."

// OpenAI is a fake OpenAI-compatible API. The zero value is ready to use;
// it must not be copied after first use. Respond, RespondEmbed and
// RespondRerank may be called from several goroutines at once when the
// client sends concurrent requests.
type OpenAI struct {
	// APIKey, if set, is required as "Authorization: Bearer <APIKey>";
	// other requests get a 401 with OpenAI's error body.
	APIKey string
	// Models are listed by GET /models. Default: gpt-4o-mini and gpt-4.1.
	Models []string
	// Respond decides each reply. When nil, the server answers DefaultText
	// and rejects models missing from Models with a 404 model_not_found.
	Respond func(*ChatRequest) Reply
	// EmbedDims is the length of the vectors of an embeddings request that
	// does not ask for one (with "dimensions", or Voyage's
	// "output_dimension"), and the length of the vectors behind rerank
	// scores. Zero means DefaultEmbedDims.
	EmbedDims int
	// RespondEmbed and RespondRerank, when set, can make an embeddings or
	// rerank request fail: of the Reply they return, Status, ErrorMessage,
	// RetryAfter, Delay, Malformed, Truncate and StreamError (a 500 with
	// that message) are used; a zero Reply answers normally.
	RespondEmbed  func(*EmbedCall) Reply
	RespondRerank func(*RerankCall) Reply

	chats   recorder[ChatRequest]
	embeds  recorder[EmbedCall]
	reranks recorder[RerankCall]
	vectors vectorCache
}

// bodyPool recycles the buffers of embeddings replies.
var bodyPool sync.Pool

// DefaultEmbedDims is the length of the fake's vectors when neither the
// request nor OpenAI.EmbedDims says.
const DefaultEmbedDims = 384

// EmbedCall is what the fake recorded of one embeddings request.
type EmbedCall struct {
	Model string
	// Inputs is "input", a string or an array of strings.
	Inputs []string
	// Raw is the whole decoded body (nil if it was not a JSON object).
	Raw    map[string]any
	Header http.Header
}

// RerankCall is what the fake recorded of one rerank request.
type RerankCall struct {
	Model     string
	Query     string
	Documents []string
	// TopN is "top_n", or Voyage's "top_k"; 0 when absent.
	TopN   int
	Raw    map[string]any
	Header http.Header
}

// Handler serves POST /v1/chat/completions, POST /v1/embeddings,
// POST /v1/rerank and GET /v1/models, each also without the /v1 prefix.
// Anything else gets a 404 with an OpenAI error body.
func (f *OpenAI) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// EmbedRequests returns a copy of the embeddings requests received so far,
// in order.
func (f *OpenAI) EmbedRequests() []EmbedCall { return f.embeds.all() }

// RerankRequests returns a copy of the rerank requests received so far, in
// order.
func (f *OpenAI) RerankRequests() []RerankCall { return f.reranks.all() }

// Requests returns a copy of the chat requests received so far, in order.
func (f *OpenAI) Requests() []ChatRequest { return f.chats.all() }

// StartOpenAI serves f on a loopback port until the test ends and returns
// the base URL, ending in "/v1". Replies still being streamed when the test
// ends are cut off.
func StartOpenAI(t testing.TB, f *OpenAI) string {
	t.Helper()
	return start(t, f.Handler(), "/v1")
}

func (f *OpenAI) models() []string {
	return orDefault(f.Models, "gpt-4o-mini", "gpt-4.1")
}

func (f *OpenAI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := trimVersion(r.URL.Path, "/v1/")
	switch {
	case path == "/chat/completions" && r.Method == http.MethodPost:
		f.chat(w, r)
	case path == "/embeddings" && r.Method == http.MethodPost:
		f.embed(w, r)
	case path == "/rerank" && r.Method == http.MethodPost:
		f.rerank(w, r)
	case path == "/models" && r.Method == http.MethodGet:
		f.listModels(w, r)
	default:
		writeError(w, http.StatusNotFound, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", "")
	}
}

// authorized answers 401 and returns false when a key is required and the
// request does not carry it.
func (f *OpenAI) authorized(w http.ResponseWriter, auth string) bool {
	if f.APIKey == "" || auth == "Bearer "+f.APIKey {
		return true
	}
	msg := "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
	if auth == "" {
		msg = "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
	}
	writeError(w, http.StatusUnauthorized, msg, "invalid_request_error", "invalid_api_key")
	return false
}

func (f *OpenAI) listModels(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(w, r.Header.Get("Authorization")) {
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	body := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, m := range f.models() {
		body.Data = append(body.Data, model{ID: m, Object: "model", Created: 1700000000, OwnedBy: "fakellm"})
	}
	writeJSON(w, http.StatusOK, body)
}

func (f *OpenAI) chat(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	req := ChatRequest{Raw: raw, Authorization: r.Header.Get("Authorization"), Header: r.Header.Clone()}
	req.fill()
	id := "chatcmpl-fake" + strconv.Itoa(f.chats.add(req))

	if !f.authorized(w, req.Authorization) {
		return
	}
	if !ok {
		badJSON(w)
		return
	}
	reply := Reply{Text: DefaultText}
	switch {
	case f.Respond != nil:
		reply = ask(f.Respond, req)
	case req.Model == "":
		noModel(w)
		return
	case !slices.Contains(f.models(), req.Model):
		writeError(w, http.StatusNotFound, "The model '"+req.Model+"' does not exist or you do not have access to it.",
			"invalid_request_error", "model_not_found")
		return
	}
	if reply.Status >= 400 {
		writeStatus(w, &reply, req.Model)
		return
	}
	if reply.FinishReason == "" {
		reply.FinishReason = "stop"
		if len(reply.ToolCalls) > 0 {
			reply.FinishReason = "tool_calls"
		}
	}
	reply.ToolCalls = withIDs(reply.ToolCalls, "call_fake_")
	if req.Stream {
		streamReply(w, r, &req, &reply, id)
	} else {
		completeReply(w, r, &req, &reply, id)
	}
}

// fill copies the known fields of the decoded body into the request.
func (c *ChatRequest) fill() {
	raw := c.Raw
	c.Model, _ = raw["model"].(string)
	c.Stream, _ = raw["stream"].(bool)
	c.ReasoningEffort, _ = raw["reasoning_effort"].(string)
	if so, ok := raw["stream_options"].(map[string]any); ok {
		c.IncludeUsage, _ = so["include_usage"].(bool)
	}
	c.Temperature = optionalNumber(raw, "temperature")
	c.TopP = optionalNumber(raw, "top_p")
	c.Messages = objects(raw["messages"])
	c.Tools = objects(raw["tools"])
}

// defaultError returns the message, type and code OpenAI uses for status.
func defaultError(status int, model string) (msg, typ, code string) {
	switch status {
	case http.StatusBadRequest:
		return "Invalid request.", "invalid_request_error", ""
	case http.StatusUnauthorized:
		return "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"
	case http.StatusForbidden:
		return "You are not allowed to use this model.", "invalid_request_error", "permission_denied"
	case http.StatusNotFound:
		return "The model '" + model + "' does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"
	case http.StatusUnprocessableEntity:
		return "The request could not be processed.", "invalid_request_error", ""
	case http.StatusTooManyRequests:
		return "Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded"
	case http.StatusInternalServerError:
		return "The server had an error while processing your request. Sorry about that!", "server_error", ""
	case http.StatusServiceUnavailable:
		return "The engine is currently overloaded, please try again later.", "server_error", ""
	}
	typ = "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	return statusText(status) + ".", typ, ""
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func newErrorBody(msg, typ, code string) errorBody {
	b := errorBody{Error: errorDetail{Message: msg, Type: typ}}
	if code != "" {
		b.Error.Code = &code
	}
	return b
}

// errorJSON is the body of a server_error with msg, as a stream sends it.
func errorJSON(msg string) string {
	data, _ := json.Marshal(newErrorBody(msg, "server_error", ""))
	return string(data)
}

// writeError answers with OpenAI's error body; an empty code is null.
func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	writeJSON(w, status, newErrorBody(msg, typ, code))
}

// writeStatus answers with the error status a Reply asks for.
func writeStatus(w http.ResponseWriter, reply *Reply, model string) {
	retryAfter(w, reply)
	msg, typ, code := defaultError(reply.Status, model)
	writeError(w, reply.Status, cmp.Or(reply.ErrorMessage, msg), typ, code)
}

func badJSON(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest,
		"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
		"invalid_request_error", "")
}

func noModel(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, "you must provide a model parameter", "invalid_request_error", "")
}

// stringList reads a string or an array of strings, as "input" and
// "documents" are; objects with a "text" member count as their text.
func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			switch y := e.(type) {
			case string:
				out[i] = y
			case map[string]any:
				text, ok := y["text"].(string)
				if !ok {
					return nil, false
				}
				out[i] = text
			default:
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// positiveInt reads a whole positive JSON number, or 0.
func positiveInt(v any) int {
	if f, ok := v.(float64); ok && f >= 1 && f <= 1<<20 && f == math.Trunc(f) {
		return int(f)
	}
	return 0
}

func (f *OpenAI) embedDims() int {
	if f.EmbedDims > 0 {
		return f.EmbedDims
	}
	return DefaultEmbedDims
}

// refused answers an embeddings or rerank request that is not allowed, not
// a JSON object, without a model or, when inputsOK is false, with inputs
// that badInputs describes, and reports whether it did.
func (f *OpenAI) refused(w http.ResponseWriter, r *http.Request, ok bool, model string, inputsOK bool, badInputs string) bool {
	switch {
	case !f.authorized(w, r.Header.Get("Authorization")):
	case !ok:
		badJSON(w)
	case model == "":
		noModel(w)
	case !inputsOK:
		writeError(w, http.StatusBadRequest, badInputs, "invalid_request_error", "")
	default:
		return false
	}
	return true
}

// failed writes the error a Reply asks for, or waits its delay, and
// reports whether the request is answered already.
func failed(w http.ResponseWriter, r *http.Request, reply *Reply, model string) bool {
	if !wait(r.Context(), reply.Delay) {
		return true
	}
	if reply.Status >= 400 {
		writeStatus(w, reply, model)
		return true
	}
	if reply.StreamError != "" {
		writeError(w, http.StatusInternalServerError, reply.StreamError, "server_error", "")
		return true
	}
	return false
}

// answer writes a JSON body, or the broken body the Reply asks for:
// Malformed sends an unfinished object as if it were complete, Truncate
// declares the body's full length and sends half.
func answer(w http.ResponseWriter, body []byte, reply *Reply) {
	switch {
	case reply.Malformed:
		body = []byte(`{"data":[{"index":0,` + "\n")
	case reply.Truncate:
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		return
	}
	writeBody(w, http.StatusOK, "application/json", body)
}

func (f *OpenAI) embed(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	call := EmbedCall{Raw: raw, Header: r.Header.Clone()}
	call.Model, _ = raw["model"].(string)
	var inputsOK bool
	call.Inputs, inputsOK = stringList(raw["input"])
	f.embeds.add(call)

	if f.refused(w, r, ok, call.Model, inputsOK && len(call.Inputs) > 0,
		"'input' must be a string or a non-empty array of strings.") {
		return
	}
	reply := ask(f.RespondEmbed, call)
	if failed(w, r, &reply, call.Model) {
		return
	}
	dims := positiveInt(raw["dimensions"])
	if dims == 0 {
		dims = positiveInt(raw["output_dimension"])
	}
	if dims == 0 {
		dims = f.embedDims()
	}
	b64 := raw["encoding_format"] == "base64"
	encode := AppendVector
	if b64 {
		encode = appendBase64Vector
	}
	tokens := 0
	bp, _ := bodyPool.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer bodyPool.Put(bp)
	body := slices.Grow((*bp)[:0], 96+len(call.Inputs)*(48+dims*16))
	defer func() { *bp = body[:0] }()
	body = append(body, `{"object":"list","data":[`...)
	for i, in := range call.Inputs {
		tokens += (len(in) + 3) / 4
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"object":"embedding","index":`...)
		body = strconv.AppendInt(body, int64(i), 10)
		body = append(body, `,"embedding":`...)
		body = append(body, f.vectors.get(vectorKey{in, dims, b64}, encode)...)
		body = append(body, '}')
	}
	body = append(body, `],"model":`...)
	body = appendJSONString(body, call.Model)
	body = append(body, `,"usage":{"prompt_tokens":`...)
	body = strconv.AppendInt(body, int64(tokens), 10)
	body = append(body, `,"total_tokens":`...)
	body = strconv.AppendInt(body, int64(tokens), 10)
	body = append(body, "}}\n"...)
	answer(w, body, &reply)
}

func (f *OpenAI) rerank(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	call := RerankCall{Raw: raw, Header: r.Header.Clone()}
	call.Model, _ = raw["model"].(string)
	var queryOK, docsOK bool
	call.Query, queryOK = raw["query"].(string)
	call.Documents, docsOK = stringList(raw["documents"])
	call.TopN = cmp.Or(positiveInt(raw["top_n"]), positiveInt(raw["top_k"]))
	id := "rerank-fake" + strconv.Itoa(f.reranks.add(call))

	if f.refused(w, r, ok, call.Model, queryOK && docsOK && len(call.Documents) > 0,
		"'query' must be a string and 'documents' a non-empty array of strings.") {
		return
	}
	reply := ask(f.RespondRerank, call)
	if failed(w, r, &reply, call.Model) {
		return
	}
	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	}
	dims := f.embedDims()
	q := FakeVector(call.Query, dims)
	results := make([]result, len(call.Documents))
	tokens := (len(call.Query) + 3) / 4
	for i, d := range call.Documents {
		results[i] = result{Index: i, RelevanceScore: dot(q, FakeVector(d, dims))}
		tokens += (len(d) + 3) / 4
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].RelevanceScore > results[j].RelevanceScore })
	if call.TopN > 0 && call.TopN < len(results) {
		results = results[:call.TopN]
	}
	body, err := json.Marshal(struct {
		ID      string         `json:"id"`
		Model   string         `json:"model"`
		Usage   map[string]int `json:"usage"`
		Results []result       `json:"results"`
	}{id, call.Model, map[string]int{"total_tokens": tokens}, results})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	answer(w, append(body, '\n'), &reply)
}

// FakeScore is the relevance score the fake's /rerank gives doc for query:
// the cosine similarity of their FakeVectors of dims values.
func FakeScore(query, doc string, dims int) float64 {
	return dot(FakeVector(query, dims), FakeVector(doc, dims))
}

func dot(a, b []float32) float64 {
	var sum float64
	for i := range a {
		sum += float64(a[i]) * float64(b[i])
	}
	return sum
}

// FakeVector is the embedding every fake server returns for text: a unit
// vector of dims values derived from the text's bytes, so the same text
// always gets the same vector and different texts almost always differ.
func FakeVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	// FNV-1a over the text seeds a xorshift generator.
	h := uint64(14695981039346656037)
	for i := 0; i < len(text); i++ {
		h ^= uint64(text[i])
		h *= 1099511628211
	}
	var norm float64
	for i := range v {
		h ^= h << 13
		h ^= h >> 7
		h ^= h << 17
		x := float64(int64(h>>11)%2000-1000) / 1000
		v[i] = float32(x)
		norm += x * x
	}
	if norm > 0 {
		inv := 1 / math.Sqrt(norm)
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
	}
	return v
}

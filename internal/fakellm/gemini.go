package fakellm

// This file is the fake of Google's Generative Language API (Gemini):
// generateContent, streamGenerateContent over server-sent events,
// batchEmbedContents and the model list, with Google's error bodies. All of
// its unexported names start with "gemini" so that the fakes of other APIs
// can live in the same package.

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Gemini is a fake of Google's Generative Language API (v1beta). The zero
// value is ready to use; it must not be copied after first use. Respond may
// be called from several goroutines at once.
//
// It serves, under /v1beta (or /v1):
//
//	POST /models/{model}:generateContent
//	POST /models/{model}:streamGenerateContent?alt=sse
//	POST /models/{model}:batchEmbedContents
//	GET  /models
//
// A reply's parts are built from the Reply: Reasoning becomes thought parts
// (in about four chunks when streamed) whose last one carries the
// thoughtSignature (Reply.ReasoningSignature, or a fixed fake one); Text
// becomes text parts, one chunk per piece of SplitText(Text, Chunks);
// ToolCalls become whole functionCall parts, all in one chunk, the first of
// them carrying the same thoughtSignature. The last chunk carries the
// finishReason and the complete usageMetadata. Reply.FinishReason may be
// given as Gemini spells it ("MAX_TOKENS", "SAFETY") or as the other fakes do
// ("length" is MAX_TOKENS, "stop" and "tool_calls" are STOP). Malformed,
// Truncate and StreamError break the stream after half of the text pieces,
// as in the OpenAI fake; a stream error is a chunk
// {"error":{"code":503,"message":...,"status":"UNAVAILABLE"}}, and a
// non-streamed request gets it as a 503. Reply.Delay is waited before every
// chunk but the first, and each chunk is flushed as it is made.
//
// Requests are checked the way the real API checks them, so that a client
// bug shows up as Google's 400: contents must be present, roles are "user"
// or "model", no content has zero parts, no text part is empty (unless it
// carries a thoughtSignature), function calls and responses have names, a
// turn of N function calls is answered by a user turn of N function
// responses, inline data is base64, and tool parameter schemas use only the
// keys of Google's Schema object (so "additionalProperties" or "$schema" are
// rejected as unknown fields).
type Gemini struct {
	// APIKey, if set, is required in the x-goog-api-key header (or the key
	// query parameter). A request without a key gets a 403
	// PERMISSION_DENIED, one with a wrong key a 400 INVALID_ARGUMENT
	// "API key not valid" with reason API_KEY_INVALID, as Google answers.
	APIKey string
	// Models are listed by GET /models, models whose name contains
	// "embedding" as embedding models (embedContent, batchEmbedContents),
	// the others as chat models (generateContent). Default:
	// gemini-2.5-flash, gemini-2.5-pro and text-embedding-004.
	Models []string
	// Respond decides each chat reply. When nil, the server answers
	// DefaultText and rejects a model that is not one of the chat models
	// of Models with a 404 NOT_FOUND.
	Respond func(*ChatRequest) Reply
	// RespondEmbed, when set, can make an embeddings request fail: of the
	// Reply it returns (for the texts of the request), Status,
	// ErrorMessage and RetryAfter are used; a zero Reply answers normally.
	RespondEmbed func(texts []string) Reply
	// EmbedDims is the size of the vectors of a request that does not set
	// outputDimensionality (default 768). Vectors come from FakeVector.
	EmbedDims int

	requests recorder[ChatRequest]
	embeds   recorder[[]string]
	vectors  vectorCache

	// lastEmbed is the last batchEmbedContents body decoded, from
	// lastEmbedData; mu guards both.
	mu            sync.Mutex
	lastEmbed     *geminiEmbedBody
	lastEmbedData []byte
}

// geminiAppendVector appends v as a JSON array of numbers in their shortest
// float32 form, as Google writes them.
func geminiAppendVector(b []byte, v []float32) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, ']')
}

// geminiSignature is the thoughtSignature of a reply that sets no
// Reply.ReasoningSignature: base64 of "fakellm-thought-signature".
const geminiSignature = "ZmFrZWxsbS10aG91Z2h0LXNpZ25hdHVyZQ=="

// geminiMaxBatch is the most requests one batchEmbedContents call may hold.
const geminiMaxBatch = 100

// Handler serves the API. Unknown paths get a 404 with Google's error body.
func (f *Gemini) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// Requests returns a copy of the chat requests received so far, in order.
// Model is the model of the URL, Messages the body's contents, Stream
// whether the method was streamGenerateContent, Temperature and TopP come
// from generationConfig, ReasoningEffort from
// generationConfig.thinkingConfig.thinkingLevel, Tools is the body's tools,
// Authorization the API key as received (header or query).
func (f *Gemini) Requests() []ChatRequest { return f.requests.all() }

// EmbedRequests returns the texts of each batchEmbedContents call received
// so far (one string per request of the batch, its parts joined), in order.
func (f *Gemini) EmbedRequests() [][]string {
	out := f.embeds.all()
	for i, e := range out {
		out[i] = slices.Clone(e)
	}
	return out
}

// StartGemini serves f on a loopback port until the test ends and returns
// the base URL, ending in "/v1beta". Replies still being streamed when the
// test ends are cut off.
func StartGemini(t testing.TB, f *Gemini) string {
	t.Helper()
	return start(t, f.Handler(), "/v1beta")
}

func (f *Gemini) models() []string {
	return orDefault(f.Models, "gemini-2.5-flash", "gemini-2.5-pro", "text-embedding-004")
}

func geminiIsEmbedding(model string) bool { return strings.Contains(model, "embedding") }

// knows reports whether model is listed and of the wanted kind.
func (f *Gemini) knows(model string, embedding bool) bool {
	for _, m := range f.models() {
		if m == model && geminiIsEmbedding(m) == embedding {
			return true
		}
	}
	return false
}

func (f *Gemini) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := trimVersion(r.URL.Path, "/v1beta/", "/v1/")
	key := r.Header.Get("x-goog-api-key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	if path == "/models" && r.Method == http.MethodGet {
		f.listModels(w, r, key)
		return
	}
	if rest, ok := strings.CutPrefix(path, "/models/"); ok && r.Method == http.MethodPost {
		if i := strings.LastIndexByte(rest, ':'); i > 0 {
			model, method := rest[:i], rest[i+1:]
			switch method {
			case "generateContent":
				f.chat(w, r, model, key, false)
				return
			case "streamGenerateContent":
				f.chat(w, r, model, key, true)
				return
			case "batchEmbedContents":
				f.embed(w, r, model, key)
				return
			}
		}
	}
	geminiWriteError(w, http.StatusNotFound, "Method not found: "+r.Method+" "+r.URL.Path, nil)
}

// authorized answers as Google does and returns false when a key is
// required and the request does not carry it.
func (f *Gemini) authorized(w http.ResponseWriter, key string) bool {
	if f.APIKey == "" || key == f.APIKey {
		return true
	}
	if key == "" {
		geminiWriteError(w, http.StatusForbidden,
			"Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", nil)
		return false
	}
	geminiWriteError(w, http.StatusBadRequest, "API key not valid. Please pass a valid API key.", []any{map[string]any{
		"@type":    "type.googleapis.com/google.rpc.ErrorInfo",
		"reason":   "API_KEY_INVALID",
		"domain":   "googleapis.com",
		"metadata": map[string]string{"service": "generativelanguage.googleapis.com"},
	}})
	return false
}

func (f *Gemini) listModels(w http.ResponseWriter, r *http.Request, key string) {
	if !f.authorized(w, key) {
		return
	}
	q := r.URL.Query()
	size := 50
	if s := q.Get("pageSize"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			geminiWriteError(w, http.StatusBadRequest, "Invalid value at 'page_size' (TYPE_INT32), \""+s+"\"", nil)
			return
		}
		if n > 0 {
			size = min(n, 1000)
		}
	}
	from := 0
	if tok := q.Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			geminiWriteError(w, http.StatusBadRequest, "Invalid page token.", nil)
			return
		}
		from = n
	}
	type model struct {
		Name                       string   `json:"name"`
		Version                    string   `json:"version"`
		DisplayName                string   `json:"displayName"`
		InputTokenLimit            int      `json:"inputTokenLimit"`
		OutputTokenLimit           int      `json:"outputTokenLimit"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
		Thinking                   bool     `json:"thinking,omitempty"`
	}
	body := struct {
		Models        []model `json:"models"`
		NextPageToken string  `json:"nextPageToken,omitempty"`
	}{Models: []model{}}
	all := f.models()
	to := min(from+size, len(all))
	for _, name := range all[min(from, len(all)):to] {
		m := model{Name: "models/" + name, Version: "001", DisplayName: name}
		if geminiIsEmbedding(name) {
			m.InputTokenLimit, m.OutputTokenLimit = 2048, 1
			m.SupportedGenerationMethods = []string{"embedContent", "batchEmbedContents"}
		} else {
			m.InputTokenLimit, m.OutputTokenLimit = 1048576, 65536
			m.SupportedGenerationMethods = []string{"generateContent", "countTokens", "createCachedContent", "batchGenerateContent"}
			m.Thinking = strings.HasPrefix(name, "gemini-2.5") || strings.HasPrefix(name, "gemini-3")
		}
		body.Models = append(body.Models, m)
	}
	if to < len(all) {
		body.NextPageToken = strconv.Itoa(to)
	}
	writeJSON(w, http.StatusOK, body)
}

func (f *Gemini) chat(w http.ResponseWriter, r *http.Request, model, key string, stream bool) {
	raw, ok := readBody(r)
	req := ChatRequest{Model: model, Stream: stream, Raw: raw, Authorization: key, Header: r.Header.Clone()}
	req.geminiFill()
	id := "fakellm-gemini-" + strconv.Itoa(f.requests.add(req))

	if !f.authorized(w, key) {
		return
	}
	if !ok {
		geminiWriteError(w, http.StatusBadRequest, "Invalid JSON payload received. Unexpected token.", nil)
		return
	}
	if stream && r.URL.Query().Get("alt") != "sse" {
		geminiWriteError(w, http.StatusBadRequest, "fakellm serves streamGenerateContent only with alt=sse.", nil)
		return
	}
	if msg := geminiCheckRequest(req.Raw); msg != "" {
		geminiWriteError(w, http.StatusBadRequest, msg, nil)
		return
	}
	reply := Reply{Text: DefaultText}
	switch {
	case f.Respond != nil:
		reply = ask(f.Respond, req)
	case !f.knows(model, false):
		geminiWriteError(w, http.StatusNotFound, geminiNotFound(model, "generateContent"), nil)
		return
	}
	if reply.Status >= 400 {
		geminiReplyError(w, &reply, model)
		return
	}
	reply.FinishReason = geminiFinishReason(reply.FinishReason)
	if reply.ReasoningSignature == "" {
		reply.ReasoningSignature = geminiSignature
	}
	if stream {
		geminiStreamReply(w, r, &req, &reply, id)
	} else {
		geminiCompleteReply(w, r, &req, &reply, id)
	}
}

// geminiFill copies the known fields of a generateContent body into the
// request.
func (c *ChatRequest) geminiFill() {
	raw := c.Raw
	c.Messages = objects(raw["contents"])
	c.Tools = objects(raw["tools"])
	gc, _ := raw["generationConfig"].(map[string]any)
	c.Temperature = optionalNumber(gc, "temperature")
	c.TopP = optionalNumber(gc, "topP")
	if tc, ok := gc["thinkingConfig"].(map[string]any); ok {
		c.ReasoningEffort, _ = tc["thinkingLevel"].(string)
	}
}

// geminiFinishReason spells a Reply.FinishReason as Gemini does.
func geminiFinishReason(reason string) string {
	switch strings.ToLower(reason) {
	case "", "stop", "tool_calls":
		return "STOP"
	case "length":
		return "MAX_TOKENS"
	}
	return strings.ToUpper(reason)
}

// geminiSchemaKey reports whether k is a member of Google's Schema object;
// the real API rejects any other as an unknown field.
func geminiSchemaKey(k string) bool {
	switch k {
	case "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
		"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
		"pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum":
		return true
	}
	return false
}

// geminiFunctionName reports whether name has the shape Google requires of
// a function's name: a letter or underscore, then letters, digits, '_',
// '.' or '-', 64 bytes at most.
func geminiFunctionName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// geminiCheckRequest returns the message of the 400 the real API would
// answer to a malformed generateContent body, or "".
func geminiCheckRequest(raw map[string]any) string {
	list, ok := raw["contents"].([]any)
	if !ok || len(list) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	calls := 0 // function calls of the previous content, if it was the model's
	for i, x := range list {
		c, ok := x.(map[string]any)
		if !ok {
			return "Invalid JSON payload received. contents[" + strconv.Itoa(i) + "] is not an object."
		}
		role, _ := c["role"].(string)
		if role != "" && role != "user" && role != "model" {
			return "Please use a valid role: user, model."
		}
		parts, _ := c["parts"].([]any)
		if len(parts) == 0 {
			return "* GenerateContentRequest.contents[" + strconv.Itoa(i) + "].parts: contents.parts must not be empty."
		}
		ncalls, nresponses := 0, 0
		for j, p := range parts {
			at := "contents[" + strconv.Itoa(i) + "].parts[" + strconv.Itoa(j) + "]"
			msg, kind := geminiCheckPart(p, at)
			if msg != "" {
				return msg
			}
			switch kind {
			case "functionCall":
				ncalls++
			case "functionResponse":
				nresponses++
			}
		}
		if calls > 0 && (role != "user" || nresponses != calls) {
			return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
		}
		if calls == 0 && nresponses > 0 {
			return "Please ensure that function response turn comes immediately after a function call turn."
		}
		calls = 0
		if role == "model" {
			calls = ncalls
		}
	}
	if si, ok := raw["systemInstruction"]; ok {
		m, _ := si.(map[string]any)
		parts, _ := m["parts"].([]any)
		if len(parts) == 0 {
			return "* GenerateContentRequest.system_instruction.parts: contents.parts must not be empty."
		}
		for j, p := range parts {
			if msg, _ := geminiCheckPart(p, "systemInstruction.parts["+strconv.Itoa(j)+"]"); msg != "" {
				return msg
			}
		}
	}
	tools, _ := raw["tools"].([]any)
	for i, x := range tools {
		tool, _ := x.(map[string]any)
		decls, _ := tool["functionDeclarations"].([]any)
		for j, d := range decls {
			decl, _ := d.(map[string]any)
			at := "tools[" + strconv.Itoa(i) + "].function_declarations[" + strconv.Itoa(j) + "]"
			name, _ := decl["name"].(string)
			if !geminiFunctionName(name) {
				return "* GenerateContentRequest." + at + ".name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), with a maximum length of 64."
			}
			if params, ok := decl["parameters"]; ok {
				if msg := geminiCheckSchema(params, at+".parameters"); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

// geminiCheckPart checks one part and returns a 400 message or "", and the
// kind of data the part holds.
func geminiCheckPart(x any, at string) (msg, kind string) {
	p, ok := x.(map[string]any)
	if !ok {
		return "Invalid JSON payload received. " + at + " is not an object.", ""
	}
	n := 0
	for _, k := range []string{"text", "inlineData", "fileData", "functionCall", "functionResponse"} {
		if _, ok := p[k]; ok {
			n++
			kind = k
		}
	}
	_, signed := p["thoughtSignature"]
	switch {
	case n == 0 && signed:
		return "", "text"
	case n == 0:
		return "* GenerateContentRequest." + at + ".data: required oneof field 'data' must have one initialized field", ""
	case n > 1:
		return "Invalid JSON payload received. Oneof field 'data' is already set at '" + at + "'.", ""
	}
	switch kind {
	case "text":
		if s, _ := p["text"].(string); s == "" && !signed {
			return "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.", kind
		}
	case "inlineData":
		d, _ := p["inlineData"].(map[string]any)
		mime, _ := d["mimeType"].(string)
		data, _ := d["data"].(string)
		if mime == "" || data == "" {
			return "* GenerateContentRequest." + at + ".inline_data: mime_type and data must be set", kind
		}
		if _, err := base64.StdEncoding.DecodeString(data); err != nil {
			return "Invalid value at '" + at + ".inline_data.data' (TYPE_BYTES), Base64 decoding failed", kind
		}
	case "fileData":
		d, _ := p["fileData"].(map[string]any)
		if uri, _ := d["fileUri"].(string); uri == "" {
			return "* GenerateContentRequest." + at + ".file_data.file_uri: file_uri must be set", kind
		}
	case "functionCall":
		d, _ := p["functionCall"].(map[string]any)
		if name, _ := d["name"].(string); name == "" {
			return "* GenerateContentRequest." + at + ".function_call.name: name must not be empty", kind
		}
		if args, ok := d["args"]; ok {
			if _, ok := args.(map[string]any); !ok {
				return "Invalid JSON payload received. " + at + ".function_call.args: Starting an object on a scalar field", kind
			}
		}
	case "functionResponse":
		d, _ := p["functionResponse"].(map[string]any)
		if name, _ := d["name"].(string); name == "" {
			return "* GenerateContentRequest." + at + ".function_response.name: name must not be empty", kind
		}
		if _, ok := d["response"].(map[string]any); !ok {
			return "* GenerateContentRequest." + at + ".function_response.response: response must be an object", kind
		}
	}
	return "", kind
}

// geminiCheckSchema rejects the members Google's Schema object does not
// have, at any depth, as the real API's JSON parser does.
func geminiCheckSchema(x any, at string) string {
	s, ok := x.(map[string]any)
	if !ok {
		return "Invalid JSON payload received. '" + at + "' is not an object."
	}
	for k, v := range s {
		if !geminiSchemaKey(k) {
			return "Invalid JSON payload received. Unknown name \"" + k + "\" at '" + at + "': Cannot find field."
		}
		switch k {
		case "properties":
			props, _ := v.(map[string]any)
			for name, sub := range props {
				if msg := geminiCheckSchema(sub, at+".properties["+name+"].value"); msg != "" {
					return msg
				}
			}
		case "items":
			if msg := geminiCheckSchema(v, at+".items"); msg != "" {
				return msg
			}
		case "anyOf":
			list, _ := v.([]any)
			for i, sub := range list {
				if msg := geminiCheckSchema(sub, at+".any_of["+strconv.Itoa(i)+"]"); msg != "" {
					return msg
				}
			}
		}
	}
	if t, _ := s["type"].(string); strings.EqualFold(t, "object") {
		if props, ok := s["properties"].(map[string]any); ok && len(props) == 0 {
			return "* GenerateContentRequest." + at + ".properties: should be non-empty for OBJECT type"
		}
	}
	return ""
}

// geminiStatus is the status name Google's error body gives an HTTP status.
func geminiStatus(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ABORTED"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusInternalServerError:
		return "INTERNAL"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}

func geminiNotFound(model, method string) string {
	return "models/" + model + " is not found for API version v1beta, or is not supported for " + method +
		". Call ListModels to see the list of available models and their supported methods."
}

// geminiDefaultMessage is the message Google sends with status.
func geminiDefaultMessage(status int, model string) string {
	switch status {
	case http.StatusBadRequest:
		return "Request contains an invalid argument."
	case http.StatusUnauthorized:
		return "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	case http.StatusForbidden:
		return "The caller does not have permission"
	case http.StatusNotFound:
		return geminiNotFound(model, "generateContent")
	case http.StatusTooManyRequests:
		return "You exceeded your current quota, please check your plan and billing details."
	case http.StatusInternalServerError:
		return "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	case http.StatusServiceUnavailable:
		return "The model is overloaded. Please try again later."
	case http.StatusGatewayTimeout:
		return "The request timed out. Please try again."
	}
	return statusText(status) + "."
}

type geminiErrorBody struct {
	Error geminiErrorDetail `json:"error"`
}

type geminiErrorDetail struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []any  `json:"details,omitempty"`
}

// geminiUnavailable is the body of a 503 with msg, as a stream sends it.
func geminiUnavailable(msg string) string {
	data, _ := json.Marshal(geminiErrorBody{Error: geminiErrorDetail{Code: 503, Message: msg, Status: "UNAVAILABLE"}})
	return string(data)
}

// geminiWriteError answers with Google's error body.
func geminiWriteError(w http.ResponseWriter, status int, msg string, details []any) {
	writeJSON(w, status, geminiErrorBody{Error: geminiErrorDetail{Code: status, Message: msg, Status: geminiStatus(status), Details: details}})
}

// geminiUsage is the reply's token counts: the prompt, the answer and the
// thinking. Without Reply.Usage they are estimated at four bytes a token.
func geminiUsage(req *ChatRequest, reply *Reply) (prompt, candidates, thoughts int) {
	if reply.Usage != nil {
		return reply.Usage.PromptTokens, reply.Usage.CompletionTokens, reply.Usage.ReasoningTokens
	}
	n := 0
	count := func(c map[string]any) {
		n += 4
		parts, _ := c["parts"].([]any)
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				if t, ok := pm["text"].(string); ok {
					n += len(t)
				}
			}
		}
	}
	for _, m := range req.Messages {
		count(m)
	}
	if si, ok := req.Raw["systemInstruction"].(map[string]any); ok {
		count(si)
	}
	out := len(reply.Text)
	for _, tc := range reply.ToolCalls {
		out += len(tc.Name) + len(tc.Arguments)
	}
	return (n + 3) / 4, (out + 3) / 4, (len(reply.Reasoning) + 3) / 4
}

// geminiAppendUsage appends a usageMetadata object.
func geminiAppendUsage(b []byte, prompt, candidates, thoughts int) []byte {
	b = append(b, `{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"candidatesTokenCount":`...)
	b = strconv.AppendInt(b, int64(candidates), 10)
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(prompt+candidates+thoughts), 10)
	if thoughts > 0 {
		b = append(b, `,"thoughtsTokenCount":`...)
		b = strconv.AppendInt(b, int64(thoughts), 10)
	}
	return append(b, '}')
}

// geminiAppendArgs appends a tool call's arguments as the args object:
// JSON as it is (compacted), nothing as {}, anything else as a string.
func geminiAppendArgs(b []byte, args string) []byte {
	if strings.TrimSpace(args) == "" {
		return append(b, "{}"...)
	}
	if json.Valid([]byte(args)) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(args)) == nil {
			return append(b, buf.Bytes()...)
		}
	}
	return appendJSONString(b, args)
}

func geminiAppendThought(b []byte, text, signature string) []byte {
	b = append(b, `{"text":`...)
	b = appendJSONString(b, text)
	b = append(b, `,"thought":true`...)
	if signature != "" {
		b = append(b, `,"thoughtSignature":`...)
		b = appendJSONString(b, signature)
	}
	return append(b, '}')
}

func geminiAppendText(b []byte, text string) []byte {
	b = append(b, `{"text":`...)
	b = appendJSONString(b, text)
	return append(b, '}')
}

// geminiAppendCalls appends the reply's function call parts, the first
// with the signature.
func geminiAppendCalls(b []byte, calls []ToolCall, signature string) []byte {
	for i := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"functionCall":{"name":`...)
		b = appendJSONString(b, calls[i].Name)
		b = append(b, `,"args":`...)
		b = geminiAppendArgs(b, calls[i].Arguments)
		b = append(b, '}')
		if i == 0 {
			b = append(b, `,"thoughtSignature":`...)
			b = appendJSONString(b, signature)
		}
		b = append(b, '}')
	}
	return b
}

// geminiStreamer writes the chunks of one streamed reply.
type geminiStreamer struct {
	emitter
	// open starts a chunk up to its parts; more ends a chunk that is not the
	// last, last ends the final one.
	open, more, last []byte
}

func newGeminiStreamer(e emitter, req *ChatRequest, reply *Reply, id string) *geminiStreamer {
	s := &geminiStreamer{emitter: e}
	prompt, candidates, thoughts := geminiUsage(req, reply)
	s.open = []byte(`data: {"candidates":[{"content":{"parts":[`)
	trailer := make([]byte, 0, 96)
	trailer = append(trailer, `,"modelVersion":`...)
	trailer = appendJSONString(trailer, req.Model)
	trailer = append(trailer, `,"responseId":`...)
	trailer = appendJSONString(trailer, id)
	trailer = append(trailer, "}\n\n"...)

	s.more = append(s.more, `],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":`...)
	s.more = strconv.AppendInt(s.more, int64(prompt), 10)
	s.more = append(s.more, `,"totalTokenCount":`...)
	s.more = strconv.AppendInt(s.more, int64(prompt), 10)
	s.more = append(s.more, '}')
	s.more = append(s.more, trailer...)

	s.last = append(s.last, `],"role":"model"},"finishReason":`...)
	s.last = appendJSONString(s.last, reply.FinishReason)
	s.last = append(s.last, `,"index":0}],"usageMetadata":`...)
	s.last = geminiAppendUsage(s.last, prompt, candidates, thoughts)
	s.last = append(s.last, trailer...)
	return s
}

// end ends the chunk in buf, the final one or not, and emits it. It reports
// false once the client has gone.
func (s *geminiStreamer) end(final bool) bool {
	if final {
		s.buf = append(s.buf, s.last...)
	} else {
		s.buf = append(s.buf, s.more...)
	}
	return s.emit()
}

// geminiStreamReply answers streamGenerateContent?alt=sse.
func geminiStreamReply(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string) {
	s := newGeminiStreamer(startStream(w, r, "text/event-stream", reply), req, reply, id)

	thoughts := reasoningPieces(reply.Reasoning)
	pieces := SplitText(reply.Text, reply.Chunks)
	calls := 0
	if len(reply.ToolCalls) > 0 {
		calls = 1
	}
	total := len(thoughts) + len(pieces) + calls
	n := 0 // chunks built so far
	for i, t := range thoughts {
		n++
		sig := ""
		if i == len(thoughts)-1 {
			sig = reply.ReasoningSignature
		}
		s.buf = geminiAppendThought(append(s.buf[:0], s.open...), t, sig)
		if !s.end(n == total) {
			return
		}
	}
	half := len(pieces) / 2
	for i := 0; i <= len(pieces); i++ {
		if i == half && s.breaks(reply, "data: {\"candidates\":[{\n\n", "data: "+geminiUnavailable(reply.StreamError)+"\n\n") {
			return
		}
		if i < len(pieces) {
			n++
			s.buf = geminiAppendText(append(s.buf[:0], s.open...), pieces[i])
			if !s.end(n == total) {
				return
			}
		}
	}
	if calls > 0 {
		s.buf = geminiAppendCalls(append(s.buf[:0], s.open...), reply.ToolCalls, reply.ReasoningSignature)
		s.end(true)
		return
	}
	if total == 0 {
		s.buf = append(append(s.buf[:0], s.open...), `{"text":""}`...)
		s.end(true)
	}
}

// geminiCompleteReply answers generateContent with one response.
func geminiCompleteReply(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string) {
	if !wait(r.Context(), reply.Delay) {
		return
	}
	if reply.StreamError != "" {
		geminiWriteError(w, http.StatusServiceUnavailable, reply.StreamError, nil)
		return
	}
	if reply.Malformed {
		writeMalformed(w, `{"candidates":[{`)
		return
	}
	b := make([]byte, 0, 256+len(reply.Text)+len(reply.Reasoning))
	b = append(b, `{"candidates":[{"content":{"parts":[`...)
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	if reply.Reasoning != "" {
		sep()
		b = geminiAppendThought(b, reply.Reasoning, reply.ReasoningSignature)
	}
	if reply.Text != "" || (reply.Reasoning == "" && len(reply.ToolCalls) == 0) {
		sep()
		b = geminiAppendText(b, reply.Text)
	}
	if len(reply.ToolCalls) > 0 {
		sep()
		b = geminiAppendCalls(b, reply.ToolCalls, reply.ReasoningSignature)
	}
	b = append(b, `],"role":"model"},"finishReason":`...)
	b = appendJSONString(b, reply.FinishReason)
	b = append(b, `,"index":0}],"usageMetadata":`...)
	prompt, candidates, thoughts := geminiUsage(req, reply)
	b = geminiAppendUsage(b, prompt, candidates, thoughts)
	b = append(b, `,"modelVersion":`...)
	b = appendJSONString(b, req.Model)
	b = append(b, `,"responseId":`...)
	b = appendJSONString(b, id)
	b = append(b, "}\n"...)
	writeReply(w, "application/json; charset=UTF-8", b, reply)
}

// geminiTaskType reports whether t is a task type batchEmbedContents
// accepts.
func geminiTaskType(t string) bool {
	switch t {
	case "", "TASK_TYPE_UNSPECIFIED", "RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY",
		"CLASSIFICATION", "CLUSTERING", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CODE_RETRIEVAL_QUERY":
		return true
	}
	return false
}

// geminiEmbedBody is the body of batchEmbedContents, with the text of each
// request (its parts joined).
type geminiEmbedBody struct {
	Requests []struct {
		Model   string `json:"model"`
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
		TaskType             string `json:"taskType"`
		OutputDimensionality int    `json:"outputDimensionality"`
	} `json:"requests"`
	texts []string
}

// decodeEmbedBody decodes a batchEmbedContents body. The last body is
// remembered: benchmarks send the same batch over and over, and decoding
// it would be half of the server's work.
func (f *Gemini) decodeEmbedBody(data []byte) (*geminiEmbedBody, error) {
	f.mu.Lock()
	last, lastData := f.lastEmbed, f.lastEmbedData
	f.mu.Unlock()
	if last != nil && bytes.Equal(data, lastData) {
		return last, nil
	}
	body := &geminiEmbedBody{}
	if err := json.Unmarshal(data, body); err != nil {
		return nil, err
	}
	body.texts = make([]string, len(body.Requests))
	for i := range body.Requests {
		parts := body.Requests[i].Content.Parts
		if len(parts) == 1 {
			body.texts[i] = parts[0].Text
			continue
		}
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		body.texts[i] = sb.String()
	}
	f.mu.Lock()
	f.lastEmbed, f.lastEmbedData = body, data
	f.mu.Unlock()
	return body, nil
}

// geminiReplyError answers with the error a Reply asks for, a 429's
// delay both in Retry-After and as Google's RetryInfo.
func geminiReplyError(w http.ResponseWriter, reply *Reply, model string) {
	retryAfter(w, reply)
	msg := cmp.Or(reply.ErrorMessage, geminiDefaultMessage(reply.Status, model))
	var details []any
	if reply.Status == http.StatusTooManyRequests && reply.RetryAfter != "" {
		if n, err := strconv.Atoi(reply.RetryAfter); err == nil {
			details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.Itoa(n) + "s"}}
		}
	}
	geminiWriteError(w, reply.Status, msg, details)
}

func (f *Gemini) embed(w http.ResponseWriter, r *http.Request, model, key string) {
	var body *geminiEmbedBody
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err == nil {
		body, err = f.decodeEmbedBody(data)
	}
	if err == nil {
		f.embeds.add(body.texts)
	}
	if !f.authorized(w, key) {
		return
	}
	if err != nil {
		geminiWriteError(w, http.StatusBadRequest, "Invalid JSON payload received. Unexpected token.", nil)
		return
	}
	if !f.knows(model, true) {
		geminiWriteError(w, http.StatusNotFound, geminiNotFound(model, "batchEmbedContents"), nil)
		return
	}
	if f.RespondEmbed != nil {
		if reply := f.RespondEmbed(body.texts); reply.Status >= 400 {
			geminiReplyError(w, &reply, model)
			return
		}
	}
	switch n := len(body.Requests); {
	case n == 0:
		geminiWriteError(w, http.StatusBadRequest, "* BatchEmbedContentsRequest.requests: requests is not specified", nil)
		return
	case n > geminiMaxBatch:
		geminiWriteError(w, http.StatusBadRequest, "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch", nil)
		return
	}
	dims := f.EmbedDims
	if dims <= 0 {
		dims = 768
	}
	out := make([]byte, 0, 32+len(body.Requests)*(24+dims*16))
	out = append(out, `{"embeddings":[`...)
	for i := range body.Requests {
		q := &body.Requests[i]
		at := "* BatchEmbedContentsRequest.requests[" + strconv.Itoa(i) + "]"
		switch {
		case q.Model != "models/"+model:
			geminiWriteError(w, http.StatusBadRequest, at+".model: unexpected model name format; it must be models/"+model+" as in the URL", nil)
			return
		case len(q.Content.Parts) == 0:
			geminiWriteError(w, http.StatusBadRequest, at+".content.parts: contents.parts must not be empty.", nil)
			return
		case !geminiTaskType(q.TaskType):
			geminiWriteError(w, http.StatusBadRequest, "Invalid value at 'requests["+strconv.Itoa(i)+"].task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), \""+q.TaskType+"\"", nil)
			return
		case q.OutputDimensionality < 0:
			geminiWriteError(w, http.StatusBadRequest, at+".output_dimensionality: must not be negative", nil)
			return
		}
		n := dims
		if q.OutputDimensionality > 0 {
			n = q.OutputDimensionality
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"values":`...)
		out = append(out, f.vectors.get(vectorKey{text: body.texts[i], dims: n}, geminiAppendVector)...)
		out = append(out, '}')
	}
	out = append(out, "]}\n"...)
	writeBody(w, http.StatusOK, "application/json; charset=UTF-8", out)
}

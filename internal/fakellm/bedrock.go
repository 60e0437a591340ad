package fakellm

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// This file is the fake of Amazon Bedrock's runtime API (the "bedrock"
// client type): POST /model/{modelId}/converse answered with Converse's
// JSON, /model/{modelId}/converse-stream answered with AWS event-stream
// binary frames (prelude, headers, payload, CRC32s), and
// /model/{modelId}/invoke for Titan and Cohere embeddings and Cohere or
// Amazon rerank models. Every request must be signed with SigV4: an
// "Authorization: AWS4-HMAC-SHA256 Credential=.../<date>/<region>/bedrock/
// aws4_request, SignedHeaders=..., Signature=..." header and X-Amz-Date;
// errors come as Bedrock sends them (the status, an X-Amzn-ErrorType
// header and {"message": ...}).

// BedrockText is the answer when Bedrock.Respond is nil.
const BedrockText = "Hello from the fake Bedrock server."

// BedrockSignature is the signature of reasoning when
// Reply.ReasoningSignature is empty.
const BedrockSignature = "ZmFrZWxsbS1iZWRyb2NrLXNpZ25hdHVyZQ=="

// Bedrock is a fake Bedrock runtime. The zero value is ready to use; it
// must not be copied after first use. Respond may be called from several
// goroutines at once.
//
// Like the real service it rejects, with a 400 ValidationException, a
// conversation Converse refuses: no messages, a first message that is not
// the user's, roles that do not alternate, empty or blank text blocks, a
// toolUse without its toolResult in the next message (or a toolResult
// that answers no toolUse of the message before).
type Bedrock struct {
	// AccessKeyID, when set, must be the access key of the credential
	// scope; other requests get a 403 UnrecognizedClientException.
	AccessKeyID string
	// Region, when set, must be the region of the credential scope.
	Region string
	// SecretAccessKey, when set, is used to check each request's
	// signature itself; a request signed otherwise (another key, or a body
	// changed after signing) gets a 403 InvalidSignatureException.
	SecretAccessKey string
	// SessionToken, when set, must come in X-Amz-Security-Token.
	SessionToken string
	// Respond decides each chat reply; nil answers BedrockText.
	Respond func(*ChatRequest) Reply
	// RespondEmbed, when set, can make an InvokeModel request fail: of the
	// Reply it returns, Status, ErrorMessage and RetryAfter are used.
	RespondEmbed func(*EmbedCall) Reply
	// EmbedDims is the length of the vectors (default DefaultEmbedDims).
	EmbedDims int

	requests recorder[ChatRequest]
	invokes  recorder[EmbedCall]
}

// Handler serves the runtime API.
func (f *Bedrock) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// Requests returns a copy of the Converse and ConverseStream requests
// received so far, in order. Model is the model of the path; Messages,
// Tools (toolConfig.tools), Temperature and TopP (inferenceConfig) come
// from the body; ReasoningEffort is
// additionalModelRequestFields.output_config.effort or .reasoning_effort;
// Authorization is the SigV4 header.
func (f *Bedrock) Requests() []ChatRequest { return f.requests.all() }

// InvokeRequests returns a copy of the InvokeModel requests received so
// far: Model, Inputs (texts, inputText or documents), Raw and Header.
func (f *Bedrock) InvokeRequests() []EmbedCall { return f.invokes.all() }

// StartBedrock serves f on a loopback port until the test ends and returns
// its base URL, the endpoint a client overrides Bedrock's with.
func StartBedrock(t testing.TB, f *Bedrock) string {
	t.Helper()
	return start(t, f.Handler(), "")
}

// bedrockErrorType is the exception Bedrock answers status with.
func bedrockErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "ValidationException"
	case http.StatusUnauthorized:
		return "UnrecognizedClientException"
	case http.StatusForbidden:
		return "AccessDeniedException"
	case http.StatusNotFound:
		return "ResourceNotFoundException"
	case http.StatusRequestTimeout:
		return "ModelTimeoutException"
	case http.StatusFailedDependency:
		return "ModelErrorException"
	case http.StatusTooManyRequests:
		return "ThrottlingException"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailableException"
	}
	return "InternalServerException"
}

func bedrockErrorMessage(status int, model string) string {
	switch status {
	case http.StatusUnauthorized:
		return "The security token included in the request is invalid."
	case http.StatusForbidden:
		return "You don't have access to the model with the specified model ID."
	case http.StatusNotFound:
		return "The provided model identifier is invalid: " + model
	case http.StatusTooManyRequests:
		return "Too many requests, please wait before trying again."
	case http.StatusServiceUnavailable:
		return "Bedrock is unable to process your request."
	}
	return statusText(status)
}

// writeBedrockError answers as Bedrock does. The real service reports bad
// credentials with a 403, whatever status a test asks for as 401.
func writeBedrockError(w http.ResponseWriter, status int, typ, msg string) {
	if typ == "UnrecognizedClientException" || typ == "InvalidSignatureException" {
		status = http.StatusForbidden
	}
	w.Header().Set("X-Amzn-ErrorType", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.Header().Set("X-Amzn-RequestId", "fake-request-id")
	body := appendJSONString([]byte(`{"message":`), msg)
	writeBody(w, status, "application/json", append(body, "}\n"...))
}

// signed checks the SigV4 headers of r and answers 403 when they are
// missing or not for this service, region and key.
func (f *Bedrock) signed(w http.ResponseWriter, r *http.Request, body []byte) bool {
	auth := r.Header.Get("Authorization")
	fail := func(typ, msg string) bool {
		writeBedrockError(w, http.StatusForbidden, typ, msg)
		return false
	}
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return fail("MissingAuthenticationTokenException", "Missing Authentication Token")
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		fields[k] = v
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[3] != "bedrock" || scope[4] != "aws4_request" || fields["SignedHeaders"] == "" || len(fields["Signature"]) != 64 {
		return fail("IncompleteSignatureException", "Authorization header requires Credential, SignedHeaders and Signature for service bedrock: "+auth)
	}
	date := r.Header.Get("X-Amz-Date")
	if _, err := time.Parse("20060102T150405Z", date); err != nil || !strings.HasPrefix(date, scope[1]) {
		return fail("IncompleteSignatureException", "X-Amz-Date is missing or does not match the credential scope")
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	if !slices.Contains(signed, "host") || !slices.Contains(signed, "x-amz-date") {
		return fail("IncompleteSignatureException", "SignedHeaders must include host and x-amz-date")
	}
	if f.AccessKeyID != "" && scope[0] != f.AccessKeyID {
		return fail("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	if f.Region != "" && scope[2] != f.Region {
		return fail("InvalidSignatureException", "Credential should be scoped to a valid region, not '"+scope[2]+"'.")
	}
	if f.SessionToken != "" && r.Header.Get("X-Amz-Security-Token") != f.SessionToken {
		return fail("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	if f.SecretAccessKey != "" && !f.signatureMatches(r, body, scope, signed, fields["Signature"], date) {
		return fail("InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.")
	}
	return true
}

// signatureMatches signs again what the client says it signed (the
// method, path, query, the headers it names and the body) with the
// secret key, and compares the signatures.
func (f *Bedrock) signatureMatches(r *http.Request, body []byte, scope, signedHeaders []string, signature, date string) bool {
	at, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		return false
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	again, err := http.NewRequest(r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return false
	}
	again.Host = r.Host
	for _, h := range signedHeaders {
		switch h {
		case "host":
		case "content-length":
			again.ContentLength = r.ContentLength
		default:
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	if !slices.Contains(signedHeaders, "content-length") {
		again.ContentLength = -1
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: scope[0], SecretAccessKey: f.SecretAccessKey, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), scope[3], scope[2], at); err != nil {
		return false
	}
	_, got, _ := strings.Cut(again.Header.Get("Authorization"), "Signature=")
	return got == signature
}

// readBedrockBody reads a request's body and decodes it as a JSON object
// (raw is nil when it is not one).
func readBedrockBody(r *http.Request) (data []byte, raw map[string]any, ok bool) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil || json.Unmarshal(data, &raw) != nil || raw == nil {
		return data, nil, false
	}
	return data, raw, true
}

func (f *Bedrock) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/model/")
	i := strings.LastIndexByte(rest, '/')
	if !ok || i <= 0 || r.Method != http.MethodPost {
		writeBedrockError(w, http.StatusNotFound, "UnknownOperationException", "Not Found")
		return
	}
	model, op := rest[:i], rest[i+1:]
	switch op {
	case "converse":
		f.converse(w, r, model, false)
	case "converse-stream":
		f.converse(w, r, model, true)
	case "invoke":
		f.invoke(w, r, model)
	default:
		writeBedrockError(w, http.StatusNotFound, "UnknownOperationException", "Not Found")
	}
}

func (f *Bedrock) converse(w http.ResponseWriter, r *http.Request, model string, stream bool) {
	data, raw, ok := readBedrockBody(r)
	req := ChatRequest{Model: model, Stream: stream, Raw: raw, Authorization: r.Header.Get("Authorization"), Header: r.Header.Clone()}
	req.fillBedrock()
	f.requests.add(req)
	if !f.signed(w, r, data) {
		return
	}
	if !ok {
		writeBedrockError(w, http.StatusBadRequest, "SerializationException", "The request body is not valid JSON.")
		return
	}
	if msg := checkConverse(raw); msg != "" {
		writeBedrockError(w, http.StatusBadRequest, "ValidationException", msg)
		return
	}
	reply := Reply{Text: BedrockText}
	if f.Respond != nil {
		reply = ask(f.Respond, req)
	}
	if reply.Status >= 400 {
		retryAfter(w, &reply)
		writeBedrockError(w, reply.Status, bedrockErrorType(reply.Status), cmp.Or(reply.ErrorMessage, bedrockErrorMessage(reply.Status, model)))
		return
	}
	reply.ToolCalls = withIDs(reply.ToolCalls, "tooluse_fake_")
	if reply.ReasoningSignature == "" {
		reply.ReasoningSignature = BedrockSignature
	}
	reply.FinishReason = endTurnStopReason(reply.FinishReason, len(reply.ToolCalls) > 0)
	if stream {
		streamBedrock(w, r, &req, &reply)
	} else {
		completeBedrock(w, r, &req, &reply)
	}
}

// fillBedrock copies the known fields of a Converse body into the
// request.
func (c *ChatRequest) fillBedrock() {
	raw := c.Raw
	c.Messages = objects(raw["messages"])
	if ic, ok := raw["inferenceConfig"].(map[string]any); ok {
		c.Temperature = optionalNumber(ic, "temperature")
		c.TopP = optionalNumber(ic, "topP")
	}
	if tc, ok := raw["toolConfig"].(map[string]any); ok {
		c.Tools = objects(tc["tools"])
	}
	if add, ok := raw["additionalModelRequestFields"].(map[string]any); ok {
		if oc, ok := add["output_config"].(map[string]any); ok {
			c.ReasoningEffort, _ = oc["effort"].(string)
		}
		if e, ok := add["reasoning_effort"].(string); ok {
			c.ReasoningEffort = e
		}
	}
}

// checkConverse returns the message of the ValidationException the real
// service would answer body with, or "".
func checkConverse(body map[string]any) string {
	list, ok := body["messages"].([]any)
	if !ok || len(list) == 0 {
		return "A conversation must start with a user message. Try again with a conversation that starts with a user message."
	}
	var uses []string // toolUse ids of the previous message
	prevRole := ""
	for i, raw := range list {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if role != "user" && role != "assistant" {
			return "1 validation error detected: Value at 'messages." + strconv.Itoa(i+1) + ".member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]"
		}
		if i == 0 && role != "user" {
			return "A conversation must start with a user message. Try again with a conversation that starts with a user message."
		}
		if role == prevRole {
			return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."
		}
		blocks := objects(m["content"])
		if len(blocks) == 0 {
			return "The content field in the Message object at messages." + strconv.Itoa(i) + " is empty. Add a ContentBlock object to the content field and try again."
		}
		answered := map[string]bool{}
		var mine []string
		for _, b := range blocks {
			if t, has := b["text"]; has {
				if s, _ := t.(string); strings.TrimSpace(s) == "" {
					return "The text field in the ContentBlock object at messages." + strconv.Itoa(i) + " is blank. Add text to the text field, and try again."
				}
			}
			if tu, ok := b["toolUse"].(map[string]any); ok {
				id, _ := tu["toolUseId"].(string)
				if _, isObj := tu["input"].(map[string]any); !isObj || id == "" {
					return "The toolUse block at messages." + strconv.Itoa(i) + " needs a toolUseId and an input object."
				}
				mine = append(mine, id)
			}
			if tr, ok := b["toolResult"].(map[string]any); ok {
				id, _ := tr["toolUseId"].(string)
				if !slices.Contains(uses, id) {
					return "The toolResult blocks at messages." + strconv.Itoa(i) + ".content contain a toolUseId " + strconv.Quote(id) + " that is not in the toolUse blocks of the previous turn."
				}
				answered[id] = true
			}
		}
		for _, id := range uses {
			if !answered[id] {
				return "Expected toolResult blocks at messages." + strconv.Itoa(i) + ".content for the following Ids: " + id
			}
		}
		uses, prevRole = mine, role
	}
	if len(uses) > 0 {
		return "Expected toolResult blocks after the toolUse blocks of the last message: " + strings.Join(uses, ", ")
	}
	return ""
}

// bedrockUsage is Converse's usage object.
func bedrockUsage(req *ChatRequest, reply *Reply) map[string]int {
	u := reply.Usage
	if u == nil {
		est := usageOf(req, reply)
		u = &est
	}
	return map[string]int{"inputTokens": u.PromptTokens, "outputTokens": u.CompletionTokens, "totalTokens": u.PromptTokens + u.CompletionTokens}
}

func completeBedrock(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply) {
	if !wait(r.Context(), reply.Delay) {
		return
	}
	if reply.StreamError != "" {
		writeBedrockError(w, http.StatusInternalServerError, "InternalServerException", reply.StreamError)
		return
	}
	var content []any
	if reply.Reasoning != "" {
		content = append(content, map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": reply.Reasoning, "signature": reply.ReasoningSignature}}})
	}
	if reply.Text != "" {
		content = append(content, map[string]any{"text": reply.Text})
	}
	for _, tc := range reply.ToolCalls {
		var input any = map[string]any{}
		if tc.Arguments != "" {
			_ = json.Unmarshal([]byte(tc.Arguments), &input)
		}
		content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": tc.ID, "name": tc.Name, "input": input}})
	}
	body := map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": reply.FinishReason,
		"usage":      bedrockUsage(req, reply),
		"metrics":    map[string]int{"latencyMs": 42},
	}
	if reply.Malformed {
		writeMalformed(w, `{"output":{"message":{"role":"assistant","content":[{"text":`)
		return
	}
	data, _ := json.Marshal(body)
	writeReply(w, "application/json", append(data, '\n'), reply)
}

// AppendEventStreamMessage appends one message of the AWS event-stream
// encoding: total length, headers length and their CRC32, the headers
// (each a name, type 7 for a string, a length and the value), the
// payload, and the CRC32 of everything before it.
func AppendEventStreamMessage(b []byte, headers [][2]string, payload []byte) []byte {
	var hb []byte
	for _, h := range headers {
		hb = append(hb, byte(len(h[0])))
		hb = append(hb, h[0]...)
		hb = append(hb, 7)
		hb = binary.BigEndian.AppendUint16(hb, uint16(len(h[1])))
		hb = append(hb, h[1]...)
	}
	start := len(b)
	total := 12 + len(hb) + len(payload) + 4
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b = binary.BigEndian.AppendUint32(b, uint32(len(hb)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:start+8]))
	b = append(b, hb...)
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// bedrockStream writes the event-stream frames of one reply.
type bedrockStream struct {
	emitter
}

// event sends one event frame of type typ with a JSON payload.
func (s *bedrockStream) event(typ string, payload []byte) bool {
	s.buf = AppendEventStreamMessage(s.buf[:0], [][2]string{{":event-type", typ}, {":content-type", "application/json"}, {":message-type", "event"}}, payload)
	return s.emit()
}

// exception sends an exception frame, which ends the stream.
func (s *bedrockStream) exception(typ, msg string) {
	payload := appendJSONString([]byte(`{"message":`), msg)
	payload = append(payload, '}')
	lower := strings.ToLower(typ[:1]) + typ[1:]
	s.buf = AppendEventStreamMessage(s.buf[:0], [][2]string{{":exception-type", lower}, {":content-type", "application/json"}, {":message-type", "exception"}}, payload)
	s.raw(string(s.buf))
}

func blockJSON(index int, field string, value []byte) []byte {
	b := []byte(`{"contentBlockIndex":`)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = append(b, value...)
	return append(b, `,"p":"abcdefgh"}`...)
}

// stopJSON is the payload of a contentBlockStop event.
func stopJSON(index int) []byte {
	b := strconv.AppendInt([]byte(`{"contentBlockIndex":`), int64(index), 10)
	return append(b, `,"p":"abcd"}`...)
}

func streamBedrock(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply) {
	s := &bedrockStream{startStream(w, r, "application/vnd.amazon.eventstream", reply)}
	s.preamble = true
	if !s.event("messageStart", []byte(`{"role":"assistant","p":"abcd"}`)) {
		return
	}
	s.preamble = false
	index := 0
	if reply.Reasoning != "" {
		for _, piece := range reasoningPieces(reply.Reasoning) {
			d := appendJSONString([]byte(`{"reasoningContent":{"text":`), piece)
			if !s.event("contentBlockDelta", blockJSON(index, "delta", append(d, "}}"...))) {
				return
			}
		}
		sig := appendJSONString([]byte(`{"reasoningContent":{"signature":`), reply.ReasoningSignature)
		if !s.event("contentBlockDelta", blockJSON(index, "delta", append(sig, "}}"...))) ||
			!s.event("contentBlockStop", stopJSON(index)) {
			return
		}
		index++
	}
	pieces := SplitText(reply.Text, reply.Chunks)
	half := len(pieces) / 2
	for i := 0; i <= len(pieces); i++ {
		if i == half {
			switch {
			case reply.Malformed:
				s.raw("\x00\x00\x00\x20garbage-that-is-not-a-frame....")
				return
			case reply.StreamError != "":
				s.exception("ModelStreamErrorException", reply.StreamError)
				return
			case reply.Truncate:
				return
			}
		}
		if i < len(pieces) {
			if !s.event("contentBlockDelta", blockJSON(index, "delta", append(appendJSONString([]byte(`{"text":`), pieces[i]), '}'))) {
				return
			}
		}
	}
	if len(pieces) > 0 {
		if !s.event("contentBlockStop", stopJSON(index)) {
			return
		}
		index++
	}
	for _, tc := range reply.ToolCalls {
		start := appendJSONString([]byte(`{"toolUse":{"toolUseId":`), tc.ID)
		start = appendJSONString(append(start, `,"name":`...), tc.Name)
		if !s.event("contentBlockStart", blockJSON(index, "start", append(start, "}}"...))) {
			return
		}
		for _, piece := range argumentPieces(tc.Arguments) {
			d := appendJSONString([]byte(`{"toolUse":{"input":`), piece)
			if !s.event("contentBlockDelta", blockJSON(index, "delta", append(d, "}}"...))) {
				return
			}
		}
		if !s.event("contentBlockStop", stopJSON(index)) {
			return
		}
		index++
	}
	stop := appendJSONString([]byte(`{"stopReason":`), reply.FinishReason)
	if !s.event("messageStop", append(stop, '}')) {
		return
	}
	meta, _ := json.Marshal(map[string]any{"usage": bedrockUsage(req, reply), "metrics": map[string]int{"latencyMs": 42}})
	s.event("metadata", meta)
}

// invoke serves InvokeModel for embedding and rerank models.
func (f *Bedrock) invoke(w http.ResponseWriter, r *http.Request, model string) {
	data, raw, ok := readBedrockBody(r)
	call := EmbedCall{Model: model, Raw: raw, Header: r.Header.Clone()}
	switch {
	case strings.Contains(model, "rerank"):
		call.Inputs, _ = stringList(raw["documents"])
	case strings.Contains(model, "cohere.embed"):
		call.Inputs, _ = stringList(raw["texts"])
	default:
		if s, isString := raw["inputText"].(string); isString {
			call.Inputs = []string{s}
		}
	}
	f.invokes.add(call)
	if !f.signed(w, r, data) {
		return
	}
	if !ok {
		writeBedrockError(w, http.StatusBadRequest, "ValidationException", "Malformed input request, please reformat your input and try again.")
		return
	}
	if f.RespondEmbed != nil {
		if reply := ask(f.RespondEmbed, call); reply.Status >= 400 {
			retryAfter(w, &reply)
			writeBedrockError(w, reply.Status, bedrockErrorType(reply.Status), cmp.Or(reply.ErrorMessage, bedrockErrorMessage(reply.Status, model)))
			return
		}
	}
	dims := cmp.Or(f.EmbedDims, DefaultEmbedDims)
	switch {
	case strings.Contains(model, "rerank"):
		query, _ := raw["query"].(string)
		if query == "" || len(call.Inputs) == 0 {
			writeBedrockError(w, http.StatusBadRequest, "ValidationException", "Malformed input request: query and documents are required")
			return
		}
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		q := FakeVector(query, dims)
		results := make([]result, len(call.Inputs))
		for i, d := range call.Inputs {
			results[i] = result{i, (dot(q, FakeVector(d, dims)) + 1) / 2}
		}
		sort.SliceStable(results, func(a, b int) bool { return results[a].Score > results[b].Score })
		if n := positiveInt(raw["top_n"]); n > 0 && n < len(results) {
			results = results[:n]
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "fake-rerank", "results": results})
	case strings.Contains(model, "cohere.embed"):
		if len(call.Inputs) == 0 {
			writeBedrockError(w, http.StatusBadRequest, "ValidationException", "Malformed input request: #: required key [texts] not found")
			return
		}
		if n := positiveInt(raw["output_dimension"]); n > 0 {
			dims = n
		}
		var b bytes.Buffer
		b.WriteString(`{"id":"fake-embed","response_type":"embeddings_floats","embeddings":[`)
		for i, text := range call.Inputs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(AppendVector(nil, FakeVector(text, dims)))
		}
		b.WriteString("]}\n")
		writeBody(w, http.StatusOK, "application/json", b.Bytes())
	default:
		if len(call.Inputs) != 1 {
			writeBedrockError(w, http.StatusBadRequest, "ValidationException", "Malformed input request: #: required key [inputText] not found")
			return
		}
		if n := positiveInt(raw["dimensions"]); n > 0 {
			dims = n
		}
		b := append([]byte(`{"embedding":`), AppendVector(nil, FakeVector(call.Inputs[0], dims))...)
		b = append(b, `,"inputTextTokenCount":`...)
		b = strconv.AppendInt(b, int64((len(call.Inputs[0])+3)/4), 10)
		writeBody(w, http.StatusOK, "application/json", append(b, "}\n"...))
	}
}

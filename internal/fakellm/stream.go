package fakellm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// streamer writes the chunks of one streamed chat completion.
type streamer struct {
	emitter
	// head is `data: {"id":...,"choices":[{"index":0,"delta":{` and tail
	// closes a choice chunk whose finish_reason is null.
	head, tail []byte
	// envelope is `data: {"id":...,"model":...,` for the usage chunk.
	envelope []byte
	roleSent bool
}

func newStreamer(e emitter, req *ChatRequest, id string) *streamer {
	s := &streamer{emitter: e}
	env := make([]byte, 0, 160)
	env = append(env, `data: {"id":"`...)
	env = append(env, id...)
	env = append(env, `","object":"chat.completion.chunk","created":`...)
	env = strconv.AppendInt(env, time.Now().Unix(), 10)
	env = append(env, `,"model":`...)
	env = appendJSONString(env, req.Model)
	env = append(env, `,"system_fingerprint":"fp_fakellm",`...)
	s.envelope = env
	s.head = append(append([]byte(nil), env...), `"choices":[{"index":0,"delta":{`...)
	s.tail = []byte(`},"logprobs":null,"finish_reason":null}]`)
	if req.IncludeUsage {
		s.tail = append(s.tail, `,"usage":null`...)
	}
	s.tail = append(s.tail, "}\n\n"...)
	return s
}

// begin starts a choice chunk whose delta carries the role if it is the
// first delta of the reply.
func (s *streamer) begin() {
	s.buf = append(s.buf[:0], s.head...)
	if !s.roleSent {
		s.roleSent = true
		s.buf = append(s.buf, `"role":"assistant",`...)
	}
}

func (s *streamer) end() bool {
	s.buf = append(s.buf, s.tail...)
	return s.emit()
}

func (s *streamer) content(text string) bool {
	s.begin()
	s.buf = append(s.buf, `"content":`...)
	s.buf = appendJSONString(s.buf, text)
	return s.end()
}

func (s *streamer) reasoning(text string) bool {
	s.begin()
	s.buf = append(s.buf, `"content":null,"reasoning_content":`...)
	s.buf = appendJSONString(s.buf, text)
	return s.end()
}

func (s *streamer) toolHeader(index int, tc *ToolCall) bool {
	s.begin()
	s.buf = append(s.buf, `"content":null,"tool_calls":[{"index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(index), 10)
	s.buf = append(s.buf, `,"id":`...)
	s.buf = appendJSONString(s.buf, tc.ID)
	s.buf = append(s.buf, `,"type":"function","function":{"name":`...)
	s.buf = appendJSONString(s.buf, tc.Name)
	s.buf = append(s.buf, `,"arguments":""}}]`...)
	return s.end()
}

func (s *streamer) toolArguments(index int, args string) bool {
	s.begin()
	s.buf = append(s.buf, `"tool_calls":[{"index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(index), 10)
	s.buf = append(s.buf, `,"function":{"arguments":`...)
	s.buf = appendJSONString(s.buf, args)
	s.buf = append(s.buf, `}}]`...)
	return s.end()
}

func (s *streamer) finish(reason string, includeUsage bool) bool {
	s.buf = append(s.buf[:0], s.head...)
	s.buf = append(s.buf, `},"logprobs":null,"finish_reason":`...)
	s.buf = appendJSONString(s.buf, reason)
	s.buf = append(s.buf, "}]"...)
	if includeUsage {
		s.buf = append(s.buf, `,"usage":null`...)
	}
	s.buf = append(s.buf, "}\n\n"...)
	return s.emit()
}

func (s *streamer) usage(u Usage) bool {
	s.buf = append(s.buf[:0], s.envelope...)
	s.buf = append(s.buf, `"choices":[],"usage":{"prompt_tokens":`...)
	s.buf = strconv.AppendInt(s.buf, int64(u.PromptTokens), 10)
	s.buf = append(s.buf, `,"completion_tokens":`...)
	s.buf = strconv.AppendInt(s.buf, int64(u.CompletionTokens), 10)
	s.buf = append(s.buf, `,"total_tokens":`...)
	s.buf = strconv.AppendInt(s.buf, int64(u.PromptTokens+u.CompletionTokens), 10)
	if u.CachedTokens > 0 {
		s.buf = append(s.buf, `,"prompt_tokens_details":{"cached_tokens":`...)
		s.buf = strconv.AppendInt(s.buf, int64(u.CachedTokens), 10)
		s.buf = append(s.buf, '}')
	}
	if u.ReasoningTokens > 0 {
		s.buf = append(s.buf, `,"completion_tokens_details":{"reasoning_tokens":`...)
		s.buf = strconv.AppendInt(s.buf, int64(u.ReasoningTokens), 10)
		s.buf = append(s.buf, '}')
	}
	s.buf = append(s.buf, "}}\n\n"...)
	return s.emit()
}

// streamReply answers a streamed request as server-sent events.
func streamReply(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string) {
	w.Header().Set("Connection", "keep-alive")
	s := newStreamer(startStream(w, r, "text/event-stream", reply), req, id)

	for _, piece := range reasoningPieces(reply.Reasoning) {
		if !s.reasoning(piece) {
			return
		}
	}
	pieces := SplitText(reply.Text, reply.Chunks)
	half := len(pieces) / 2
	for i := 0; i <= len(pieces); i++ {
		if i == half && s.breaks(reply, "data: {\"choices\":[{\n\n", "data: "+errorJSON(reply.StreamError)+"\n\n") {
			return
		}
		if i < len(pieces) && !s.content(pieces[i]) {
			return
		}
	}

	// Interleave the calls: all headers, then the argument pieces of each
	// call in turn.
	args := make([][]string, len(reply.ToolCalls))
	longest := 0
	for i := range reply.ToolCalls {
		a := reply.ToolCalls[i].Arguments
		args[i] = argumentPieces(a)
		longest = max(longest, len(args[i]))
		if !s.toolHeader(i, &reply.ToolCalls[i]) {
			return
		}
	}
	for step := 0; step < longest; step++ {
		for i := range args {
			if step < len(args[i]) && !s.toolArguments(i, args[i][step]) {
				return
			}
		}
	}
	if !s.roleSent {
		s.begin()
		s.buf = append(s.buf, `"content":""`...)
		if !s.end() {
			return
		}
	}
	if !s.finish(reply.FinishReason, req.IncludeUsage) {
		return
	}
	if req.IncludeUsage && !s.usage(usageOf(req, reply)) {
		return
	}
	s.raw("data: [DONE]\n\n")
}

// completeReply answers a request without stream as one chat.completion.
func completeReply(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string) {
	if !wait(r.Context(), reply.Delay) {
		return
	}
	if reply.StreamError != "" {
		writeError(w, http.StatusInternalServerError, reply.StreamError, "server_error", "")
		return
	}
	if reply.Malformed {
		writeMalformed(w, `{"choices":[{`)
		return
	}
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type message struct {
		Role             string     `json:"role"`
		Content          *string    `json:"content"`
		ReasoningContent string     `json:"reasoning_content,omitempty"`
		ToolCalls        []toolCall `json:"tool_calls,omitempty"`
		Refusal          *string    `json:"refusal"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		Logprobs     *string `json:"logprobs"`
		FinishReason string  `json:"finish_reason"`
	}
	type details struct {
		CachedTokens    int `json:"cached_tokens,omitempty"`
		ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	}
	type usage struct {
		PromptTokens     int      `json:"prompt_tokens"`
		CompletionTokens int      `json:"completion_tokens"`
		TotalTokens      int      `json:"total_tokens"`
		Prompt           *details `json:"prompt_tokens_details,omitempty"`
		Completion       *details `json:"completion_tokens_details,omitempty"`
	}
	type completion struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		Choices           []choice `json:"choices"`
		Usage             usage    `json:"usage"`
		SystemFingerprint string   `json:"system_fingerprint"`
	}
	msg := message{Role: "assistant", ReasoningContent: reply.Reasoning}
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		msg.Content = &reply.Text
	}
	for _, tc := range reply.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: tc.ID, Type: "function", Function: function{tc.Name, tc.Arguments}})
	}
	u := usageOf(req, reply)
	body := completion{
		ID:                id,
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             req.Model,
		Choices:           []choice{{Message: msg, FinishReason: reply.FinishReason}},
		Usage:             usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens},
		SystemFingerprint: "fp_fakellm",
	}
	if u.CachedTokens > 0 {
		body.Usage.Prompt = &details{CachedTokens: u.CachedTokens}
	}
	if u.ReasoningTokens > 0 {
		body.Usage.Completion = &details{ReasoningTokens: u.ReasoningTokens}
	}
	data, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeReply(w, "application/json", append(data, '\n'), reply)
}

// usageOf is the reply's Usage, or counts estimated at four bytes a token.
func usageOf(req *ChatRequest, reply *Reply) Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += 4
		switch c := m["content"].(type) {
		case string:
			prompt += len(c)
		case []any:
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok {
					if t, ok := pm["text"].(string); ok {
						prompt += len(t)
					}
				}
			}
		}
	}
	completion := len(reply.Text) + len(reply.Reasoning)
	for _, tc := range reply.ToolCalls {
		completion += len(tc.Name) + len(tc.Arguments)
	}
	return Usage{PromptTokens: (prompt + 3) / 4, CompletionTokens: (completion + 3) / 4}
}

// SplitText splits text into the content deltas the server sends for it
// with Reply.Chunks = chunks (see Reply.Chunks). Joined, the pieces are
// text again.
func SplitText(text string, chunks int) []string {
	if text == "" && chunks <= 0 {
		return nil
	}
	starts := wordStarts(text)
	if chunks <= 0 {
		chunks = len(starts)
	}
	if chunks > len(starts) {
		return splitRunes(text, chunks)
	}
	out := make([]string, chunks)
	n := len(starts)
	for j := range chunks {
		from := starts[j*n/chunks]
		to := len(text)
		if k := (j + 1) * n / chunks; k < n {
			to = starts[k]
		}
		out[j] = text[from:to]
	}
	return out
}

// wordStarts returns the byte offsets where the pieces of text begin when
// it is split into words, each word with the whitespace before it (the
// first piece starts at 0, trailing whitespace stays with the last word).
// Text without any word is a single piece.
func wordStarts(text string) []int {
	if text == "" {
		return nil
	}
	starts := []int{0}
	spaceAt := -1 // start of the current whitespace run, or -1
	seenWord := false
	for i, r := range text {
		if unicode.IsSpace(r) {
			if spaceAt < 0 {
				spaceAt = i
			}
			continue
		}
		if spaceAt >= 0 && seenWord {
			starts = append(starts, spaceAt)
		}
		spaceAt = -1
		seenWord = true
	}
	return starts
}

// reasoningPieces cuts a reply's reasoning into the deltas every fake
// streams it in: about four.
func reasoningPieces(text string) []string {
	return splitRunes(text, min(4, utf8.RuneCountInString(text)))
}

// argumentPieces cuts a tool call's arguments into the deltas the fakes
// stream them in: three, and one more for every 64 runes.
func argumentPieces(args string) []string {
	return splitRunes(args, 3+utf8.RuneCountInString(args)/64)
}

// splitRunes cuts s into n pieces of nearly equal rune counts, never inside
// a UTF-8 sequence. Pieces are empty when n exceeds the rune count.
func splitRunes(s string, n int) []string {
	if n <= 0 {
		return nil
	}
	offsets := make([]int, 0, len(s)+1)
	for i := range s {
		offsets = append(offsets, i)
	}
	runes := len(offsets)
	offsets = append(offsets, len(s))
	out := make([]string, n)
	for j := range n {
		out[j] = s[offsets[j*runes/n]:offsets[(j+1)*runes/n]]
	}
	return out
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, as with encoding/json.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
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
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// exactPow10 holds the powers of ten that a float64 represents exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// AppendVector appends v as a JSON array of numbers that parse back to
// exactly v (as float32). It is several times faster than strconv's
// shortest formatting, which matters to embeddings benchmarks: a batch of
// vectors is tens of thousands of numbers.
func AppendVector(b []byte, v []float32) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat32(b, x)
	}
	return append(b, ']')
}

// digitPairs holds "00" to "99", for writing two digits at a time.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendFloat32 writes f with nine significant digits (fewer when they end
// in zeros), which is enough for any float32 to read back unchanged:
// 0.0123456791, 5e-7. The digits come from one multiplication by an exact
// power of ten, whose rounding error (about 1e-16) is far below what nine
// digits resolve, so they are right.
func appendFloat32(b []byte, f float32) []byte {
	x := float64(f)
	if math.Signbit(x) {
		b = append(b, '-')
		x = -x
	}
	if x == 0 {
		return append(b, '0')
	}
	if !(x >= 1e-13 && x < 1e9) { // NaN too
		return strconv.AppendFloat(b, x, 'g', -1, 32)
	}
	// x lies in [2^e2, 2^(e2+1)) and 78913/2^18 is about log10(2), so k
	// is at most one off the power of ten that brings x into [1e8, 1e9).
	e2 := int(math.Float64bits(x)>>52&0x7ff) - 1023
	k := 8 - (e2*78913)>>18
	y := x * exactPow10[k]
	switch {
	case y >= 1e9:
		k--
		y = x * exactPow10[k]
	case y < 1e8:
		k++
		y = x * exactPow10[k]
	}
	m := uint64(y + 0.5)
	if m >= 1e9 {
		m = 1e8
		k--
	}
	var d [9]byte
	for i := 8; i > 0; i -= 2 {
		q := m / 100
		r := m - q*100
		d[i], d[i-1] = digitPairs[2*r+1], digitPairs[2*r]
		m = q
	}
	d[0] = byte('0' + m)
	n := 9
	for n > 1 && d[n-1] == '0' && k > 0 {
		n--
		k--
	}
	switch {
	case k <= 0 && k >= -2: // a whole number
		b = append(b, d[:n]...)
		for ; k < 0; k++ {
			b = append(b, '0')
		}
		return b
	case k > 0 && k < n: // 12.345
		b = append(b, d[:n-k]...)
		b = append(b, '.')
		return append(b, d[n-k:n]...)
	case k >= n && k-n <= 4: // 0.00012345
		b = append(b, '0', '.')
		for i := n; i < k; i++ {
			b = append(b, '0')
		}
		return append(b, d[:n]...)
	}
	b = append(b, d[:n]...)
	b = append(b, 'e')
	if k > 0 {
		b = append(b, '-')
	} else {
		k = -k
	}
	if k >= 10 {
		return append(b, digitPairs[2*k], digitPairs[2*k+1])
	}
	return append(b, byte('0'+k))
}

// appendBase64Vector appends v as a JSON string of its little-endian
// float32 values in base64, as OpenAI answers encoding_format "base64".
func appendBase64Vector(b []byte, v []float32) []byte {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, raw)
	return append(b, '"')
}

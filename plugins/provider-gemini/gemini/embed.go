package gemini

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/plugins/internal/httpx"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Embed embeds the inputs with batchEmbedContents, one request per input,
// at most 100 inputs a call, and returns the vectors in input order.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Model) == "" {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	var task string
	switch req.InputType {
	case "":
	case provider.InputQuery:
		task = "RETRIEVAL_QUERY"
	case provider.InputDocument:
		task = "RETRIEVAL_DOCUMENT"
	default:
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "input type %q is neither %q nor %q", req.InputType, provider.InputQuery, provider.InputDocument)
	}
	if req.Dimensions < 0 {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "%d dimensions asked for", req.Dimensions)
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

func (c *client) embedBatch(ctx context.Context, url string, body []byte, req *provider.EmbedRequest) ([][]float32, error) {
	x, err := c.post(ctx, url, body, "application/json", req.Patches)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.statusError(x, req.Model)
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
		return nil, c.http.Fail(sdk.ErrBadResponse, "malformed embeddings from %s (%v): %s", c.http.BaseForHumans, err, httpx.Quote(data))
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

// parseEmbeddings reads {"embeddings":[{"values":[...]}, ...]} by hand: a
// batch of vectors is mostly numbers, which encoding/json decodes several
// times slower than the round trip that brought them. Members other than
// "embeddings" and "values" are skipped, after checking they are JSON.
func parseEmbeddings(data []byte) ([][]float32, error) {
	s := &jsonScanner{data: data}
	var out [][]float32
	dims := 0
	found := false
	err := s.object(func(key []byte) error {
		if string(key) != "embeddings" {
			return s.skip(0)
		}
		found = true
		return s.array(func() error {
			var vec []float32
			sawValues := false
			err := s.object(func(key []byte) error {
				if string(key) != "values" {
					return s.skip(0)
				}
				sawValues = true
				var err error
				vec, err = s.floats(make([]float32, 0, dims))
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
	if err != nil {
		return nil, err
	}
	if s.ws(); s.pos != len(s.data) {
		return nil, fmt.Errorf("data after the JSON document at offset %d", s.pos)
	}
	if !found {
		return nil, fmt.Errorf("no embeddings in the reply")
	}
	return out, nil
}

// jsonScanner walks a JSON document by hand.
type jsonScanner struct {
	data []byte
	pos  int
}

// ws skips whitespace.
func (s *jsonScanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) expect(c byte, what string) error {
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return nil
	}
	return s.unexpected(what)
}

func (s *jsonScanner) unexpected(want string) error {
	if s.pos >= len(s.data) {
		return fmt.Errorf("the JSON ends where %s should be", want)
	}
	return fmt.Errorf("found %q at offset %d where %s should be", s.data[s.pos], s.pos, want)
}

// peek returns the next byte after whitespace, or 0 at the end.
func (s *jsonScanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// object reads an object, calling member with each key and the cursor on
// its value, which member must consume.
func (s *jsonScanner) object(member func(key []byte) error) error {
	if err := s.expect('{', "an object"); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':', "a colon"); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected("a comma or the end of an object")
		}
	}
}

// array reads an array, calling item with the cursor on each element,
// which item must consume.
func (s *jsonScanner) array(item func() error) error {
	if err := s.expect('[', "an array"); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected("a comma or the end of an array")
		}
	}
}

// str reads a string and returns its raw contents (escapes left as they
// are: the keys looked for have none).
func (s *jsonScanner) str() ([]byte, error) {
	if err := s.expect('"', "a string"); err != nil {
		return nil, err
	}
	start := s.pos
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == '"':
			s.pos++
			return s.data[start : s.pos-1], nil
		case c == '\\':
			s.pos += 2
		case c < 0x20:
			return nil, s.unexpected("a string character")
		default:
			s.pos++
		}
	}
	return nil, s.unexpected("the end of a string")
}

// number reads a number's text.
func (s *jsonScanner) number() ([]byte, error) {
	s.ws()
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if ('0' <= c && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.pos++
			continue
		}
		break
	}
	if s.pos == start {
		return nil, s.unexpected("a number")
	}
	return s.data[start:s.pos], nil
}

// floats reads an array of numbers, appending them to vec.
func (s *jsonScanner) floats(vec []float32) ([]float32, error) {
	if err := s.expect('[', "an array"); err != nil {
		return nil, err
	}
	if s.peek() == ']' {
		s.pos++
		return vec, nil
	}
	for {
		s.ws()
		f, err := s.float()
		if err != nil {
			return nil, err
		}
		vec = append(vec, f)
		// The common case, a comma right after the number, without a call.
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			s.pos++
			continue
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return vec, nil
		default:
			return nil, s.unexpected("a comma or the end of an array")
		}
	}
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// float reads a number at the cursor as a float32. The numbers of a vector
// are parsed in one pass, eight digits at a time where it can: a mantissa
// below 2⁵³ and a decimal exponent within ±22 give an exact float64 with
// one multiplication or division (Clinger's fast path), which is then
// rounded to float32. Other numbers go to strconv. (Rounding twice can
// differ from strconv by one unit in the last place for a decimal within
// 2⁻⁵³ of halfway between two float32s; nothing that formats a float32
// writes such a number.)
func (s *jsonScanner) float() (float32, error) {
	b, i := s.data, s.pos
	start := i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var mant uint64
	exp := 0
	big := false // the mantissa does not fit the fast path
	intFrom := i
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		if mant >= 1e17 {
			big = true
		}
		mant = mant*10 + uint64(d)
	}
	if i == intFrom {
		return 0, s.unexpected("a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		fracFrom := i
		for i+8 <= len(b) && mant < 1e10 {
			v := binary.LittleEndian.Uint64(b[i:])
			if !eightDigits(v) {
				break
			}
			mant = mant*1e8 + eightDigitsValue(v)
			i += 8
		}
		for ; i < len(b); i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			if mant >= 1e17 {
				big = true
			}
			mant = mant*10 + uint64(d)
		}
		exp = fracFrom - i
		if i == fracFrom {
			s.pos = i
			return 0, s.unexpected("a digit")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		e, from := 0, i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if i == from {
			s.pos = i
			return 0, s.unexpected("an exponent")
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	s.pos = i
	if mant != 0 && (big || mant > 1<<53 || exp < -22 || exp > 22) {
		f, err := strconv.ParseFloat(string(b[start:i]), 32)
		if err != nil {
			return 0, fmt.Errorf("bad number %q", b[start:i])
		}
		return float32(f), nil
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp < 0:
		f /= pow10[-exp]
	default:
		f *= pow10[exp]
	}
	if neg {
		f = -f
	}
	return float32(f), nil
}

// eightDigits reports whether the eight bytes of v (read little-endian)
// are all ASCII digits.
func eightDigits(v uint64) bool {
	return (v&0xF0F0F0F0F0F0F0F0)|(((v+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) == 0x3333333333333333
}

// eightDigitsValue is the value of eight ASCII digits read little-endian
// (the first digit in the low byte), combined pairwise in three
// multiplications.
func eightDigitsValue(v uint64) uint64 {
	const mask = 0x000000FF000000FF
	const mul1 = 100 + 1000000<<32
	const mul2 = 1 + 10000<<32
	v -= 0x3030303030303030
	v = v*10 + v>>8
	return ((v&mask)*mul1 + (v>>16&mask)*mul2) >> 32
}

// skip consumes any value, checking it is JSON.
func (s *jsonScanner) skip(depth int) error {
	if depth > 64 {
		return fmt.Errorf("JSON nested too deep at offset %d", s.pos)
	}
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case c == '[':
		return s.array(func() error { return s.skip(depth + 1) })
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || ('0' <= c && c <= '9'):
		num, err := s.number()
		if err == nil && !json.Valid(num) {
			err = fmt.Errorf("bad number %q", num)
		}
		return err
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(s.data[s.pos:min(s.pos+5, len(s.data))]), lit) {
				s.pos += len(lit)
				return nil
			}
		}
		return s.unexpected("a JSON value")
	}
}

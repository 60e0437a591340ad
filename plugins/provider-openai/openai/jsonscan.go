package openai

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// scanner walks a JSON document by hand, for the one reply where
// encoding/json is too slow: a batch of vectors is mostly numbers, which
// encoding/json decodes about eight times slower (see the benchmarks),
// slower than the whole round trip through the plugin. Values it does not
// read itself it checks with json.Valid.
type scanner struct {
	data []byte
	pos  int
}

// next skips whitespace and returns the byte at the cursor without
// consuming it, or 0 at the end.
func (s *scanner) next() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

func (s *scanner) unexpected(want string) error {
	if s.pos >= len(s.data) {
		return fmt.Errorf("the JSON ends where %s should be", want)
	}
	return fmt.Errorf("found %q at offset %d where %s should be", s.data[s.pos], s.pos, want)
}

func (s *scanner) consume(c byte, want string) error {
	if s.next() != c {
		return s.unexpected(want)
	}
	s.pos++
	return nil
}

// object reads an object, calling member with each key; member must read
// the value.
func (s *scanner) object(member func(key []byte) error) error {
	if err := s.consume('{', "an object"); err != nil {
		return err
	}
	if s.next() == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.consume(':', `":"`); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.next() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected(`"," or "}"`)
		}
	}
}

// array reads an array, calling elem for each element; elem must read it.
func (s *scanner) array(elem func() error) error {
	if err := s.consume('[', "an array"); err != nil {
		return err
	}
	if s.next() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.next() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected(`"," or "]"`)
		}
	}
}

// stringEnd returns the index of the quote that closes the string opening
// at data[open], and whether the string holds escapes.
func stringEnd(data []byte, open int) (int, bool, error) {
	escaped := false
	for i := open + 1; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i, escaped, nil
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return 0, false, fmt.Errorf("control character in a string at offset %d", i)
		}
	}
	return 0, false, errors.New("the JSON ends inside a string")
}

// str reads a string. Without escapes the result aliases the document.
func (s *scanner) str() ([]byte, error) {
	if s.next() != '"' {
		return nil, s.unexpected("a string")
	}
	end, escaped, err := stringEnd(s.data, s.pos)
	if err != nil {
		return nil, err
	}
	raw := s.data[s.pos : end+1]
	s.pos = end + 1
	if !escaped {
		return raw[1 : len(raw)-1], nil
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// null reads a null if there is one.
func (s *scanner) null() bool {
	if s.next() == 'n' && len(s.data)-s.pos >= 4 && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// skip reads any value and returns it.
func (s *scanner) skip() ([]byte, error) {
	s.next()
	start := s.pos
	depth := 0
scan:
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '"':
			end, _, err := stringEnd(s.data, s.pos)
			if err != nil {
				return nil, err
			}
			s.pos = end + 1
			if depth == 0 {
				break scan
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				break scan
			}
			depth--
			if depth == 0 {
				s.pos++
				break scan
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				break scan
			}
		}
		s.pos++
	}
	v := s.data[start:s.pos]
	if !json.Valid(v) {
		s.pos = start
		return nil, s.unexpected("a JSON value")
	}
	return v, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// numberToken reads the bytes of a number.
func (s *scanner) numberToken() ([]byte, error) {
	s.next()
	start := s.pos
	for s.pos < len(s.data) && isNumberByte(s.data[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return nil, s.unexpected("a number")
	}
	return s.data[start:s.pos], nil
}

// number reads a number as a float64.
func (s *scanner) number() (float64, error) {
	tok, err := s.numberToken()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", tok)
	}
	return f, nil
}

// float reads a number as a float32, rounded as strconv.ParseFloat does.
func (s *scanner) float() (float32, error) {
	s.next()
	if f, n, ok := fastFloat32(s.data[s.pos:]); ok {
		s.pos += n
		return f, nil
	}
	tok, err := s.numberToken()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(tok), 32)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", tok)
	}
	return float32(f), nil
}

// exactPow10 holds the powers of ten that a float64 represents exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// negPow10 holds 10^-k rounded to float64.
var negPow10 = [...]float64{1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11,
	1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22}

// fastFloat32 parses the JSON number at the start of b when it is simple:
// at most 19 digits making an integer below 2^53, and a decimal exponent
// within ±22, the shape every embeddings API writes. It reports how many
// bytes it read, or false for the caller to use strconv.
//
// The digits and the power of ten are then exact in a float64, so one
// multiplication or division gives the correctly rounded float64 (Clinger's
// fast path). Rounding that to a float32 is correct too, unless it lies
// exactly halfway between two float32 values, where the first rounding may
// have decided the tie; that case goes to strconv.
func fastFloat32(b []byte) (float32, int, bool) {
	// The sign is data, not a branch: signs are random, and a mispredicted
	// branch costs as much as the digits.
	var sign uint32
	if len(b) > 0 && b[0] == '-' {
		sign = 1
	}
	i := int(sign)
	var mant uint64
	nd, exp := 0, 0 // digits read, and the exponent they make
	start := i
	i, mant, nd = digitRun(b, i, mant, nd)
	if i == start {
		return 0, 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		frac := i
		i, mant, nd = digitRun(b, i, mant, nd)
		if i == frac {
			return 0, 0, false
		}
		exp = frac - i
	}
	if nd > 19 {
		return 0, 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		estart := i
		e := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if e < 1000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if i == estart {
			return 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if mant > 1<<53 || exp < -22 || exp > 22 {
		return 0, 0, false
	}
	f := float64(mant)
	if exp < 0 {
		// Multiplying by 10^-k rounded is faster than dividing by 10^k and
		// lands within three float64 ulps of the exact value, so it rounds
		// to the right float32 unless it lies that close to a halfway point.
		f *= negPow10[-exp]
		if d := int64(math.Float64bits(f)&(1<<29-1)) - 1<<28; d >= -3 && d <= 3 {
			return 0, 0, false
		}
	} else {
		f *= exactPow10[exp]
		if math.Float64bits(f)&(1<<29-1) == 1<<28 {
			return 0, 0, false
		}
	}
	return math.Float32frombits(math.Float32bits(float32(f)) | sign<<31), i, true
}

// digitRun reads the decimal digits at b[i:] into mant, eight at a time
// where it can. nd counts the digits; past 19 it stops adding them (the
// caller then gives up, as mant would overflow) but still reads them.
func digitRun(b []byte, i int, mant uint64, nd int) (int, uint64, int) {
	for nd <= 11 && len(b)-i >= 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		if !eightDigits(v) {
			break
		}
		mant = mant*1e8 + uint64(parseEight(v))
		nd += 8
		i += 8
	}
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if nd < 19 {
			mant = mant*10 + uint64(b[i]-'0')
		}
		nd++
	}
	return i, mant, nd
}

// eightDigits reports whether the eight bytes of v are all ASCII digits:
// each byte is 0x30 to 0x3f, and stays below 0x40 when 6 is added.
func eightDigits(v uint64) bool {
	const high, zeros, six = 0xf0f0f0f0f0f0f0f0, 0x3030303030303030, 0x0606060606060606
	return v&high == zeros && (v+six)&high == zeros
}

// parseEight converts eight ASCII digits, the first in the lowest byte,
// to their value: digits are paired into bytes, pairs into 16-bit
// lanes, and those into the result, each step one multiply-add.
func parseEight(v uint64) uint32 {
	v -= 0x3030303030303030
	v = (v*10 + v>>8) & 0x00ff00ff00ff00ff
	v = (v*100 + v>>16) & 0x0000ffff0000ffff
	return uint32(v*10000 + v>>32)
}

// vector reads an embedding: an array of numbers, or a base64 string of
// little-endian float32 values. sizeHint is the expected length.
func (s *scanner) vector(sizeHint int) ([]float32, error) {
	switch s.next() {
	case '"':
		return s.base64Vector()
	case '[':
		s.pos++
	default:
		return nil, s.unexpected("an embedding")
	}
	v := make([]float32, 0, sizeHint)
	if s.next() == ']' {
		s.pos++
		return v, nil
	}
	for {
		f, err := s.float()
		if err != nil {
			return nil, err
		}
		v = append(v, f)
		switch s.next() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return v, nil
		default:
			return nil, s.unexpected(`"," or "]"`)
		}
	}
}

func (s *scanner) base64Vector() ([]float32, error) {
	raw, err := s.str()
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

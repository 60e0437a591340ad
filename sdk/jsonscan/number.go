package jsonscan

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Float32 reads a number and returns the float32 nearest to it, the value
// strconv.ParseFloat(text, 32) returns. A number beyond float32's range is
// an error.
func (s *Scanner) Float32() (float32, error) {
	s.Next()
	if f, n, ok := fast32(s.data, s.pos); ok {
		s.pos = n
		return f, nil
	}
	return s.slow32()
}

// Float64 reads a number and returns the float64 nearest to it, as
// strconv.ParseFloat(text, 64) does. A number beyond float64's range is an
// error.
func (s *Scanner) Float64() (float64, error) {
	tok, err := s.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q at offset %d: beyond the range of a float64", tok, s.pos-len(tok))
	}
	return f, nil
}

// Floats reads an array of numbers, appends them to dst as Float32 reads
// them, and returns the extended slice.
func (s *Scanner) Floats(dst []float32) ([]float32, error) {
	if err := s.consume('[', "an array"); err != nil {
		return nil, err
	}
	if s.Next() == ']' {
		s.pos++
		return dst, nil
	}
	// The cursor lives in a local while the loop runs, where the compiler
	// can keep it in a register.
	data, pos := s.data, s.pos
	for {
		f, n, ok := fast32(data, pos)
		if ok {
			pos = n
		} else {
			s.pos = pos
			var err error
			if f, err = s.slow32(); err != nil {
				return nil, err
			}
			pos = s.pos
		}
		dst = append(dst, f)
		// Most often a comma follows at once, perhaps with a space after.
		if pos < len(data) && data[pos] == ',' {
			pos++
			for pos < len(data) && isSpace(data[pos]) {
				pos++
			}
			continue
		}
		s.pos = pos
		switch s.Next() {
		case ',':
			s.pos++
			s.Next()
			pos = s.pos
		case ']':
			s.pos++
			return dst, nil
		default:
			return nil, s.unexpected(`"," or "]"`)
		}
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// slow32 reads a number the fast path left alone: one it cannot parse
// exactly, or one that is not a number at all.
func (s *Scanner) slow32() (float32, error) {
	tok, err := s.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(tok), 32)
	if err != nil {
		return 0, fmt.Errorf("bad number %q at offset %d: beyond the range of a float32", tok, s.pos-len(tok))
	}
	return float32(f), nil
}

// number reads the text of a number, checking it against JSON's grammar:
// an optional minus, 0 or digits not starting with 0, an optional fraction
// and an optional exponent.
func (s *Scanner) number() ([]byte, error) {
	s.Next()
	b, start := s.data, s.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	case i == start:
		return nil, s.unexpected("a number")
	default:
		return nil, s.badNumber(start, i, "a minus sign alone is not a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := skipDigits(b, i)
		if j == i {
			return nil, s.badNumber(start, i, "a digit should follow the decimal point")
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return nil, s.badNumber(start, i, "a digit should follow the exponent's e")
		}
		i = j
	}
	s.pos = i
	return b[start:i], nil
}

// badNumber reports the number from start whose next byte, at i, should
// have been a digit.
func (s *Scanner) badNumber(start, i int, why string) error {
	s.pos = i
	if i >= len(s.data) {
		return s.unexpected("a digit")
	}
	return fmt.Errorf("bad number %q at offset %d: %s", s.data[start:i], start, why)
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// exactPow10 holds the powers of ten that a float64 represents exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fast32 parses the number at b[i:] when its shape is simple: at most 19
// digits making an integer no larger than 2^53, and a decimal exponent
// within ±22, which is how every embeddings API writes its numbers. It
// returns the value and the index where the number's text ends, or false
// for the caller to take the slow path, which also reports bad numbers.
// What it accepts is always a number of JSON's grammar, though it stops at
// the end of one without looking at what follows ("01" is 0, then a stray
// 1 for the caller to find).
//
// The digits and the power of ten are then exact in a float64, so one
// multiplication or division, correctly rounded, gives the float64 nearest
// the number (Clinger's fast path). Rounding that to float32 gives the
// float32 nearest the number too, since every midpoint between two float32
// values is a float64 and the first rounding cannot cross one. It can land
// on one, though, from either side, and the second rounding would then
// guess; those few numbers take the slow path.
func fast32(b []byte, i int) (float32, int, bool) {
	// The sign is kept as a bit rather than a branch: signs are random,
	// and a mispredicted branch costs as much as the digits.
	var sign uint32
	if i < len(b) && b[i] == '-' {
		sign = 1
	}
	i += int(sign)
	if i >= len(b) {
		return 0, 0, false
	}
	var mant uint64
	nd := 0 // digits read into mant, counting leading zeros
	switch c := b[i]; {
	case c == '0':
		// Nothing may follow a leading zero but a fraction or an exponent.
		i++
	case c-'1' < 9:
		i, mant, nd = digitRun(b, i, 0, 0)
	default:
		return 0, 0, false
	}
	exp := 0
	if i < len(b) && b[i] == '.' {
		i++
		frac := i
		// digitRun, inline and with one try at eight digits at once: the
		// fraction holds most digits of most numbers, and the call costs.
		if nd <= 11 && len(b)-i >= 8 {
			if v := binary.LittleEndian.Uint64(b[i:]); eightDigits(v) {
				mant = mant*1e8 + uint64(parseEight(v))
				nd += 8
				i += 8
			}
		}
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if nd < 19 {
				mant = mant*10 + uint64(b[i]-'0')
			}
			nd++
		}
		if i == frac {
			return 0, 0, false
		}
		exp = frac - i
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		from, e := i, 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e < 1000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if i == from {
			return 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if nd > 19 || mant > 1<<53 || exp < -22 || exp > 22 {
		return 0, 0, false
	}
	f := float64(mant)
	if exp < 0 {
		f /= exactPow10[-exp]
	} else {
		f *= exactPow10[exp]
	}
	// The float64 lies on a float32 midpoint when the 29 bits that rounding
	// to float32 drops are 1 and 28 zeros. (Every value here is zero or a
	// normal float32, from 1e-22 to below 1e38.)
	const dropped, midpoint = 1<<29 - 1, 1 << 28
	if math.Float64bits(f)&dropped == midpoint {
		return 0, 0, false
	}
	return math.Float32frombits(math.Float32bits(float32(f)) | sign<<31), i, true
}

// digitRun reads the decimal digits at b[i:] into mant, eight at a time
// while it can, and returns where they end. nd counts the digits; past 19
// they no longer go into mant, which would overflow (the caller then gives
// up), but are still read.
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
// each is 0x30 to 0x3f, and stays below 0x40 when 6 is added.
func eightDigits(v uint64) bool {
	const high, zeros, six = 0xf0f0f0f0f0f0f0f0, 0x3030303030303030, 0x0606060606060606
	return v&high == zeros && (v+six)&high == zeros
}

// parseEight returns the value of eight ASCII digits, the first in the
// lowest byte of v: digits are paired into bytes, pairs into 16-bit lanes
// and those into the result, each step one multiply-add.
func parseEight(v uint64) uint32 {
	v -= 0x3030303030303030
	v = (v*10 + v>>8) & 0x00ff00ff00ff00ff
	v = (v*100 + v>>16) & 0x0000ffff0000ffff
	return uint32(v*10000 + v>>32)
}

package jsonscan

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checkFloat32 reads in with Float32 and checks the result against
// strconv.ParseFloat(in, 32): the same bits on success, and an error
// exactly when strconv refuses it.
func checkFloat32(t *testing.T, in string) {
	t.Helper()
	s := New([]byte(in))
	got, err := s.Float32()
	want, werr := strconv.ParseFloat(in, 32)
	switch {
	case werr != nil && err == nil:
		t.Fatalf("Float32(%q) = %v, but strconv says %v", in, got, werr)
	case werr != nil:
		return
	case err != nil || s.pos != len(in):
		t.Fatalf("Float32(%q): %v, read %d of %d bytes", in, err, s.pos, len(in))
	case math.Float32bits(got) != math.Float32bits(float32(want)):
		t.Fatalf("Float32(%q) = %v (%#x), strconv says %v (%#x)", in, got, math.Float32bits(got), float32(want), math.Float32bits(float32(want)))
	}
	// The fast path, when it takes the number, must agree as well.
	if f, n, ok := fast32([]byte(in), 0); ok && (n != len(in) || math.Float32bits(f) != math.Float32bits(got)) {
		t.Fatalf("fast32(%q) = %v after %d bytes, want %v", in, f, n, got)
	}
}

func TestFloat32Table(t *testing.T) {
	numbers := []string{
		"0", "-0", "0.0", "-0.0", "0e0", "0E+5", "0e999999", "-0e-999999", "0.000",
		"1", "-1", "0.1", "0.3", "-0.0069458387", "1e-7", "1E+3", "5e+3", "5E-3", "123.456e-2",
		"1e22", "1e23", "1e-22", "1e-23", "12e-30", "835048497e-9",
		"3.4028235e38", "3.4028234663852886e38", "3.4028235677973366e38", // the largest float32, and the midpoint above it
		"1.17549435e-38", "1.4e-45", "1e-45", "7.038531e-26", "1e-46", "1e-400", "-1e-400",
		"123456789012345", "1234567890123456", "9007199254740992", "9007199254740993", "12345678901234567890",
		"123456789012345678", "1234567890123456789012", "0.000000000000000000000001", "0.000000000000000000000000001",
		"0.30000001192092896", "0.100000001490116119384765625", "1.00000005960464477539062500001",
		// Midpoints between neighbouring float32 values, where a float64
		// rounded again to float32 goes wrong, and numbers just beside them.
		"16777217", "16777219", "33554435", "16777217.0", "167772170e-1", "1677721.7e1", "33554435.00",
		"16777217.000000001", "16777216.999999999", "16777219.000000001", "16777218.999999999",
		"1.000000059604644775390625", "1.00000005960464477539062500", "1.0000000596046448", "1.0000000596046447",
		"1.00000017881393432617187499", "1.000000178813934326171875", "1.0000001788139343",
		"0.50000002980232238769531250", "0.5000000298023224", "0.5000000298023223",
		"8388609.5", "8388610.5", "-8388609.5", "4194304.25", "4194304.75",
		"2.5", "1e38", "9e37", "90071992547409.92e24",
		// Long and odd shapes.
		"0.0000000000000000000000000000000000000000001", "100000000000000000000000000000",
		"1.000000000000000000000000000000000000000001", "-12345678.87654321e-10",
	}
	for _, in := range numbers {
		checkFloat32(t, in)
	}
}

func TestFloat32Errors(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{"", "the JSON ends where a number should be"},
		{"-", "the JSON ends where a digit should be"},
		{"-]", `bad number "-" at offset 0: a minus sign alone is not a number`},
		{"-x", "a minus sign alone is not a number"},
		{"--1", "a minus sign alone"},
		{"-.5", "a minus sign alone"},
		{"1.", "the JSON ends where a digit should be"},
		{"1.]", `bad number "1." at offset 0: a digit should follow the decimal point`},
		{"1.e5", "a digit should follow the decimal point"},
		{"1e", "the JSON ends where a digit should be"},
		{"1e+", "the JSON ends where a digit should be"},
		{"1ee5", `bad number "1e" at offset 0: a digit should follow the exponent's e`},
		{"1e+,", "a digit should follow the exponent's e"},
		{".5", "found '.' at offset 0 where a number should be"},
		{"+1", "found '+' at offset 0 where a number should be"},
		{`"1"`, "where a number should be"},
		{"NaN", "where a number should be"},
		{"Infinity", "where a number should be"},
		{"-Infinity", "a minus sign alone"},
		{"null", "where a number should be"},
		{"1e39", `bad number "1e39" at offset 0: beyond the range of a float32`},
		{"-3.5e38", "beyond the range"},
		{"  3.4028236e38", "at offset 2: beyond the range"},
	}
	for _, tt := range tests {
		s := New([]byte(tt.in))
		got, err := s.Float32()
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Float32(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
		}
	}
	// A number ends where JSON's grammar says, whatever follows.
	for _, tt := range []struct {
		in   string
		want float32
		n    int
	}{{"01", 0, 1}, {"-00", 0, 2}, {"0x10", 0, 1}, {"1.5.5", 1.5, 3}, {"2e3e4", 2000, 3}, {"7,", 7, 1}, {" \t\r\n8 ", 8, 5}, {"1_000", 1, 1}} {
		s := New([]byte(tt.in))
		got, err := s.Float32()
		if err != nil || got != tt.want || s.pos != tt.n {
			t.Errorf("Float32(%q) = %v, %v after %d bytes; want %v after %d", tt.in, got, err, s.pos, tt.want, tt.n)
		}
	}
}

// TestFloat32Random checks Float32 against strconv on the shapes servers
// write (shortest, fixed and exponent forms of float32 and float64
// values), on random bit patterns across float32's range, and on the
// midpoints between neighbouring float32 values and the decimals just
// beside them, where rounding twice would go wrong.
func TestFloat32Random(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	var inputs []string
	for range n {
		f := math.Float32frombits(rnd.Uint32())
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			continue
		}
		v := float32(rnd.NormFloat64() * math.Pow(10, float64(rnd.IntN(12)-8)))
		inputs = append(inputs,
			strconv.FormatFloat(float64(f), 'g', -1, 32),
			strconv.FormatFloat(float64(f), 'e', rnd.IntN(12), 64),
			strconv.FormatFloat(float64(f), 'f', rnd.IntN(14), 64),
			strconv.FormatFloat(rnd.Float64()*2-1, 'g', rnd.IntN(17)+1, 64),
			strconv.FormatFloat(float64(v), 'g', -1, 32),
			strconv.FormatFloat(float64(v), 'e', 8, 32),
			strconv.FormatFloat(float64(v), 'f', 12, 64),
			strconv.FormatFloat(float64(v), 'g', 17, 64),
			strconv.FormatFloat(float64(v), 'E', -1, 64),
		)
	}
	for range n / 10 {
		lo := math.Float32frombits(rnd.Uint32N(0x7f000000))
		hi := math.Nextafter32(lo, float32(math.Inf(1)))
		mid := (float64(lo) + float64(hi)) / 2
		inputs = append(inputs,
			strconv.FormatFloat(mid, 'e', -1, 64),
			strconv.FormatFloat(mid, 'e', 14, 64),
			strconv.FormatFloat(math.Nextafter(mid, 0), 'e', 14, 64),
			strconv.FormatFloat(math.Nextafter(mid, 2*mid), 'e', 14, 64),
			strconv.FormatFloat(mid, 'f', -1, 64),
		)
		// Midpoints of small integers' neighbours, written with few digits
		// so that they fit the fast path.
		k := rnd.Uint64N(1<<30) | 1<<24
		inputs = append(inputs, strconv.FormatUint(k, 10), strconv.FormatUint(k, 10)+".0",
			strconv.FormatUint(k, 10)+".000000001", strconv.FormatUint(k-1, 10)+".999999999")
	}
	fast := 0
	for _, in := range inputs {
		checkFloat32(t, in)
		if _, _, ok := fast32([]byte(in), 0); ok {
			fast++
		}
		if in[0] != '-' {
			checkFloat32(t, "-"+in)
		}
	}
	if fast < len(inputs)/2 {
		t.Fatalf("only %d of %d numbers took the fast path", fast, len(inputs))
	}
}

// isNumber reports whether s, all of it, is a JSON number.
func isNumber(s string) bool {
	return s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') && json.Valid([]byte(s)) &&
		strings.TrimRight(s, " \t\r\n") == s
}

// FuzzFloat32 checks that Float32 reads exactly JSON's numbers: the
// longest number at the start of the input, with strconv's value, or an
// error if none starts there.
func FuzzFloat32(f *testing.F) {
	for _, s := range []string{"0", "-0.5", "1e5", "1.5E-7", "16777217", "1.000000059604644775390625", "01", "1.", "-",
		"9007199254740993", "0.1,", "3.4028235e38", "1e39", "1e-400", "12345678901234567890123", "0.046348125", "-0.000012"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s := New([]byte(in))
		got, err := s.Float32()
		if err != nil {
			if rest := strings.TrimLeft(in, " \t\r\n"); isNumber(rest) {
				if _, werr := strconv.ParseFloat(rest, 32); werr == nil {
					t.Fatalf("Float32(%q): %v", in, err)
				}
			}
			return
		}
		start := len(in) - len(strings.TrimLeft(in, " \t\r\n"))
		tok := in[start:s.pos]
		if !isNumber(tok) {
			t.Fatalf("Float32(%q) read %q, which is not a JSON number", in, tok)
		}
		for j := s.pos + 1; j <= len(in); j++ {
			if isNumber(in[start:j]) {
				t.Fatalf("Float32(%q) read %q, but %q is a number too", in, tok, in[start:j])
			}
		}
		want, werr := strconv.ParseFloat(tok, 32)
		if werr != nil || math.Float32bits(got) != math.Float32bits(float32(want)) {
			t.Fatalf("Float32(%q) = %v, strconv says %v, %v", in, got, float32(want), werr)
		}
	})
}

func TestFloat64(t *testing.T) {
	for _, in := range []string{"0", "-0", "12", "0.1", "1e308", "4.9e-324", "123456789012345678901234567890", "-2.5E-3"} {
		s := New([]byte(in))
		got, err := s.Float64()
		want, _ := strconv.ParseFloat(in, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) || s.pos != len(in) {
			t.Errorf("Float64(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"1e309": "beyond the range of a float64", "-": "ends where a digit", "1.x": "a digit should follow", "true": "where a number should be"} {
		if _, err := New([]byte(in)).Float64(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Float64(%q): %v, want %q", in, err, want)
		}
	}
}

func TestFloats(t *testing.T) {
	tests := []struct {
		in   string
		want []float32
		err  string
	}{
		{in: "[]", want: []float32{}},
		{in: " [ ] ", want: []float32{}},
		{in: "[1]", want: []float32{1}},
		{in: "[0.5,-1,2e-3]", want: []float32{0.5, -1, 0.002}},
		{in: "[ 1 , 2\n,\t3\r\n]", want: []float32{1, 2, 3}},
		{in: "[1, 16777217, 1e39]", err: "beyond the range"},
		{in: "[1,\n  -0.25,\n  1.000000059604644775390625]", want: []float32{1, -0.25, 1}},
		{in: "[1,2", err: `the JSON ends where "," or "]" should be`},
		{in: "[1,2.", err: "the JSON ends where a digit should be"},
		{in: "[1,", err: "the JSON ends where a number should be"},
		{in: "[1,]", err: "found ']' at offset 3 where a number should be"},
		{in: "[1 2]", err: `found '2' at offset 3 where "," or "]" should be`},
		{in: "[1,-]", err: `bad number "-" at offset 3: a minus sign alone is not a number`},
		{in: "[1.]", err: "a digit should follow the decimal point"},
		{in: `["1"]`, err: "where a number should be"},
		{in: "[0x10]", err: `found 'x' at offset 2 where "," or "]" should be`},
		{in: "[01]", err: `found '1' at offset 2`},
		{in: "[null]", err: "where a number should be"},
		{in: "{}", err: "found '{' at offset 0 where an array should be"},
		{in: "", err: "the JSON ends where an array should be"},
	}
	for _, tt := range tests {
		s := New([]byte(tt.in))
		got, err := s.Floats([]float32{})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Floats(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !equal(got, tt.want) || s.End() != nil {
			t.Errorf("Floats(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	// Floats appends.
	got, err := New([]byte("[3,4]")).Floats([]float32{1, 2})
	if err != nil || !equal(got, []float32{1, 2, 3, 4}) {
		t.Fatalf("appending: %v, %v", got, err)
	}
}

// TestFloatsMatchesEncodingJSON reads arrays of random numbers in the
// formats servers use, with the separators they use, and compares them
// with encoding/json.
func TestFloatsMatchesEncodingJSON(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	formats := map[string]func(float32) string{
		"shortest": func(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) },
		"float64":  func(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 64) },
		"fixed":    func(f float32) string { return strconv.FormatFloat(float64(f), 'f', 10, 64) },
		"exponent": func(f float32) string { return strconv.FormatFloat(float64(f), 'E', 8, 32) },
	}
	for name, format := range formats {
		for _, sep := range []string{",", ", ", ",\n      ", " , "} {
			var b strings.Builder
			b.WriteString("[")
			for i := range 500 {
				if i > 0 {
					b.WriteString(sep)
				}
				b.WriteString(format(float32(rnd.NormFloat64() * math.Pow(10, float64(rnd.IntN(10)-7)))))
			}
			b.WriteString("]")
			got, err := New([]byte(b.String())).Floats(nil)
			var want []float32
			if jerr := json.Unmarshal([]byte(b.String()), &want); err != nil || jerr != nil || !equal(got, want) {
				t.Fatalf("%s with %q: %v; encoding/json: %v", name, sep, err, jerr)
			}
		}
	}
}

// FuzzFloats checks Floats against encoding/json: the same numbers when
// Floats reads an array, and an error from Floats only when encoding/json
// has one too (or meets a null, which it reads as nothing).
func FuzzFloats(f *testing.F) {
	for _, s := range []string{"[]", "[1]", "[0.5, -1,2e-3 ]", "[1,\n 2]", "[1,]", "[01]", "[1.]", "[-]", "[1e39]", "[null]", `["1"]`, "[1 2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s := New([]byte(in))
		got, err := s.Floats(nil)
		if err == nil {
			err = s.End()
		}
		var want []float32
		jerr := json.Unmarshal([]byte(in), &want)
		switch {
		case err == nil && (jerr != nil || !equal(got, want)):
			t.Fatalf("Floats(%q) = %v, encoding/json says %v, %v", in, got, want, jerr)
		case err != nil && jerr == nil && !strings.Contains(in, "null"):
			t.Fatalf("Floats(%q): %v, encoding/json says %v", in, err, want)
		}
	})
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestEightDigits(t *testing.T) {
	word := func(s string) uint64 {
		v := uint64(0)
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(s[i])
		}
		return v
	}
	for _, s := range []string{"00000000", "12345678", "99999999", "01020304", "90817263", "10000000", "00000001"} {
		n, _ := strconv.ParseUint(s, 10, 32)
		if v := word(s); !eightDigits(v) || parseEight(v) != uint32(n) {
			t.Errorf("%s: digits %v, value %d", s, eightDigits(v), parseEight(v))
		}
	}
	for _, s := range []string{"1234567.", "/0000000", ":0000000", "0000000a", "-1234567", "1234 678", "\xff0000000", "0000000\xb0", "?0000000"} {
		if eightDigits(word(s)) {
			t.Errorf("%q taken for digits", s)
		}
	}
	// Every byte in every position.
	for pos := range 8 {
		for c := range 256 {
			b := []byte("55555555")
			b[pos] = byte(c)
			if eightDigits(word(string(b))) != ('0' <= c && c <= '9') {
				t.Fatalf("%q: digits %v", b, !('0' <= c && c <= '9'))
			}
		}
	}
}

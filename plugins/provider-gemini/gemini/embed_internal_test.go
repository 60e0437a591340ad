package gemini

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestFloatMatchesStrconv checks the hand-written number parser against
// strconv on the shapes servers write: shortest forms, fixed digits,
// exponents, integers, zeros, long mantissas and extreme exponents.
func TestFloatMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for range 20000 {
		v := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-8)))
		inputs = append(inputs,
			strconv.FormatFloat(float64(v), 'g', -1, 32),
			strconv.FormatFloat(float64(v), 'e', 8, 32),
			strconv.FormatFloat(float64(v), 'f', 12, 64),
			strconv.FormatFloat(float64(v), 'g', 17, 64),
			strconv.FormatFloat(float64(v), 'E', -1, 64),
		)
	}
	inputs = append(inputs, "0", "-0", "0.0", "1", "-1", "12345678", "123456789012345678", "1234567890123456789012",
		"0.000000000000000000000000001", "1e-45", "1e-46", "3.4028235e38", "3.5e38", "1e400", "-1e-400", "9007199254740993",
		"0.1", "0.30000001192092896", "1.00000005960464477539062500001", "0.00000000000000000000000", "5e+3", "5E-3",
		"123.456e-2", "0e999999", "1.17549435e-38", "1.4e-45")
	for _, in := range inputs {
		s := &jsonScanner{data: []byte(in)}
		got, err := s.float()
		want, werr := strconv.ParseFloat(in, 32)
		if werr != nil {
			// Out of float32's range: no vector holds that.
			if err == nil || !strings.Contains(werr.Error(), "range") {
				t.Fatalf("%q: got %v, %v; strconv: %v", in, got, err, werr)
			}
			continue
		}
		if err != nil || s.pos != len(in) {
			t.Fatalf("%q: %v at %d", in, err, s.pos)
		}
		if got != float32(want) || math.Signbit(float64(got)) != math.Signbit(want) {
			t.Fatalf("%q: got %v, strconv %v", in, got, float32(want))
		}
	}
}

func TestEightDigits(t *testing.T) {
	for _, s := range []string{"00000000", "12345678", "99999999", "01020304", "90817263"} {
		v := uint64(0)
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(s[i])
		}
		n, _ := strconv.ParseUint(s, 10, 64)
		if !eightDigits(v) || eightDigitsValue(v) != n {
			t.Fatalf("%s: %v %d", s, eightDigits(v), eightDigitsValue(v))
		}
	}
	for _, s := range []string{"1234567.", "/0000000", ":0000000", "0000000a", "-1234567", "1234 678"} {
		v := uint64(0)
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(s[i])
		}
		if eightDigits(v) {
			t.Fatalf("%q taken for digits", s)
		}
	}
}

func TestParseEmbeddings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]float32
		err  string
	}{
		{"plain", `{"embeddings":[{"values":[0.5,-1,2e-3]},{"values":[]}]}`, [][]float32{{0.5, -1, 0.002}, {}}, ""},
		{"spaces and other members", "{ \"model\" : \"x\\\"y\", \"embeddings\" : [ { \"stats\" : {\"a\":[1,{\"b\":null}],\"t\":true,\"f\":false} , \"values\" : [ 1 , 2 ] } ] , \"usage\": {\"n\": -1.5e3}}\n",
			[][]float32{{1, 2}}, ""},
		{"no embeddings", `{"embeddings":[]}`, [][]float32{}, ""},
		{"missing", `{"other":[1]}`, nil, "no embeddings"},
		{"no values", `{"embeddings":[{"values":[1]},{"x":1}]}`, nil, "embedding 1 has no values"},
		{"truncated", `{"embeddings":[{"values":[1,2`, nil, "ends where"},
		{"bad number", `{"embeddings":[{"values":[1,-]}]}`, nil, "a number"},
		{"bad fraction", `{"embeddings":[{"values":[1.]}]}`, nil, "a digit"},
		{"string in values", `{"embeddings":[{"values":["1"]}]}`, nil, "a number"},
		{"trailing data", `{"embeddings":[]} x`, nil, "after the JSON"},
		{"not an object", `[1]`, nil, "an object"},
		{"bad literal", `{"a":nul,"embeddings":[]}`, nil, "a JSON value"},
		{"control character in a string", "{\"a\":\"x\ny\",\"embeddings\":[]}", nil, "a string character"},
		{"deep nesting", `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"embeddings":[]}`, nil, "too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEmbeddings([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v", got)
			}
			for i := range got {
				if len(got[i]) != len(tt.want[i]) || (len(got[i]) > 0 && !reflect.DeepEqual(got[i], tt.want[i])) {
					t.Fatalf("vector %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" and \\ back", "ctl \x00\x01\x1f\n\r\t", "Grüße 世界 🙂", "bad \xff utf8", "\u2028"} {
		got := string(appendString(nil, s))
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("%q encoded as %s: %v", s, got, err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Fatalf("%q came back as %q", s, back)
		}
	}
}

func BenchmarkParseEmbeddings64x384(b *testing.B) {
	data := []byte(`{"embeddings":[`)
	for i := range 64 {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, `{"values":[`...)
		for j := range 384 {
			if j > 0 {
				data = append(data, ',')
			}
			data = strconv.AppendFloat(data, float64(float32(j-192)/float32(997+i)), 'g', -1, 32)
		}
		data = append(data, "]}"...)
	}
	data = append(data, "]}"...)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		v, err := parseEmbeddings(data)
		if err != nil || len(v) != 64 {
			b.Fatal(err)
		}
	}
}

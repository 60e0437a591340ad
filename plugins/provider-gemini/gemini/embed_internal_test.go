package gemini

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

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

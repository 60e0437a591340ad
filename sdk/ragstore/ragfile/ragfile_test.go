package ragfile

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestReplaceKeepsEveryOtherLine(t *testing.T) {
	vecs := map[string][]float32{"0-1": {0.5, -1}, "0-0": {1, 2}, "1-0": {3, 4}}
	head := "driver: yaml\nembedding_model: m:e\nchunk_size: 10\nchunk_overlap: 0\nfiles:\n  0:\n    hash: h\n    path: /a\n    documents:\n    - page_content: a\n      metadata: {}\n"
	for _, tc := range []struct {
		name, in, keep string
		ok             bool
	}{
		{"vectors last", head + "vectors:\n  0-0: AAAAAA==\n", head, true},
		{"no vectors yet", head, head, true},
		{"empty vectors", head + "vectors: {}\n", head, true},
		{"no final newline", strings.TrimSuffix(head, "\n"), head, true},
		{"a key after the vectors", head + "vectors:\n  9-9: AAAAAA==\ntop_k: 3\n", head, true},
		{"flow style", "{driver: yaml}\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := Replace([]byte(tc.in), "vectors", AppendVectors(nil, vecs))
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if !ok {
				return
			}
			if !strings.HasPrefix(string(out), tc.keep) || strings.Contains(tc.in, "top_k: 3") && !strings.HasSuffix(string(out), "top_k: 3\n") {
				t.Fatalf("other lines changed:\n%s", out)
			}
			_, raw, _, ok := Split(out, "vectors")
			if !ok {
				t.Fatalf("the result does not scan:\n%s", out)
			}
			got, ok, err := DecodeVectors(raw["vectors"])
			if !ok || err != nil || !reflect.DeepEqual(got, vecs) {
				t.Fatalf("vectors %v, %v, %v", got, ok, err)
			}
			if !strings.Contains(string(out), "vectors:\n  0-0: ") || strings.Index(string(out), "0-1:") > strings.Index(string(out), "1-0:") {
				t.Fatalf("ids not in chunk order:\n%s", out)
			}
		})
	}
}

func TestSplitKeepsLineNumbers(t *testing.T) {
	data := []byte("top_k: 1\nvectors:\n  0-0: AACAPw==\n  0-1: AAAAQA==\nchunk_size: 4\nfiles:\n  0: {}\n")
	rest, raw, keyLines, ok := Split(data, "vectors", "files")
	if !ok {
		t.Fatal("not split")
	}
	if want := "top_k: 1\nvectors: {}\n\n\nchunk_size: 4\nfiles: {}\n\n"; string(rest) != want {
		t.Errorf("rest %q, want %q", rest, want)
	}
	if string(raw["vectors"]) != "vectors:\n  0-0: AACAPw==\n  0-1: AAAAQA==\n" || string(raw["files"]) != "files:\n  0: {}\n" {
		t.Errorf("raw %q", raw)
	}
	if !reflect.DeepEqual(keyLines, []int{1, 2, 5, 6}) {
		t.Errorf("key lines %v", keyLines)
	}
}

func TestSectionsRefusesLayoutsItCannotScan(t *testing.T) {
	for _, in := range []string{
		"{driver: yaml}\n",
		"top_k: 1\n---\nx: 1\n",
		"%YAML 1.2\n---\ntop_k: 1\n",
		"vectors: {}\nvectors: {}\n",
		"&a top_k: 1\n",
	} {
		if _, _, ok := Sections([]byte(in), "vectors"); ok {
			t.Errorf("%q scanned", in)
		}
	}
	if _, _, ok := Sections([]byte("---\ntop_k: 1\n- item\n"), "vectors"); !ok {
		t.Error("a leading document start and an unindented item refused")
	}
}

// The vectors section holds ragstore.EncodeVector's form.
func TestVectorsAreLittleEndianFloat32Base64(t *testing.T) {
	in := []float32{0, -2.5, 3.25e-8, 1e30}
	data := AppendVectors(nil, map[string][]float32{"0-0": {1}, "0-1": in, "x y": {2}})
	// 1.0 is 0x3f800000: bytes 00 00 80 3f.
	if want := "vectors:\n  0-0: AACAPw==\n  0-1: " + ragstore.EncodeVector(in) + "\n  \"x y\": AAAAQA==\n"; !bytes.Equal(data, []byte(want)) {
		t.Errorf("vectors section:\n%s\nwant\n%s", data, want)
	}
	out, ok, err := DecodeVectors(AppendVectors(nil, map[string][]float32{"0-0": {1}, "0-1": in}))
	if !ok || err != nil || !reflect.DeepEqual(out, map[string][]float32{"0-0": {1}, "0-1": in}) {
		t.Errorf("round trip %v → %v (%v %v)", in, out, ok, err)
	}
	if _, ok, _ := DecodeVectors(data); ok {
		t.Error("a quoted id is the plain layout")
	}
}

func TestDecodeVectors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string][]float32
		ok       bool
		err      string
	}{
		{"empty", "", map[string][]float32{}, true, ""},
		{"empty mapping", "vectors: {}\n", map[string][]float32{}, true, ""},
		{"null", "vectors: null\n", map[string][]float32{}, true, ""},
		{"CRLF", "vectors:\r\n  0-0: AACAPw==\r\n", map[string][]float32{"0-0": {1}}, true, ""},
		{"comments", "vectors:\n  # c\n  0-0: AACAPw==\n", map[string][]float32{"0-0": {1}}, true, ""},
		{"quoted id", "vectors:\n  \"0-0\": AACAPw==\n", nil, false, ""},
		{"flow", "vectors: {\"0-0\": AACAPw==}\n", nil, false, ""},
		{"twice", "vectors:\n  0-0: AACAPw==\n  0-0: AACAPw==\n", nil, false, ""},
		{"short", "vectors:\n  0-0: AACAPw==\n  0-1: AACA\n", nil, true, "vectors.0-1: 3 bytes are not a whole number of float32 values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := DecodeVectors([]byte(tc.in))
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if tc.err != "" {
				var ve *VectorError
				if err == nil || err.Error() != tc.err || !errors.As(err, &ve) || ve.Line != 3 {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v", got, err)
			}
		})
	}
}

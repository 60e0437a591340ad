package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// dump reads any document with the Scanner's methods, writing what it finds
// in a compact form: objects, arrays and strings as JSON, numbers as %g of
// their float64 value, null, and other values as Skip returns them.
func dump(s *Scanner, b *strings.Builder) error {
	switch c := s.Next(); {
	case c == '{':
		b.WriteByte('{')
		first := true
		err := s.Object(func(key []byte) error {
			if !first {
				b.WriteByte(',')
			}
			first = false
			k, _ := json.Marshal(string(key))
			b.Write(k)
			b.WriteByte(':')
			return dump(s, b)
		})
		b.WriteByte('}')
		return err
	case c == '[':
		b.WriteByte('[')
		n := 0
		err := s.Array(func() error {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			return dump(s, b)
		})
		b.WriteByte(']')
		return err
	case c == '"':
		v, err := s.String()
		k, _ := json.Marshal(string(v))
		b.Write(k)
		return err
	case c == '-' || '0' <= c && c <= '9':
		f, err := s.Float64()
		fmt.Fprintf(b, "%g", f)
		return err
	case s.Null():
		b.WriteString("null")
		return nil
	default:
		v, err := s.Skip()
		b.Write(v)
		return err
	}
}

func TestWalk(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{}`, `{}`},
		{` { } `, `{}`},
		{`[]`, `[]`},
		{`{"a":1,"b":[true,false,null,"x"],"c":{"d":[]}}`, `{"a":1,"b":[true,false,null,"x"],"c":{"d":[]}}`},
		{" {\r\n\t\"a\" :\n[ 1 ,2 ] , \"b\" : -0.5e1 }\n", `{"a":[1,2],"b":-5}`},
		{`{"d\u0061ta":"x\"y\\z\/\n\u00e9\ud83d\ude00"}`, "{\"data\":\"x\\\"y\\\\z/\\n\u00e9\U0001F600\"}"},
		{`"\ud800"`, "\"\uFFFD\""},
		{"\"plain \u00fctf-8\"", "\"plain \u00fctf-8\""},
		{`[[[[["deep"]]]]]`, `[[[[["deep"]]]]]`},
	}
	for _, tt := range tests {
		s := New([]byte(tt.in))
		var b strings.Builder
		if err := dump(s, &b); err != nil || s.End() != nil {
			t.Errorf("%s: %v, %v", tt.in, err, s.End())
			continue
		}
		if b.String() != tt.want {
			t.Errorf("%s read as %s, want %s", tt.in, b.String(), tt.want)
		}
	}
}

func TestStringAliasesTheDocument(t *testing.T) {
	data := []byte(`"abc"`)
	v, err := New(data).String()
	if err != nil || string(v) != "abc" || &v[0] != &data[1] {
		t.Fatalf("%q, %v", v, err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"empty", ``, "the JSON ends where an object should be"},
		{"not an object", `[1]`, "found '[' at offset 0 where an object should be"},
		{"HTML", `<html>`, "found '<' at offset 0 where an object should be"},
		{"key not a string", `{a:1}`, "found 'a' at offset 1 where a string should be"},
		{"no colon", `{"a" 1}`, `found '1' at offset 5 where ":" should be`},
		{"no comma", `{"a":1 "b":2}`, `found '"' at offset 7 where "," or "}" should be`},
		{"trailing comma in an object", `{"a":1,}`, "found '}' at offset 7 where a string should be"},
		{"trailing comma in an array", `{"a":[1,]}`, "found ']' at offset 8 where a JSON value should be"},
		{"array not closed", `{"a":[1 }`, `found '}' at offset 8 where "," or "]" should be`},
		{"truncated in a key", `{"da`, "the JSON ends inside a string"},
		{"truncated after a key", `{"a"`, `the JSON ends where ":" should be`},
		{"truncated in a string", `{"a":"xy`, "the JSON ends inside a string"},
		{"truncated in a number", `{"a":[1,2.`, "the JSON ends where a digit should be"},
		{"truncated after a value", `{"a":null`, `the JSON ends where "," or "}" should be`},
		{"control character in a key", "{\"da\nta\":1}", `found control character '\n' at offset 4 where a string character should be`},
		{"control character in a value", "{\"a\":\"x\ty\"}", `found control character '\t' at offset 7 where a string character should be`},
		{"bad escape in a key", `{"a\qb":1}`, `bad string at offset 1: invalid character 'q' in string escape code`},
		{"bad escape in a value", `{"a":"\u12"}`, "bad string at offset 5"},
		{"a lone minus", `{"a":-}`, `bad number "-" at offset 5: a minus sign alone is not a number`},
		{"bad fraction", `{"a":1.}`, `bad number "1." at offset 5: a digit should follow the decimal point`},
		{"leading zero", `{"a":012}`, `found '1' at offset 6 where "," or "}" should be`},
		{"plus", `{"a":+1}`, "found '+' at offset 5 where a JSON value should be"},
		{"NaN", `{"a":NaN}`, "found 'N' at offset 5 where a JSON value should be"},
		{"trailing garbage", `{"a":1} x`, "found 'x' at offset 8 after the JSON document, where the end should be"},
		{"two documents", `{}{}`, "found '{' at offset 2 after the JSON document"},
		{"NUL after the document", "{} \x00", `found '\x00' at offset 3 after the JSON document`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New([]byte(tt.in))
			err := s.Object(func([]byte) error { return dump(s, new(strings.Builder)) })
			if err == nil {
				err = s.End()
			}
			if err == nil || err.Error() != tt.err && !strings.HasPrefix(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestNull(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
		pos  int
	}{{"null", true, 4}, {" null,", true, 5}, {"nul", false, 0}, {"nil", false, 0}, {`"null"`, false, 0}, {"", false, 0}, {" 0", false, 1}} {
		s := New([]byte(tt.in))
		if got := s.Null(); got != tt.want || s.pos != tt.pos {
			t.Errorf("Null(%q) = %v at offset %d, want %v at %d", tt.in, got, s.pos, tt.want, tt.pos)
		}
	}
}

func TestSkip(t *testing.T) {
	ok := []string{`0`, `-1.5e+3`, `"x\"y\u00e9"`, `true`, `false`, `null`, `{}`, `[]`,
		`{"a":[1,{"b":null}],"c":"]}\""}`, `[[],[{}],{"":""}]`,
		`{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`}
	for _, in := range ok {
		s := New([]byte(" " + in + " ,"))
		v, err := s.Skip()
		if err != nil || string(v) != in || s.Next() != ',' {
			t.Errorf("Skip(%s) = %s, %v", in, v, err)
		}
	}
	bad := []struct{ in, err string }{
		{``, "the JSON ends where a JSON value should be"},
		{`tru`, "found 't' at offset 0 where a JSON value should be"},
		{`nul`, "found 'n' at offset 0 where a JSON value should be"},
		{`[1,nul]`, "found 'n' at offset 3 where a JSON value should be"},
		{`{"a":[1,2`, "the JSON ends inside a JSON value that starts at offset 0"},
		{`[{"a":"b`, "the JSON ends inside a JSON value that starts at offset 0"},
		{`"abc`, "the JSON ends inside a string"},
		{`"a\x"`, "bad escape in the string at offset 0"},
		{"[\"a\nb\"]", "found control character '\\n' at offset 3 where a string character should be"},
		{`01`, ""}, // 0, then a stray 1 for the caller to find
		{`[01]`, `found '1' at offset 2 where "," or "]" should be`},
		{`1.`, "the JSON ends where a digit should be"},
		{`[-]`, `bad number "-" at offset 1: a minus sign alone is not a number`},
		{`{1:2}`, "found '1' at offset 1 where a string should be"},
		{`'a'`, "found '\\'' at offset 0 where a JSON value should be"},
		{strings.Repeat("[", 65) + strings.Repeat("]", 65), "JSON nested too deep at offset 64"},
		{`{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "JSON nested too deep"},
	}
	for _, tt := range bad {
		s := New([]byte(tt.in))
		v, err := s.Skip()
		if tt.err == "" {
			if err != nil || s.End() == nil {
				t.Errorf("Skip(%s) = %s, %v, then %v", tt.in, v, err, s.End())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Skip(%s) = %s, %v; want %q", tt.in, v, err, tt.err)
		}
	}
}

// FuzzSkip checks that Skip followed by End accepts a document exactly
// when encoding/json finds it valid (up to the limit on nesting).
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"]}\""}`, `[1,2.5e3,-0,"x\u00e9\n"]`, `{"embeddings":[{"values":[0.5,-1]}]}`,
		`tru`, `[1,]`, `{"a" 1}`, `"\ud800"`, `01`, `[1.]`, `"a\x"`, "\"a\x01\"", `{"a":{}} `, ` [ ] `, "\"\"\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s := New([]byte(in))
		_, err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if valid := json.Valid([]byte(in)); valid != (err == nil) && !(valid && strings.Contains(err.Error(), "too deep")) {
			t.Fatalf("Skip(%q): %v, but json.Valid says %v", in, err, valid)
		}
	})
}

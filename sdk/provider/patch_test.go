package provider

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

func TestMergePatchFollowsRFC7396(t *testing.T) {
	// The examples of RFC 7396, appendix A.
	tests := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, tt := range tests {
		var target, patch, want any
		_ = json.Unmarshal([]byte(tt.target), &target)
		_ = json.Unmarshal([]byte(tt.patch), &patch)
		_ = json.Unmarshal([]byte(tt.want), &want)
		if got := MergePatch(target, patch); !reflect.DeepEqual(got, want) {
			t.Errorf("MergePatch(%s, %s) = %v, want %s", tt.target, tt.patch, got, tt.want)
		}
	}
}

func TestApplyPatchesInOrder(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer k"}, "X-Old": {"1"}}
	url, body, err := ApplyPatches([]RequestPatch{
		{Body: json.RawMessage(`{"temperature":null,"safety":{"level":"low"}}`), SetHeaders: map[string]string{"X-New": "a"}},
		{URL: "https://proxy/v1/chat", Body: json.RawMessage(`{"safety":{"extra":true}}`), DeleteHeaders: []string{"X-Old"}},
	}, "https://api/v1/chat", []byte(`{"model":"m","temperature":0.5}`), h)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	_ = json.Unmarshal(body, &got)
	want := map[string]any{"model": "m", "safety": map[string]any{"level": "low", "extra": true}}
	if url != "https://proxy/v1/chat" || !reflect.DeepEqual(got, want) {
		t.Fatalf("url %s body %s", url, body)
	}
	if h.Get("X-New") != "a" || h.Get("X-Old") != "" || h.Get("Authorization") != "Bearer k" {
		t.Fatalf("headers %v", h)
	}
	if _, _, err := ApplyPatches([]RequestPatch{{Body: json.RawMessage(`{`)}}, "u", []byte(`{}`), http.Header{}); err == nil {
		t.Fatal("a broken patch was accepted")
	}
	// No patches: the body is untouched, byte for byte.
	in := []byte(`{"b":1, "a":2}`)
	if _, out, _ := ApplyPatches(nil, "u", in, http.Header{}); string(out) != string(in) {
		t.Fatalf("body changed without patches: %s", out)
	}
}

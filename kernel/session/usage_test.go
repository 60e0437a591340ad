package session

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestUsageIsRecordedPerTurnAndSurvivesTheFile(t *testing.T) {
	st, s := newSession(t, "costly", exchange("hi", "hello")...)
	cost := 0.0125
	first := Usage{Model: "openai:gpt-4o", InputTokens: 1200, OutputTokens: 300, CachedTokens: 1000, ReasoningTokens: 120, ContextTokens: 1500, Cost: &cost}
	if err := s.RecordUsage(first); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(toolTurn("files?")...); err != nil {
		t.Fatal(err)
	}
	second := Usage{Model: "local:qwen", InputTokens: 50, OutputTokens: 7, ContextTokens: 57}
	if err := s.RecordUsage(second); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	data := string(s.Encode())
	// The usage is a key of the reply, which the original's loader ignores.
	if !strings.Contains(data, "  content: hello\n  usage:\n    model: openai:gpt-4o\n    input_tokens: 1200\n") {
		t.Fatalf("file:\n%s", data)
	}
	// The file is still plain YAML of messages with role and content.
	var plain struct {
		Messages []struct{ Role string } `yaml:"messages"`
	}
	if err := yaml.Unmarshal([]byte(data), &plain); err != nil || len(plain.Messages) == 0 {
		t.Fatalf("the file does not parse: %v", err)
	}

	loaded, err := st.Load("costly")
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Usage(); !reflect.DeepEqual(got, []Usage{first, second}) {
		t.Fatalf("usage after loading: %+v", got)
	}
	// A fork shares entries: recording on the copy leaves the parent alone.
	before := loaded.Usage()
	if err := loaded.Append(exchange("more", "sure")...); err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.Undo(); err != nil {
		t.Fatal(err)
	}
	if got := loaded.Usage(); !reflect.DeepEqual(got, before) {
		t.Fatalf("usage after an exchange and its undo: %+v", got)
	}
}

func TestRecordUsageNeedsAReply(t *testing.T) {
	_, s := newSession(t, "empty")
	if err := s.RecordUsage(Usage{InputTokens: 1}); err == nil {
		t.Fatal("recorded usage in an empty session")
	}
}

func TestUsageSkipsWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []Usage
	}{
		{"not a mapping", "messages:\n- role: assistant\n  content: x\n  usage: lots\n", nil},
		{"a negative cost is unknown", "messages:\n- role: assistant\n  content: x\n  usage:\n    input_tokens: 3\n    cost: -1\n", []Usage{{InputTokens: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd, err := decode("x.yaml", []byte("model: a:b\n"+tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			s := &Session{fileData: *fd}
			if got := s.Usage(); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Usage = %+v, want %+v", got, tc.want)
			}
		})
	}
}

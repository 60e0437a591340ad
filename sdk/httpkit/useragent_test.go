package httpkit

import (
	"strings"
	"testing"
)

func TestUserAgentFromExtra(t *testing.T) {
	for _, c := range []struct {
		extra   any
		want    string
		wantErr string
	}{
		{nil, "plugin/1", ""},
		{map[string]any{"proxy": nil}, "plugin/1", ""},
		{map[string]any{"user_agent": nil}, "plugin/1", ""},
		{map[string]any{"user_agent": "  "}, "plugin/1", ""},
		{map[string]any{"user_agent": " corp-gw/2 "}, "corp-gw/2", ""},
		{map[string]any{"user_agent": 7}, "", "extra.user_agent must be a string on one line"},
		{map[string]any{"user_agent": "a\r\nX-Injected: 1"}, "", "extra.user_agent must be a string on one line"},
	} {
		o, err := ParseExtra(c.extra)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: error %v, want %q", c.extra, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.extra, err)
		}
		cl, err := New("test", "http://localhost:1", "", o)
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.UserAgent("plugin/1"); got != c.want {
			t.Errorf("%v: UserAgent %q, want %q", c.extra, got, c.want)
		}
	}
}

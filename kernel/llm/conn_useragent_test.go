package llm

import (
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/kernel/config"
)

func TestPluginConfigCarriesTheUserAgentInExtra(t *testing.T) {
	for _, c := range []struct {
		name    string
		options map[string]any
		ua      string
		want    map[string]any
	}{
		{"unset", map[string]any{"extra": map[string]any{"proxy": "http://p:1"}}, "", map[string]any{"extra": map[string]any{"proxy": "http://p:1"}}},
		{"no extra", map[string]any{"organization_id": "o"}, "coyote/1", map[string]any{"organization_id": "o", "extra": map[string]any{"user_agent": "coyote/1"}}},
		{"merged", map[string]any{"extra": map[string]any{"read_timeout": 30}}, "ua/2", map[string]any{"extra": map[string]any{"read_timeout": 30, "user_agent": "ua/2"}}},
		{"the client's own wins", map[string]any{"extra": map[string]any{"user_agent": "mine"}}, "ua/2", map[string]any{"extra": map[string]any{"user_agent": "mine"}}},
		{"a bad extra is left for the plugin to report", map[string]any{"extra": "oops"}, "ua/2", map[string]any{"extra": "oops"}},
		{"nil options", nil, "ua/3", map[string]any{"extra": map[string]any{"user_agent": "ua/3"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := clone(c.options)
			cl := &config.Client{Name: "x", Type: "openai", Options: c.options, UserAgent: c.ua}
			got := PluginConfig(cl).Options
			if len(got) == 0 && len(c.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("options %v, want %v", got, c.want)
			}
			if !reflect.DeepEqual(c.options, before) {
				t.Errorf("the client's options changed: %v, were %v", c.options, before)
			}
		})
	}
}

func clone(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range m {
		if inner, ok := v.(map[string]any); ok {
			v = clone(inner)
		}
		out[k] = v
	}
	return out
}

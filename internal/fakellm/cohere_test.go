package fakellm_test

import (
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// The Cohere fake refuses the conversations Cohere refuses.
func TestCohereChecks(t *testing.T) {
	base := fakellm.StartCohere(t, &fakellm.Cohere{APIKey: "k"})
	call := `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"unanswered call", `{"model":"command-a-03-2025","messages":[{"role":"user","content":"hi"},` + call + `,{"role":"user","content":"and?"}]}`, 400, "were not answered"},
		{"result for no call", `{"model":"command-a-03-2025","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"x","content":"r"}]}`, 400, "answers no tool call"},
		{"arguments as an object", `{"model":"command-a-03-2025","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{}}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, 400, "must be a string"},
		{"answered call", `{"model":"command-a-03-2025","messages":[{"role":"user","content":"hi"},` + call + `,{"role":"tool","tool_call_id":"c1","content":"r"}]}`, 200, `"finish_reason":"COMPLETE"`},
	}
	for _, tt := range tests {
		if status, body := vertexPost(t, base+"/chat", "application/json", tt.body, "Authorization", "Bearer k"); status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
	if status, body := vertexPost(t, base+"/chat", "application/json", `{}`, "Authorization", "Bearer wrong"); status != 401 || !strings.Contains(body, "invalid api token") {
		t.Errorf("wrong key: %d %s", status, body)
	}
	if status, body := vertexPost(t, base+"/embed", "application/json", `{"model":"embed-v4.0","texts":["a"]}`, "Authorization", "Bearer k"); status != 400 || !strings.Contains(body, "input_type") {
		t.Errorf("embed without input_type: %d %s", status, body)
	}
}

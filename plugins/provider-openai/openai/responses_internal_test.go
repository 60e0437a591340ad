package openai

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func TestUsageLimitLine(t *testing.T) {
	zone := time.FixedZone("CET", 3600)
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, zone)
	lim := func(plan string, resetsAt, resetsIn float64) *codexLimit {
		var l codexLimit
		l.Error.Type, l.Error.PlanType, l.Error.ResetsAt, l.Error.ResetsInSeconds = "usage_limit_reached", plan, resetsAt, resetsIn
		return &l
	}
	tests := []struct {
		name string
		lim  *codexLimit
		want string
	}{
		{"same day", lim("plus", float64(at.Add(150*time.Minute).Unix()), 0),
			"you have reached the usage limit of your ChatGPT plus plan; it resets at 12:30 CET (in 2h30m)"},
		{"another day", lim("pro", float64(at.Add(26*time.Hour).Unix()), 0),
			"you have reached the usage limit of your ChatGPT pro plan; it resets at Thu 3 Dec 12:00 CET (in 26h0m)"},
		{"only seconds", lim("", 0, 90),
			"you have reached the usage limit of your ChatGPT plan; it resets at 10:01 CET (in 2m)"},
		{"no time", lim("team", 0, 0), "you have reached the usage limit of your ChatGPT team plan; try again later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := usageLimitLine(tt.lim, at); got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestChatGPTAccount(t *testing.T) {
	tests := map[string]string{
		"sk-plain-key": "",
		"a.b.c":        "",
		"eyJhbGciOiJub25lIn0.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjdC05In19.": "acct-9",
	}
	for tok, want := range tests {
		if got := chatGPTAccount(tok); got != want {
			t.Errorf("chatGPTAccount(%q) = %q, want %q", tok, got, want)
		}
	}
}

// TestStreamErrors: an error reported inside the stream is classed by its
// code; a rate limit's "try again in" becomes the retry delay, since a
// stream has no Retry-After header; the plan's limits are not retried.
func TestStreamErrors(t *testing.T) {
	c, err := newClient(&provider.ClientConfig{Name: "c", Type: TypeOpenAI, APIKey: "tok", Options: map[string]any{"auth": "oauth"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		code, msg string
		want      error
		retry     time.Duration
	}{
		{"rate_limit_exceeded", "Rate limit reached for gpt-5 in organization org-x on tokens per min. Please try again in 11.054s. Visit the docs.", sdk.ErrRateLimited, 11054 * time.Millisecond},
		{"rate_limit_exceeded", "Please try again in 250ms.", sdk.ErrRateLimited, 250 * time.Millisecond},
		{"rate_limit_exceeded", "Slow down.", sdk.ErrRateLimited, 0},
		{"usage_limit_reached", "The usage limit has been reached", sdk.ErrFailedPrecondition, 0},
		{"usage_not_included", "Upgrade your plan", sdk.ErrPermissionDenied, 0},
		{"context_length_exceeded", "Your input exceeds the context window of this model.", sdk.ErrInvalidArgument, 0},
		{"", "An error occurred while processing your request.", sdk.ErrUnavailable, 0},
	}
	for _, tt := range tests {
		err := c.streamError(tt.code, tt.msg)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %v", tt.code, err, tt.want)
		}
		if d, ok := sdk.RetryAfter(err); d != tt.retry || ok != (tt.retry > 0) {
			t.Errorf("%s %q: retry after %v %v, want %v", tt.code, tt.msg, d, ok, tt.retry)
		}
	}
}

package redact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestStringReplacesEverySecretWithItsName(t *testing.T) {
	defer Reset()
	if got := String("nothing recorded"); got != "nothing recorded" {
		t.Fatalf("got %q", got)
	}
	Add("SHORT", "abc") // too short to redact
	Add("KEY", "sk-123456")
	Add("LONG", "sk-123456-and-more")
	Add("SPACED", "a b/c+d")
	tests := []struct{ in, want string }{
		{"Authorization: Bearer sk-123456", "Authorization: Bearer {{KEY}}"},
		{"url?k=sk-123456-and-more&x=1", "url?k={{LONG}}&x=1"},
		{"abc stays", "abc stays"},
		{"sk-123456sk-123456", "{{KEY}}{{KEY}}"},
		{"q=a+b%2Fc%2Bd p=a%20b%2Fc+d raw=a b/c+d", "q={{SPACED}} p={{SPACED}} raw={{SPACED}}"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var b bytes.Buffer
	if n, err := Writer(&b).Write([]byte("log: sk-123456\n")); err != nil || n != 15 || b.String() != "log: {{KEY}}\n" {
		t.Fatalf("Writer: n=%d err=%v wrote %q", n, err, b.String())
	}
	err := Error(fmt.Errorf("post http://x/?k=sk-123456: %w", context.Canceled))
	if err.Error() != "post http://x/?k={{KEY}}: context canceled" || !errors.Is(err, context.Canceled) {
		t.Fatalf("Error: %v (is canceled: %v)", err, errors.Is(err, context.Canceled))
	}
	if errors.Unwrap(err) != nil {
		t.Fatal("the redacted error unwraps to the message with the secret")
	}
}

package redact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestStringReplacesEachSecretInEveryForm(t *testing.T) {
	var r Redactor
	if got := r.String("nothing recorded"); got != "nothing recorded" {
		t.Fatalf("got %q", got)
	}
	r.Add("abc", "[short]") // shorter than MinLen: not recorded
	r.Add("sk-123456", "<KEY>")
	r.Add("sk-123456-and-more", "<LONG>")
	r.Add("a b/c+d", "<SPACED>")
	r.Add("", "<EMPTY>")
	tests := []struct{ in, want string }{
		{"Authorization: Bearer sk-123456", "Authorization: Bearer <KEY>"},
		{"url?k=sk-123456-and-more&x=1", "url?k=<LONG>&x=1"}, // the longer secret whole
		{"abc stays", "abc stays"},
		{"sk-123456sk-123456", "<KEY><KEY>"},
		{"q=a+b%2Fc%2Bd p=a%20b%2Fc+d raw=a b/c+d", "q=<SPACED> p=<SPACED> raw=<SPACED>"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	r.Add("sk-123456", "<RENAMED>")
	if got := r.String("key sk-123456"); got != "key <RENAMED>" {
		t.Errorf("a secret added again: %q", got)
	}
	r.Reset()
	if got := r.String("key sk-123456"); got != "key sk-123456" {
		t.Errorf("after Reset: %q", got)
	}
}

func TestErrorKeepsTheIdentityButNotTheSecret(t *testing.T) {
	var r Redactor
	r.Add("sk-123456", "***")
	orig := fmt.Errorf("post http://x/?k=sk-123456: %w", context.Canceled)
	err := r.Error(orig)
	if err.Error() != "post http://x/?k=***: context canceled" || !errors.Is(err, context.Canceled) {
		t.Fatalf("Error: %v (is canceled: %v)", err, errors.Is(err, context.Canceled))
	}
	if errors.Unwrap(err) != nil {
		t.Fatal("the redacted error unwraps to the message with the secret")
	}
	clean := errors.New("no secret here")
	if r.Error(clean) != clean || r.Error(nil) != nil {
		t.Fatal("an error without a secret is not returned as it is")
	}
	var none *Redactor
	if none.Error(orig) != orig || none.String("sk-123456") != "sk-123456" {
		t.Fatal("a nil Redactor changes text")
	}
}

func TestWriterRedactsEachWrite(t *testing.T) {
	var r Redactor
	var b bytes.Buffer
	w := r.Writer(&b)
	if _, err := w.Write([]byte("before: sk-123456\n")); err != nil {
		t.Fatal(err)
	}
	r.Add("sk-123456", "<KEY>") // the writer sees secrets added later
	if n, err := w.Write([]byte("log: sk-123456\n")); err != nil || n != 15 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if b.String() != "before: sk-123456\nlog: <KEY>\n" {
		t.Fatalf("wrote %q", b.String())
	}
}

func TestConcurrentAddAndString(t *testing.T) {
	var r Redactor
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			secret := fmt.Sprintf("secret-%d", i)
			r.Add(secret, "***")
			if got := r.String("x " + secret); got != "x ***" {
				t.Errorf("String = %q", got)
			}
		})
	}
	wg.Wait()
}

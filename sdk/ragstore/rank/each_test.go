package rank

import (
	"slices"
	"testing"
)

func TestEachTokenGivesTokenizesTokens(t *testing.T) {
	for _, text := range []string{"", "Hello, World!", "naïve CAFÉ 42x", "  a--b__c  ", "日本語 テキスト"} {
		var got []string
		EachToken(text, func(b []byte) { got = append(got, string(b)) })
		if want := Tokenize(text); !slices.Equal(got, want) {
			t.Errorf("EachToken(%q) = %q, want %q", text, got, want)
		}
	}
}

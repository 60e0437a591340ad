package vault

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestGetEachListsMissingAndFailsOnTheFirstError(t *testing.T) {
	get := func(_ context.Context, n string) (string, bool, error) {
		switch n {
		case "gone":
			return "", false, nil
		case "bad", "worse":
			return "", false, errors.New(n)
		}
		return "v-" + n, true, nil
	}
	resp, err := GetEach(context.Background(), []string{"a", "gone", "b"}, get)
	if err != nil || resp.Values["a"] != "v-a" || resp.Values["b"] != "v-b" || !slices.Equal(resp.Missing, []string{"gone"}) {
		t.Fatalf("%+v %v", resp, err)
	}
	if _, err := GetEach(context.Background(), []string{"a", "bad", "worse"}, get); err == nil || err.Error() != "bad" {
		t.Fatalf("error %v, want the first name's", err)
	}
}

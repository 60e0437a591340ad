package sandbox

import "testing"

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"My Project":            "my-project",
		"--a__b--":              "a-b",
		"Ünïcode 2":             "n-code-2",
		"___":                   "",
		"x":                     "x",
		string(make([]byte, 0)): "",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbb": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	} {
		if got := SanitizeName(in); got != want {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnavailableNamesEachBackendAndWhy(t *testing.T) {
	got := Unavailable([]Backend{{Name: "a", Reason: "not installed"}, {Name: "b", Reason: "daemon down"}})
	if want := "no sandbox backend is available here: a: not installed; b: daemon down"; got != want {
		t.Fatalf("%q", got)
	}
}

func TestSecretsDoNotPrint(t *testing.T) {
	s := Secret{Name: "K", Value: "v4lue", Hosts: []string{"h"}}
	for _, out := range []string{s.String(), s.GoString()} {
		if out != `secret "K" (hosts [h])` {
			t.Fatalf("%q", out)
		}
	}
}

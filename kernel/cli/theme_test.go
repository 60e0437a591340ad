package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/kernel/iostreams"
)

func TestThemeNameDetectsTheBackground(t *testing.T) {
	for _, c := range []struct {
		configured, colorfgbg, want string
	}{
		{"light", "15;0", "light"},
		{"Dark", "0;15", "dark"},
		{"", "15;0", "dark"},
		{"", "0;15", "light"},
		{"", "0;default;7", "light"},
		{"", "7;8", "dark"},
		{"", "12;4", "dark"},
		{"", "0;11", "light"},
		{"", "", "dark"},
		{"", "garbage", "dark"},
		{"", "15", "dark"},
		{"solarized", "0;15", "light"}, // not a theme name: detected
	} {
		got := themeName(c.configured, func(k string) string {
			if k == "COLORFGBG" {
				return c.colorfgbg
			}
			return ""
		})
		if got != c.want {
			t.Errorf("theme %q, COLORFGBG %q: %s, want %s", c.configured, c.colorfgbg, got, c.want)
		}
	}
}

func TestUserThemeReadsTheConfigDirectorysFile(t *testing.T) {
	dir := t.TempDir()
	io, _, _, errOut := iostreams.Test()
	f := &Factory{IO: io, Env: func(k string) string {
		if k == "COYOTE_CONFIG_DIR" {
			return dir
		}
		return ""
	}}
	if userTheme(f, "dark") != nil {
		t.Fatal("a theme without a file")
	}
	path := filepath.Join(dir, "light.tmTheme")
	theme := `<plist><dict><key>settings</key><array><dict><key>scope</key><string>comment</string><key>settings</key><dict><key>foreground</key><string>#123456</string></dict></dict></array></dict></plist>`
	if err := os.WriteFile(path, []byte(theme), 0o644); err != nil {
		t.Fatal(err)
	}
	if userTheme(f, "light") == nil || userTheme(f, "dark") != nil {
		t.Fatal("light.tmTheme is not used for light only")
	}
	// An edit that breaks it: a warning, and the built-in palette.
	if err := os.WriteFile(path, []byte("<plist>"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if userTheme(f, "light") != nil {
		t.Fatal("a broken file gave a theme")
	}
	if w := errOut.String(); !strings.Contains(w, "light.tmTheme: ") || !strings.Contains(w, "using the built-in light theme") {
		t.Errorf("warning %q", w)
	}
}

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/render"
)

// themeName is the theme setting, or when it is unset the terminal's
// background as COLORFGBG tells it ("15;0": light text on black is
// dark; "0;15" is light), else dark.
func themeName(configured string, getenv func(string) string) string {
	switch t := strings.ToLower(strings.TrimSpace(configured)); t {
	case "light", "dark":
		return t
	}
	return backgroundTheme(getenv("COLORFGBG"))
}

// backgroundTheme reads COLORFGBG ("FG;BG" or "FG;DEFAULT;BG", colours
// of the 16-colour palette): backgrounds 7 (white) and 9 to 15 (the
// bright colours but 8, grey) are light; anything else, or no
// variable, is dark.
func backgroundTheme(colorfgbg string) string {
	fields := strings.Split(colorfgbg, ";")
	bg, err := strconv.Atoi(strings.TrimSpace(fields[len(fields)-1]))
	if err != nil || len(fields) < 2 {
		return "dark"
	}
	if bg == 7 || bg >= 9 && bg <= 15 {
		return "light"
	}
	return "dark"
}

// tmThemes caches the user's .tmTheme files by path and modification
// time, so a REPL reads each once (again after an edit).
var tmThemes struct {
	sync.Mutex
	m map[string]cachedTheme
}

type cachedTheme struct {
	mod   time.Time
	theme *render.Theme
}

// userTheme is the palette of <config>/<theme>.tmTheme when the file
// exists (nil otherwise); a file that does not parse is warned about and
// the built-in palette is used.
func userTheme(f *Factory, theme string) *render.Theme {
	p, err := f.Paths()
	if err != nil {
		return nil
	}
	path := filepath.Join(p.ConfigDir, theme+".tmTheme")
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	tmThemes.Lock()
	defer tmThemes.Unlock()
	if c, ok := tmThemes.m[path]; ok && c.mod.Equal(st.ModTime()) {
		return c.theme
	}
	data, err := os.ReadFile(path)
	var th *render.Theme
	if err == nil {
		th, err = render.ParseTmTheme(data, theme)
	}
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s: %v; using the built-in %s theme\n", path, err, theme)
	}
	if tmThemes.m == nil {
		tmThemes.m = map[string]cachedTheme{}
	}
	tmThemes.m[path] = cachedTheme{st.ModTime(), th}
	return th
}

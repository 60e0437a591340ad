package role

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
	"time"
)

func TestExpandReplacesOnlySystemVariables(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{{__os__}} {{__os_distro__}} {{__os_family__}} {{__arch__}}", "<__os__> <__os_distro__> <__os_family__> <__arch__>"},
		{"{{__shell__}} {{__locale__}} {{__now__}} {{__cwd__}}", "<__shell__> <__locale__> <__now__> <__cwd__>"},
		{"agent {{__tools__}} and {{name}} stay", "agent {{__tools__}} and {{name}} stay"},
		{"no spaces allowed: {{ __os__ }}", "no spaces allowed: {{ __os__ }}"},
		{"{{{__os__}}}", "{<__os__>}"},
		{"{{x}}{{__arch__}}", "{{x}}<__arch__>"},
		{"unclosed {{__os__", "unclosed {{__os__"},
		{"{{__os__}}{{__os__}}", "<__os__><__os__>"},
		{"", ""},
		{"no braces", "no braces"},
	}
	for _, tt := range tests {
		if got := Expand(tt.in, fixedVars); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpandComputesOnlyTheVariablesUsedOnceEach(t *testing.T) {
	var asked []string
	vars := func(name string) string { asked = append(asked, name); return "v" }
	Expand("{{__cwd__}} {{__now__}} {{__cwd__}} {{__tools__}}", vars)
	if want := []string{"__cwd__", "__now__"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked for %v, want %v", asked, want)
	}
	asked = nil
	Expand("plain {{text}}", vars)
	if asked != nil {
		t.Errorf("asked for %v with no variable in the text", asked)
	}
}

func TestSystemVariableValues(t *testing.T) {
	osRelease := "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
	env := map[string]string{"SHELL": "/usr/bin/zsh", "LANG": "de_DE.UTF-8"}
	base := system{
		getenv:   func(k string) string { return env[k] },
		now:      func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("", 3600)) },
		getwd:    func() (string, error) { return "/home/u/proj", nil },
		readFile: func(p string) ([]byte, error) { return []byte(osRelease), nil },
		goos:     "linux",
		goarch:   "amd64",
	}
	want := map[string]string{
		"__os__":        "linux",
		"__os_distro__": "Debian GNU/Linux 12 (bookworm)",
		"__os_family__": "unix",
		"__arch__":      "x86_64",
		"__shell__":     "zsh",
		"__locale__":    "de-DE",
		"__now__":       "2025-03-04T05:06:07+01:00",
		"__cwd__":       "/home/u/proj",
	}
	for _, name := range VarNames() {
		if got := base.value(name); got != want[name] {
			t.Errorf("%s = %q, want %q", name, got, want[name])
		}
	}
	utc := base
	utc.now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	if got := utc.value("__now__"); got != "2025-01-02T03:04:05+00:00" {
		t.Errorf("__now__ in UTC = %q", got)
	}
	mac := base
	mac.goos, mac.goarch = "darwin", "arm64"
	if mac.value("__os__") != "macos" || mac.value("__os_distro__") != "macos" || mac.value("__arch__") != "aarch64" {
		t.Errorf("macOS: os %q distro %q arch %q", mac.value("__os__"), mac.value("__os_distro__"), mac.value("__arch__"))
	}
	win := base
	win.goos = "windows"
	if win.value("__os_family__") != "windows" {
		t.Errorf("windows family = %q", win.value("__os_family__"))
	}
	broken := base
	broken.getwd = func() (string, error) { return "", errors.New("gone") }
	if broken.value("__cwd__") != "" {
		t.Error("a failing getwd gave a directory")
	}
}

func TestDistroFromOSRelease(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"pretty name", map[string]string{"/etc/os-release": `PRETTY_NAME="Ubuntu 24.04.1 LTS"`}, "Ubuntu 24.04.1 LTS"},
		{"name and version", map[string]string{"/etc/os-release": "# c\nNAME=Alpine Linux\nVERSION_ID=3.20.0\n"}, "Alpine Linux 3.20.0"},
		{"single quotes", map[string]string{"/etc/os-release": "PRETTY_NAME='Arch Linux'"}, "Arch Linux"},
		{"the /usr/lib copy", map[string]string{"/usr/lib/os-release": `PRETTY_NAME="Fedora Linux 40"`}, "Fedora Linux 40"},
		{"no file", nil, "Linux"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := system{goos: "linux", readFile: func(p string) ([]byte, error) {
				if v, ok := tt.files[p]; ok {
					return []byte(v), nil
				}
				return nil, fs.ErrNotExist
			}}
			if got := s.value("__os_distro__"); got != tt.want {
				t.Errorf("distro = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestShellDetection(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want string
	}{
		{"SHELL", "linux", map[string]string{"SHELL": "/bin/bash"}, "bash"},
		{"COYOTE_SHELL beats SHELL", "linux", map[string]string{"SHELL": "/bin/bash", "COYOTE_SHELL": "/usr/bin/fish"}, "fish"},
		{"nu is nushell", "linux", map[string]string{"SHELL": "/opt/bin/nu"}, "nushell"},
		{"nothing set", "linux", nil, "sh"},
		{"windows COYOTE_SHELL", "windows", map[string]string{"COYOTE_SHELL": `C:\Program Files\PowerShell\7\PWSH.EXE`}, "pwsh"},
		{"windows PowerShell 7", "windows", map[string]string{"PSModulePath": `C:\Users\me\Documents\PowerShell\7\Modules`}, "pwsh"},
		{"windows PowerShell", "windows", map[string]string{"PSModulePath": `C:\Users\me\Documents\WindowsPowerShell\Modules`}, "powershell"},
		{"windows cmd", "windows", map[string]string{"SHELL": "/bin/bash"}, "cmd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := system{goos: tt.goos, getenv: func(k string) string { return tt.env[k] }}
			if got := s.value("__shell__"); got != tt.want {
				t.Errorf("shell = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLocaleDetection(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LANG": "en_US.UTF-8"}, "en-US"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "fr_FR"}, "fr-FR"},
		{map[string]string{"LANG": "en_US", "LC_ALL": "pt_BR.utf8@latin"}, "pt-BR"},
		{map[string]string{"LC_ALL": "C.UTF-8", "LANG": "sv_SE.UTF-8"}, "sv-SE"},
		{map[string]string{"LANG": "POSIX"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		s := system{getenv: func(k string) string { return tt.env[k] }}
		if got := s.value("__locale__"); got != tt.want {
			t.Errorf("locale with %v = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestSystemVarsAnswerEveryName(t *testing.T) {
	vars := SystemVars()
	for _, name := range []string{"__os__", "__os_family__", "__arch__", "__shell__", "__now__"} {
		if vars(name) == "" {
			t.Errorf("%s is empty on this system", name)
		}
	}
	if _, err := time.Parse(time.RFC3339, vars("__now__")); err != nil {
		t.Errorf("__now__ is not RFC 3339: %v", err)
	}
}

func TestArchNamesAreUnameNames(t *testing.T) {
	for goarch, want := range map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "x86", "arm": "arm",
		"ppc64le": "powerpc64le", "ppc64": "powerpc64", "loong64": "loongarch64", "riscv64": "riscv64", "s390x": "s390x"} {
		if got := (system{goarch: goarch}).value("__arch__"); got != want {
			t.Errorf("%s: __arch__ = %q, want %q", goarch, got, want)
		}
	}
}

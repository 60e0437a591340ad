package role

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Vars returns the value of a system variable, named without its braces
// ("__os__"). Expand calls it only for the variables a text uses, once
// each.
type Vars func(name string) string

// VarNames returns the system variables Expand replaces.
func VarNames() []string {
	return []string{"__os__", "__os_distro__", "__os_family__", "__arch__", "__shell__", "__locale__", "__now__", "__cwd__"}
}

func isVar(name string) bool {
	switch name {
	case "__os__", "__os_distro__", "__os_family__", "__arch__", "__shell__", "__locale__", "__now__", "__cwd__":
		return true
	}
	return false
}

// Expand replaces {{NAME}} for each system variable NAME in text with its
// value from vars (nil: SystemVars). Other {{...}} are left as written, so
// that an agent's {{__tools__}} or a template's {{var}} survive.
func Expand(text string, vars Vars) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	var b strings.Builder
	var cache map[string]string
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+2:], "}}")
		if j < 0 {
			break
		}
		name := text[i+2 : i+2+j]
		if !isVar(name) {
			// Step one brace only: in "{{{__os__}}" the variable starts at the second.
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		if vars == nil {
			vars = SystemVars()
		}
		v, ok := cache[name]
		if !ok {
			v = vars(name)
			if cache == nil {
				cache = map[string]string{}
			}
			cache[name] = v
		}
		b.WriteString(text[:i])
		b.WriteString(v)
		text = text[i+2+j+2:]
	}
	b.WriteString(text)
	return b.String()
}

// SystemVars returns the system variables of the running system. Each is
// computed when asked for, from the environment and the system at that
// moment.
func SystemVars() Vars {
	s := system{
		getenv:   os.Getenv,
		now:      time.Now,
		getwd:    os.Getwd,
		readFile: os.ReadFile,
		goos:     runtime.GOOS,
		goarch:   runtime.GOARCH,
	}
	return s.value
}

// system is where the system variables come from; tests replace each part.
type system struct {
	getenv   func(string) string
	now      func() time.Time
	getwd    func() (string, error)
	readFile func(string) ([]byte, error)
	goos     string
	goarch   string
}

func (s system) value(name string) string {
	switch name {
	case "__os__":
		return osName(s.goos)
	case "__os_distro__":
		if s.goos != "linux" {
			return osName(s.goos)
		}
		return s.distro()
	case "__os_family__":
		if s.goos == "windows" {
			return "windows"
		}
		return "unix"
	case "__arch__":
		return archName(s.goarch)
	case "__shell__":
		return s.shell()
	case "__locale__":
		return s.locale()
	case "__now__":
		// RFC 3339 to the second, with a numeric offset even in UTC.
		return s.now().Format("2006-01-02T15:04:05-07:00")
	case "__cwd__":
		dir, err := s.getwd()
		if err != nil {
			return ""
		}
		return dir
	}
	return ""
}

// osName names an OS as users (and the original) do: "macos", not "darwin".
func osName(goos string) string {
	if goos == "darwin" {
		return "macos"
	}
	return goos
}

// archName names a CPU architecture as uname -m does.
func archName(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "x86"
	case "ppc64le":
		return "powerpc64le"
	case "ppc64":
		return "powerpc64"
	case "loong64":
		return "loongarch64"
	}
	return goarch
}

// distro describes a Linux distribution from os-release: its PRETTY_NAME,
// else NAME and VERSION_ID, else "Linux".
func (s system) distro() string {
	for _, path := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		data, err := s.readFile(path)
		if err != nil {
			continue
		}
		if d := parseOSRelease(string(data)); d != "" {
			return d
		}
	}
	return "Linux"
}

func parseOSRelease(text string) string {
	vals := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else {
			v = strings.Trim(v, `"'`)
		}
		vals[k] = v
	}
	if v := vals["PRETTY_NAME"]; v != "" {
		return v
	}
	return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION_ID"])
}

// shell names the user's shell: the base name (without extension, lower
// case) of $COYOTE_SHELL or $SHELL, "nushell" for nu; on Windows
// PowerShell when it is the parent environment, else cmd; "sh" when
// nothing says.
func (s system) shell() string {
	cmd := s.getenv("COYOTE_SHELL")
	if cmd == "" && s.goos != "windows" {
		cmd = s.getenv("SHELL")
	}
	if cmd == "" && s.goos == "windows" {
		if p := strings.ToLower(s.getenv("PSModulePath")); p != "" {
			if strings.Contains(p, `\powershell\7\`) {
				return "pwsh"
			}
			return "powershell"
		}
		return "cmd"
	}
	if cmd == "" {
		return "sh"
	}
	base := cmd
	if k := strings.LastIndexAny(base, `/\`); k >= 0 {
		base = base[k+1:]
	}
	base = strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
	switch base {
	case "":
		return "sh"
	case "nu":
		return "nushell"
	}
	return base
}

// locale is the user's language as a BCP 47 tag ("en-US") from LC_ALL,
// LC_MESSAGES or LANG; "C" and "POSIX" say nothing and are skipped.
func (s system) locale() string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := s.getenv(k)
		v, _, _ = strings.Cut(v, ".")
		v, _, _ = strings.Cut(v, "@")
		if v == "" || v == "C" || v == "POSIX" {
			continue
		}
		return strings.ReplaceAll(v, "_", "-")
	}
	return ""
}

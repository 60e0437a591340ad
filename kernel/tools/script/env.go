package script

import (
	"runtime"
	"strings"
)

// allowedEnv are the variables of the kernel's environment a tool may see
// (the package comment lists them with the prefixes).
var allowedEnv = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "PWD": true,
	"TMPDIR": true, "TMP": true, "TEMP": true, "TZ": true, "LANG": true, "LANGUAGE": true,
	"TERM": true, "COLORTERM": true, "NO_COLOR": true, "EDITOR": true, "VISUAL": true, "PAGER": true,
	"AUTO_CONFIRM": true, "COYOTE_TOOL_TIMEOUT": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_RUNTIME_DIR": true,
	// Windows needs these to start processes and find its own directories.
	"SYSTEMROOT": true, "SystemRoot": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true,
}

// allowedPrefixes are allowed as families, unless the name looks like a
// credential.
var allowedPrefixes = []string{"LLM_", "LC_"}

// credentialWords in a name mark a credential.
var credentialWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"}

// ScrubEnv returns the part of environ (KEY=value entries) a tool may
// see: the allow-listed variables, minus any whose value is one of
// secretValues (empty secret values are ignored).
func ScrubEnv(environ []string, secretValues []string) []string {
	return scrubEnv(environ, secretValues, nil)
}

// scrubEnv is ScrubEnv that also lets through the names in extra.
func scrubEnv(environ, secretValues []string, extra map[string]bool) []string {
	secret := make(map[string]bool, len(secretValues))
	for _, s := range secretValues {
		if s != "" {
			secret[s] = true
		}
	}
	out := make([]string, 0, 24)
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || secret[v] {
			continue
		}
		if envAllowed(k) || extra[k] {
			out = append(out, kv)
		}
	}
	return out
}

func envAllowed(k string) bool {
	if allowedEnv[k] || runtime.GOOS == "windows" && allowedEnv[strings.ToUpper(k)] {
		return true
	}
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(k, p) {
			up := strings.ToUpper(k)
			for _, w := range credentialWords {
				if strings.Contains(up, w) {
					return false
				}
			}
			return true
		}
	}
	return false
}

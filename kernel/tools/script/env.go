package script

import (
	"runtime"
	"strings"
)

// allowedEnv are the variables of the kernel's environment every tool
// sees (the package comment says why each is there). Nothing else is
// inherited: a name is not judged by whether it looks like a credential.
var allowedEnv = map[string]bool{
	// Finding programs, the user and the files they own.
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "PWD": true,
	"TMPDIR": true, "TMP": true, "TEMP": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_RUNTIME_DIR": true,
	// Language, time and the terminal.
	"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "COLORTERM": true, "NO_COLOR": true,
	"LC_ALL": true, "LC_CTYPE": true, "LC_COLLATE": true, "LC_MESSAGES": true, "LC_MONETARY": true,
	"LC_NUMERIC": true, "LC_TIME": true, "LC_ADDRESS": true, "LC_IDENTIFICATION": true,
	"LC_MEASUREMENT": true, "LC_NAME": true, "LC_PAPER": true, "LC_TELEPHONE": true,
	// The user's editor and pager.
	"EDITOR": true, "VISUAL": true, "PAGER": true,
	// The network: proxies (credentials removed, see proxyEnv) and the
	// certificate authorities of a company's proxy.
	"NO_PROXY": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "REQUESTS_CA_BUNDLE": true, "CURL_CA_BUNDLE": true,
	"NODE_EXTRA_CA_CERTS": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true,
	// Windows needs these to start processes and find its own directories.
	"SYSTEMROOT": true, "SystemRoot": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true,
}

// proxyEnv are the proxy variables: passed with the user name and password
// of the URL removed.
var proxyEnv = map[string]bool{
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "FTP_PROXY": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true, "ftp_proxy": true,
}

// reservedEnv are never taken from the kernel's environment, whatever
// allows them: AUTO_CONFIRM turns a tool's confirmations off, and only
// Coyote's own flag may do that (Runner.AutoConfirm).
var reservedEnv = map[string]bool{"AUTO_CONFIRM": true}

// EnvPolicy says which variables of the kernel's environment a tool sees
// beyond the fixed allow-list.
type EnvPolicy struct {
	// Pass lists more names to pass as they are (tool_env_passthrough):
	// exact names, or a prefix ending in * (AWS_*). A proxy variable named
	// here keeps its credentials.
	Pass []string
	// Declared are the names a tool declares with @env: passed too, a
	// proxy's credentials removed.
	Declared map[string]bool
	// Secrets are values no variable may have (the clients' API keys):
	// a variable with one of them is dropped whatever its name.
	Secrets []string
}

// ScrubEnv returns the part of environ (KEY=value entries) a tool may
// see under p: the allow-listed variables, the proxy variables without
// credentials, and the names p passes, minus AUTO_CONFIRM and any whose
// value is one of p's secrets.
func ScrubEnv(environ []string, p EnvPolicy) []string {
	secret := make(map[string]bool, len(p.Secrets))
	for _, s := range p.Secrets {
		if s != "" {
			secret[s] = true
		}
	}
	out := make([]string, 0, 24)
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || secret[v] || inSet(reservedEnv, k) {
			continue
		}
		switch {
		case Passes(p.Pass, k):
			out = append(out, kv)
		case inSet(proxyEnv, k):
			out = append(out, k+"="+WithoutUserinfo(v))
		case inSet(allowedEnv, k) || p.Declared[k]:
			out = append(out, kv)
		}
	}
	return out
}

// inSet looks k up in set, ignoring case on Windows, where names are.
func inSet(set map[string]bool, k string) bool {
	return set[k] || runtime.GOOS == "windows" && set[strings.ToUpper(k)]
}

// Passes reports whether a tool_env_passthrough list names k: exactly, or
// by a prefix that ends in *. A lone * names nothing (passing everything
// would undo the allow-list; list the names).
func Passes(list []string, k string) bool {
	for _, n := range list {
		n = strings.TrimSpace(n)
		if prefix, ok := strings.CutSuffix(n, "*"); ok {
			if prefix != "" && strings.HasPrefix(k, prefix) {
				return true
			}
			continue
		}
		if n == k || runtime.GOOS == "windows" && strings.EqualFold(n, k) {
			return true
		}
	}
	return false
}

// WithoutUserinfo returns a proxy URL without its user name and password:
// everything between the scheme (if any) and the last @ goes, so that a
// password holding an unescaped @, / or : is removed whole. A value
// without an @ is returned as it is.
func WithoutUserinfo(v string) string {
	at := strings.LastIndexByte(v, '@')
	if at < 0 {
		return v
	}
	scheme := ""
	if i := strings.Index(v, "://"); i >= 0 && i < at {
		scheme = v[:i+3]
	}
	return scheme + v[at+1:]
}

package script

import (
	"runtime"
	"strings"

	"github.com/coyote-cli/coyote/kernel/envlist"
)

// toolEnv are the variables a tool sees beyond envlist.Base, the list it
// shares with plugins: the working directory, and the user's editor and
// pager. Nothing else is inherited: a name is not judged by whether it
// looks like a credential.
var toolEnv = envlist.Names{"PWD": true, "EDITOR": true, "VISUAL": true, "PAGER": true}

// proxyEnv are the proxy variables: passed with the user name and password
// of the URL removed.
var proxyEnv = envlist.Names{
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "FTP_PROXY": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true, "ftp_proxy": true,
}

// reservedEnv are never taken from the kernel's environment, whatever
// allows them: AUTO_CONFIRM turns a tool's confirmations off, and only
// Coyote's own flag may do that (Runner.AutoConfirm).
var reservedEnv = envlist.Names{"AUTO_CONFIRM": true}

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
		if !ok || k == "" || secret[v] || reservedEnv.Has(k) {
			continue
		}
		switch {
		case Passes(p.Pass, k):
			out = append(out, kv)
		case proxyEnv.Has(k):
			out = append(out, k+"="+WithoutUserinfo(v))
		case envlist.Base.Has(k) || toolEnv.Has(k) || p.Declared[k]:
			out = append(out, kv)
		}
	}
	return out
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

// Package envlist holds the environment variables that every process
// coyote starts may inherit from the kernel: plugins (kernel/plugins) and
// tool scripts (kernel/tools/script) both start from Base and add their
// own rules, so the two cannot drift apart. It decides names only; it
// never reads the environment, and what each side adds (proxies with or
// without their credentials, a tool's @env names, tool_env_passthrough)
// stays with that side.
//
// Base holds, and nothing else is inherited by name:
//
//   - PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, TMP, TEMP,
//     XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR:
//     finding programs, the user and their files;
//   - LANG, LANGUAGE, the locale categories (LC_ALL, LC_CTYPE, LC_COLLATE,
//     LC_MESSAGES, LC_MONETARY, LC_NUMERIC, LC_TIME, LC_ADDRESS,
//     LC_IDENTIFICATION, LC_MEASUREMENT, LC_NAME, LC_PAPER, LC_TELEPHONE)
//     and TZ: how text and times look. The categories are listed rather
//     than every LC_* name, which anything may use;
//   - TERM, COLORTERM, NO_COLOR: what may be printed;
//   - NO_PROXY: which hosts skip the proxy (the proxy variables are each
//     side's own rule);
//   - SSL_CERT_FILE, SSL_CERT_DIR, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE,
//     NODE_EXTRA_CA_CERTS, GIT_SSL_CAINFO, GIT_SSL_CAPATH: the certificate
//     authorities of a company's proxy, for Go, Python, curl, Node.js and
//     git;
//   - SYSTEMROOT, WINDIR, COMSPEC, PATHEXT, APPDATA, LOCALAPPDATA,
//     USERPROFILE: what a process needs on Windows to start and find its
//     own directories.
package envlist

import (
	"runtime"
	"strings"
)

// Names is a set of environment variable names.
type Names map[string]bool

// Has reports whether the set holds k. On Windows, where the names of
// variables ignore case, an upper-case entry also matches k in any case.
func (n Names) Has(k string) bool {
	return n[k] || runtime.GOOS == "windows" && n[strings.ToUpper(k)]
}

// Base are the variables every process coyote starts may inherit (the
// package comment says why each is there).
var Base = Names{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TMPDIR": true, "TMP": true, "TEMP": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_RUNTIME_DIR": true,

	"LANG": true, "LANGUAGE": true, "TZ": true,
	"LC_ALL": true, "LC_CTYPE": true, "LC_COLLATE": true, "LC_MESSAGES": true, "LC_MONETARY": true,
	"LC_NUMERIC": true, "LC_TIME": true, "LC_ADDRESS": true, "LC_IDENTIFICATION": true,
	"LC_MEASUREMENT": true, "LC_NAME": true, "LC_PAPER": true, "LC_TELEPHONE": true,

	"TERM": true, "COLORTERM": true, "NO_COLOR": true,

	"NO_PROXY": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "REQUESTS_CA_BUNDLE": true, "CURL_CA_BUNDLE": true,
	"NODE_EXTRA_CA_CERTS": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true,

	"SYSTEMROOT": true, "SystemRoot": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true,
}

// Filter returns the entries ("K=V") of environ whose names are in Base.
func Filter(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok && Base.Has(k) {
			out = append(out, kv)
		}
	}
	return out
}

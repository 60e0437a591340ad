package mcp

import (
	"errors"
	"net/url"
	"sort"
	"strings"
)

// The bridge gets each server's config with its vault secrets filled in
// (it has to: it runs the command, sends the headers). Whatever comes
// back from it (an error, a tool's failure text) may repeat one of them:
// a URL in a connection error, a server's last line of stderr echoing its
// arguments. Those texts go to the model, and so to the provider, as tool
// results; the manager replaces every secret it resolved with its
// placeholder before they do. The bridge also masks what it can see is
// secret (URL query values and userinfo, header values), which covers a
// bridge used without this kernel; only the kernel knows which values
// came from the vault.

// minSecret is the shortest secret that is masked: shorter values are
// indistinguishable from ordinary text ("1", "on") and masking them
// would garble every message.
const minSecret = 4

// secretMask replaces the secrets of the servers' configs in text by
// their placeholders ({{NAME}}). The zero value masks nothing.
type secretMask struct {
	r *strings.Replacer
}

// newSecretMask masks the given secrets (name → value), each also in the
// forms a URL gives it (query and path escaped).
func newSecretMask(secrets map[string]string) secretMask {
	type pair struct{ old, new string }
	var ps []pair
	seen := map[string]bool{}
	for name, v := range secrets {
		if len(v) < minSecret {
			continue
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			if !seen[form] {
				seen[form] = true
				ps = append(ps, pair{form, "{{" + name + "}}"})
			}
		}
	}
	if len(ps) == 0 {
		return secretMask{}
	}
	// Longest first: a secret that contains another is replaced whole.
	sort.Slice(ps, func(i, j int) bool {
		if len(ps[i].old) != len(ps[j].old) {
			return len(ps[i].old) > len(ps[j].old)
		}
		return ps[i].old < ps[j].old
	})
	args := make([]string, 0, 2*len(ps))
	for _, p := range ps {
		args = append(args, p.old, p.new)
	}
	return secretMask{r: strings.NewReplacer(args...)}
}

// text returns s with the secrets masked.
func (m secretMask) text(s string) string {
	if m.r == nil {
		return s
	}
	return m.r.Replace(s)
}

// err returns err with the secrets masked in its message. The result
// matches (errors.Is) what err matched but does not unwrap to it, so the
// unmasked message cannot be reached through it.
func (m secretMask) err(err error) error {
	if err == nil || m.r == nil {
		return err
	}
	msg := err.Error()
	if clean := m.text(msg); clean != msg {
		return &maskedError{msg: clean, orig: err}
	}
	return err
}

// maskedError is an error whose message had secrets masked.
type maskedError struct {
	msg  string
	orig error
}

func (e *maskedError) Error() string { return e.msg }

// Is matches what the original error matches (sdk sentinels, context
// errors).
func (e *maskedError) Is(target error) bool { return errors.Is(e.orig, target) }

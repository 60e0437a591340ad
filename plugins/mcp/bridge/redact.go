package bridge

import (
	"errors"
	"net/url"
	"sort"
	"strings"

	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// The bridge receives each server's config with its vault secrets filled
// in, and its errors go back to the kernel, which hands some of them to
// the model as tool results: they must not repeat those secrets. A
// remote server's URL is shown without its userinfo and with its query
// values masked, and the values of its URL's query and userinfo and of
// its static headers are masked wherever else they appear in a message
// (a library may print them its own way). The kernel masks, in addition,
// every vault secret it resolved, whatever field held it: only it knows
// which values were secrets.

// mask replaces a hidden value.
const mask = "***"

// minMasked is the shortest value masked outside of the URL itself:
// shorter values ("1", "on") are not secrets, and masking them would
// garble the message (a port, a count).
const minMasked = 4

// redactURL returns raw with no userinfo and every query value masked;
// the fragment is dropped. A string that does not parse as a URL is not
// shown at all.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(the url in mcp.json)"
	}
	v := *u
	v.User = nil
	v.Fragment, v.RawFragment = "", ""
	q := v.RawQuery
	v.RawQuery, v.ForceQuery = "", false
	s := v.String()
	if q == "" {
		return s
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, hasValue := strings.Cut(p, "="); hasValue {
			parts[i] = k + "=" + mask
		} else if p != "" {
			parts[i] = mask
		}
	}
	return s + "?" + strings.Join(parts, "&")
}

// redactor hides one server's secrets in messages.
type redactor struct {
	pairs []string // old, new, ... for strings.NewReplacer, longest first
}

// newRedactor returns the redactor of a server's config: its URL (as
// written and as net/url prints it) becomes the redacted URL; its query
// values, userinfo and static header values are masked anywhere.
func newRedactor(c *mcpbridge.ServerConfig) *redactor {
	type pair struct{ old, new string }
	var ps []pair
	seen := map[string]bool{}
	add := func(old, new string) {
		if old == "" || seen[old] {
			return
		}
		seen[old] = true
		ps = append(ps, pair{old, new})
	}
	value := func(v string) {
		if len(v) < minMasked {
			return
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			add(form, mask)
		}
	}
	if c.URL != "" {
		red := redactURL(c.URL)
		if red != c.URL {
			add(c.URL, red)
		}
		if u, err := url.Parse(c.URL); err == nil {
			forms := []string{u.String()}
			if _, ok := u.User.Password(); ok {
				// net/http's errors show the password as "***",
				// URL.Redacted as "xxxxx".
				forms = append(forms, u.Redacted(),
					strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1))
			}
			for _, s := range forms {
				if s != red {
					add(s, red)
				}
			}
			if u.User != nil {
				value(u.User.Username())
				if p, ok := u.User.Password(); ok {
					value(p)
				}
				value(u.User.String())
			}
			for _, p := range strings.Split(u.RawQuery, "&") {
				_, raw, ok := strings.Cut(p, "=")
				if !ok {
					continue
				}
				value(raw)
				if dec, err := url.QueryUnescape(raw); err == nil {
					value(dec)
				}
			}
		}
	}
	for _, v := range c.Headers {
		value(v)
		for _, word := range strings.Fields(v) {
			value(word)
		}
	}
	// Longest first, so that a value inside another is not replaced
	// before the one that holds it.
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].old) > len(ps[j].old) })
	r := &redactor{}
	for _, p := range ps {
		r.pairs = append(r.pairs, p.old, p.new)
	}
	return r
}

// text returns s with the server's secrets hidden.
func (r *redactor) text(s string) string {
	if r == nil || len(r.pairs) == 0 {
		return s
	}
	return strings.NewReplacer(r.pairs...).Replace(s)
}

// err returns err with the server's secrets hidden from its message; the
// result still matches (errors.Is) what err matched, but does not unwrap
// to it, so the original message cannot be reached through it.
func (r *redactor) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := r.text(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, orig: err}
}

// redactedError is an error whose message had secrets hidden.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

// Is matches what the original error matches (sdk sentinels, context
// errors).
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

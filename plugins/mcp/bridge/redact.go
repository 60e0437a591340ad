package bridge

import (
	"net/url"
	"strings"

	"github.com/coyote-cli/coyote/sdk/mcpbridge"
	"github.com/coyote-cli/coyote/sdk/redact"
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

// newRedactor returns the redactor of a server's config: its URL (as
// written and as net/url and net/http print it) becomes the redacted URL;
// its query values, userinfo and static header values are masked
// anywhere. The bridge builds one per server at Configure.
func newRedactor(c *mcpbridge.ServerConfig) *redact.Redactor {
	r := &redact.Redactor{}
	value := func(v string) { r.Add(v, mask) }
	if c.URL != "" {
		red := redactURL(c.URL)
		forms := []string{c.URL}
		u, err := url.Parse(c.URL)
		if err == nil {
			forms = append(forms, u.String())
			if _, ok := u.User.Password(); ok {
				// net/http's errors show the password as "***",
				// URL.Redacted as "xxxxx".
				forms = append(forms, u.Redacted(),
					strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1))
			}
		}
		for _, s := range forms {
			if s != red {
				r.Add(s, red)
			}
		}
		if err == nil {
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
	return r
}

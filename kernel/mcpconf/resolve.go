package mcpconf

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// Lookup returns a secret's value, or an error matching vault.ErrNotFound
// when the vault does not have it (vault.Vault.Get does both).
type Lookup func(name string) (string, error)

// MissingSecretError says which secrets a server refers to that the vault
// does not have, and how to add them. It matches vault.ErrNotFound.
type MissingSecretError struct {
	Server string
	Path   string // the server's file
	Names  []string
}

func (e *MissingSecretError) Unwrap() error { return vault.ErrNotFound }

func (e *MissingSecretError) Error() string {
	if len(e.Names) == 1 {
		return fmt.Sprintf("MCP server %q (%s) needs the secret %s, which is not in the vault: add it with coyote --add-secret %s",
			e.Server, e.Path, e.Names[0], e.Names[0])
	}
	return fmt.Sprintf("MCP server %q (%s) needs the secrets %s, which are not in the vault: add each with coyote --add-secret NAME",
		e.Server, e.Path, strings.Join(e.Names, ", "))
}

// Placeholders returns the names of the secrets the server refers to, in
// the order they first appear, each once.
func (s *Server) Placeholders() []string {
	var names []string
	seen := map[string]bool{}
	s.eachString(func(v string) {
		for _, line := range strings.Split(v, "\n") {
			for _, n := range vault.Placeholders(uncomment(line)) {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
	})
	return names
}

// eachString calls fn with every string of the server that may hold
// placeholders: command, args, env values, cwd, url, header values and the
// oauth fields.
func (s *Server) eachString(fn func(string)) {
	fn(s.Command)
	for _, a := range s.Args {
		fn(a)
	}
	for _, e := range s.Env {
		fn(e.Value.String())
	}
	fn(s.Cwd)
	fn(s.URL)
	for _, h := range s.Headers {
		fn(h.Value)
	}
	if s.OAuth != nil {
		fn(s.OAuth.ClientID)
		fn(s.OAuth.ClientSecret)
		fn(s.OAuth.RedirectHost)
	}
}

// uncomment keeps a line that starts with "#" from being taken for a
// comment by the vault's scanner, which is meant for config.yaml: in JSON
// every string is a value. The added byte is never part of a placeholder.
func uncomment(line string) string { return "\x00" + line }

// Resolve replaces the placeholders of every string of the entry with
// their secrets and returns the server as the MCP bridge takes it. Secrets
// the vault lacks are all named in one *MissingSecretError; another error
// of lookup (no password file, wrong password) is returned wrapped with
// the server's name.
func (e Entry) Resolve(lookup Lookup) (mcpbridge.ServerConfig, error) {
	lookup = memo(lookup)
	var missing []string
	var failed error
	get := func(name string) (string, error) {
		v, err := lookup(name)
		if errors.Is(err, vault.ErrNotFound) {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return "", nil
		}
		return v, err
	}
	sub := func(text string) string {
		if failed != nil || !strings.Contains(text, "{{") {
			return text
		}
		lines := strings.Split(text, "\n")
		for i, line := range lines {
			out, err := vault.Interpolate(uncomment(line), get)
			if err != nil {
				failed = err
				return ""
			}
			lines[i] = out[1:]
		}
		return strings.Join(lines, "\n")
	}
	s := e.Server
	c := mcpbridge.ServerConfig{
		Name:    s.Name,
		Type:    s.Transport(),
		Command: sub(s.Command),
		Cwd:     sub(s.Cwd),
		URL:     sub(s.URL),
	}
	for _, a := range s.Args {
		c.Args = append(c.Args, sub(a))
	}
	if len(s.Env) > 0 {
		c.Env = make(map[string]string, len(s.Env))
		for _, v := range s.Env {
			c.Env[v.Name] = sub(v.Value.String())
		}
	}
	if len(s.Headers) > 0 {
		c.Headers = make(map[string]string, len(s.Headers))
		for _, h := range s.Headers {
			c.Headers[h.Name] = sub(h.Value)
		}
	}
	if o := s.OAuth; o != nil {
		c.OAuth = &mcpbridge.OAuthConfig{
			ClientID:     sub(o.ClientID),
			ClientSecret: sub(o.ClientSecret),
			CallbackPort: o.CallbackPort,
			RedirectHost: sub(o.RedirectHost),
		}
	}
	if failed != nil {
		return mcpbridge.ServerConfig{}, fmt.Errorf("MCP server %q: %w", s.Name, failed)
	}
	if len(missing) > 0 {
		return mcpbridge.ServerConfig{}, &MissingSecretError{Server: s.Name, Path: e.Path, Names: missing}
	}
	if c.URL != "" && strings.Contains(s.URL, "{{") {
		if err := checkURL(c.URL); err != nil {
			// Never show the resolved URL: it holds a secret.
			return mcpbridge.ServerConfig{}, fmt.Errorf("MCP server %q (%s): \"url\" %q is not an http:// or https:// URL once its secrets are filled in", s.Name, e.Path, s.URL)
		}
	}
	return c, nil
}

// Resolve resolves every entry (see Entry.Resolve): the servers that
// resolve, in order, and why each other one does not, by server name. The
// vault is asked once per secret, however many servers use it.
func Resolve(entries []Entry, lookup Lookup) (servers []mcpbridge.ServerConfig, failed map[string]error) {
	lookup = memo(lookup)
	servers = make([]mcpbridge.ServerConfig, 0, len(entries))
	for _, e := range entries {
		c, err := e.Resolve(lookup)
		if err != nil {
			if failed == nil {
				failed = map[string]error{}
			}
			failed[e.Name] = err
			continue
		}
		servers = append(servers, c)
	}
	return servers, failed
}

// memo returns a lookup that asks lookup once per name and remembers the
// answer, a missing secret included (not safe for concurrent use).
func memo(lookup Lookup) Lookup {
	type answer struct {
		value string
		err   error
	}
	seen := map[string]answer{}
	return func(name string) (string, error) {
		if a, ok := seen[name]; ok {
			return a.value, a.err
		}
		v, err := lookup(name)
		seen[name] = answer{v, err}
		return v, err
	}
}

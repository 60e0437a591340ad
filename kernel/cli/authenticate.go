package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/browser"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/oauth"
)

// authPick is --authenticate's value when it is given without a client:
// the only OAuth client, or a choice among several.
const authPick = "*"

// attachLogins gives every `auth: oauth` client of cfg its login, whose
// token the client's plugin is configured with instead of a key.
func (f *Factory) attachLogins(cfg *config.Config, p config.Paths) {
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		if !c.UsesOAuth() {
			continue
		}
		l, err := f.loginFor(c, p)
		if err != nil {
			c.Token = func(context.Context, bool) (string, error) { return "", err }
			continue
		}
		c.Token = l.Token
	}
}

// loginFor returns the client's login, one per client and run, so that a
// token refreshed or obtained in the REPL is the one every request uses.
func (f *Factory) loginFor(c *config.Client, p config.Paths) (*oauth.Login, error) {
	prov, err := oauth.ForClient(c.Type, c.Name, c.Options["oauth"])
	if err != nil {
		return nil, fmt.Errorf("client %q (auth: oauth): %w", c.Name, err)
	}
	f.loginMu.Lock()
	defer f.loginMu.Unlock()
	if l, ok := f.logins[c.Name]; ok && reflect.DeepEqual(l.Provider, prov) {
		return l, nil
	}
	l := &oauth.Login{
		Client:   c.Name,
		Provider: prov,
		Dir:      filepath.Join(p.CacheDir, "oauth"),
		Open:     browser.Open,
		Out:      f.IO.ErrOut,
		ReadCode: func(prompt string) (string, error) { return ask(f, prompt) },
	}
	if f.logins == nil {
		f.logins = map[string]*oauth.Login{}
	}
	f.logins[c.Name] = l
	return l, nil
}

// oauthClients lists the clients that log in with OAuth.
func oauthClients(cfg *config.Config) []*config.Client {
	var out []*config.Client
	for i := range cfg.Clients {
		if cfg.Clients[i].UsesOAuth() {
			out = append(out, &cfg.Clients[i])
		}
	}
	return out
}

func clientNames(cs []*config.Client) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// runAuthenticate is --authenticate [CLIENT]: log a client in with OAuth
// and cache its token. Without a client, the only OAuth client is logged
// in, or the user picks one of several (which needs a terminal).
func runAuthenticate(ctx context.Context, f *Factory, name string, args []string) error {
	if len(args) > 0 {
		return &UsageError{Err: fmt.Errorf("--authenticate takes one client name (--authenticate=CLIENT), not %q", strings.Join(args, " "))}
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	c, err := chooseOAuthClient(f, cfg, name)
	if err != nil || c == nil {
		return err
	}
	return authenticate(ctx, f, c, f.IO.ErrOut, nil)
}

// chooseOAuthClient finds the client to log in: the one named, or the
// only one, or the user's pick. nil without an error: the user quit.
func chooseOAuthClient(f *Factory, cfg *config.Config, name string) (*config.Client, error) {
	clients := oauthClients(cfg)
	if name != authPick {
		c, ok := cfg.Client(name)
		switch {
		case !ok && len(clients) > 0:
			return nil, fmt.Errorf("there is no client named %q; the clients that log in with OAuth are: %s", name, clientNames(clients))
		case !ok:
			return nil, fmt.Errorf("there is no client named %q (clients: %s)", name, cfg.ClientNames())
		case !c.UsesOAuth():
			return nil, fmt.Errorf("client %q does not log in with OAuth: set `auth: oauth` on it in config.yaml (see the README's Logins section)", name)
		}
		return c, nil
	}
	switch {
	case len(clients) == 0:
		return nil, errors.New("no client logs in with OAuth: set `auth: oauth` on one in config.yaml (see the README's Logins section)")
	case len(clients) == 1:
		return clients[0], nil
	case !f.IO.IsStdinTTY() || !f.IO.IsStderrTTY():
		return nil, fmt.Errorf("several clients log in with OAuth (%s): name one, as in coyote --authenticate %s (choosing needs a terminal)", clientNames(clients), clients[0].Name)
	}
	var b strings.Builder
	b.WriteString("Clients that log in with OAuth:\n")
	for i, c := range clients {
		fmt.Fprintf(&b, "  %d) %s (%s)\n", i+1, c.Name, c.Type)
	}
	fmt.Fprint(f.IO.ErrOut, b.String())
	for {
		answer, err := ask(f, fmt.Sprintf("Which one? [1-%d, q to quit]: ", len(clients)))
		if err != nil {
			return nil, err
		}
		answer = strings.ToLower(strings.TrimSpace(answer))
		if answer == "" || answer == "q" || answer == "quit" {
			return nil, nil
		}
		if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(clients) {
			return clients[n-1], nil
		}
		for _, c := range clients {
			if strings.EqualFold(c.Name, answer) {
				return c, nil
			}
		}
	}
}

// authenticate logs c in, talking to the user on out; readCode, when not
// nil, reads a pasted code (the REPL's line editor).
func authenticate(ctx context.Context, f *Factory, c *config.Client, out io.Writer, readCode func(string) (string, error)) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	l, err := f.loginFor(c, p)
	if err != nil {
		return err
	}
	if readCode == nil {
		readCode = l.ReadCode
	}
	if err := l.AuthenticateVia(ctx, out, readCode); err != nil {
		return err
	}
	fmt.Fprintf(out, "Logged in: client %s now uses its OAuth login (token cached in %s).\n", c.Name, l.Path())
	return nil
}

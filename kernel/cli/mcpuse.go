package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/coyote-cli/coyote/kernel/mcp"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// MCP returns the run's MCP servers: mcp.json (user, and the workspace's
// unless noWorkspace) is read on first need, and the bridge plugin
// (coyote-mcp) starts when a server is first used.
func (f *Factory) MCP(noWorkspace bool) *mcp.Manager {
	f.mcpOnce.Do(func() {
		p, perr := f.Paths()
		f.mcp = mcp.New(mcp.Options{
			Load: func() (*mcpconf.Set, error) {
				if perr != nil {
					return nil, perr
				}
				return mcpconf.LoadPaths(p, noWorkspace)
			},
			Secret: func(name string) (string, error) { return f.secrets(name, "") },
			Bridge: func() (mcpbridge.Bridge, error) {
				h, err := f.Host()
				if err != nil {
					return nil, err
				}
				return h.MCP()
			},
			OAuthDir: filepath.Join(p.CacheDir, "oauth"),
			Trust:    func(set *mcpconf.Set) error { return f.Trust().Check(set.Subject()) },
			Notice:   func(line string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+line) },
		})
	})
	return f.mcp
}

// runAuthMCP is --auth-mcp SERVER: the OAuth flow of a remote MCP server,
// run by the bridge plugin; the token is stored for later runs.
func runAuthMCP(ctx context.Context, f *Factory, server string, noWorkspace bool, args []string) error {
	if len(args) > 0 {
		return &UsageError{Err: errors.New("--auth-mcp takes no other arguments")}
	}
	return f.MCP(noWorkspace).Authenticate(ctx, server, f.IO.ErrOut)
}

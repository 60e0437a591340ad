package mcpconf

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/trust"
)

// WorkspaceTrust is whether the workspace file's servers may be used.
// The file may start a server with the user's secrets filled in, so one
// that can run a command or names a secret is used only once the user has
// approved it (kernel/trust); the caller decides, when a server of the
// file is first wanted, and tells the Set with DecideWorkspace.
type WorkspaceTrust int

// Workspace trust states.
const (
	// WorkspaceNone: there is no workspace file (or it is turned off).
	WorkspaceNone WorkspaceTrust = iota
	// WorkspaceSafe: its servers only connect to URLs and name no
	// secret: used without approval.
	WorkspaceSafe
	// WorkspacePending: it needs approval, not decided yet: its servers
	// are not used and hide nothing.
	WorkspacePending
	// WorkspaceTrusted: approved.
	WorkspaceTrusted
	// WorkspaceIgnored: not approved in this run: its servers are not
	// used and hide nothing.
	WorkspaceIgnored
)

// WorkspaceTrust is where the workspace file stands.
func (s *Set) WorkspaceTrust() WorkspaceTrust {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trust
}

// WorkspaceUsable reports whether the workspace file's servers may be
// used: it needs no approval, or it was approved.
func (s *Set) WorkspaceUsable() bool {
	t := s.WorkspaceTrust()
	return t == WorkspaceSafe || t == WorkspaceTrusted
}

// DecideWorkspace records the decision about a pending workspace file:
// approved or not, for this Set (a file read again is pending again).
func (s *Set) DecideWorkspace(approved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trust != WorkspacePending {
		return
	}
	s.trust = WorkspaceIgnored
	if approved {
		s.trust = WorkspaceTrusted
	}
}

// WorkspaceProvides reports whether the workspace file has a server that
// wanted accepts (a name that enabled_mcp_servers asks for).
func (s *Set) WorkspaceProvides(wanted func(name string) bool) bool {
	for _, e := range s.Entries {
		if e.Scope == ScopeWorkspace && wanted(e.Name) {
			return true
		}
	}
	return false
}

// Subject is the workspace file as the trust gate shows it: for each
// server, the command it runs (with its environment and directory) or
// the URL it connects to (with its headers), and the user server it
// replaces; the secrets the file names; the hash of the content read.
// Everything is shown as written, placeholders unresolved.
func (s *Set) Subject() trust.Subject {
	sub := trust.Subject{Kind: trust.KindMCP, Path: s.Workspace, Sum: trust.SumOf(s.wsContent)}
	seen := map[string]bool{}
	for _, e := range s.Entries {
		if e.Scope != ScopeWorkspace {
			continue
		}
		srv := e.Server
		if srv.Transport() == Stdio {
			sub.Risky = true
			sub.Lines = append(sub.Lines, fmt.Sprintf("%s: runs %s", srv.Name, trust.Command(append([]string{srv.Command}, srv.Args...)...)))
			if len(srv.Env) > 0 {
				env := make([]string, len(srv.Env))
				for i, v := range srv.Env {
					env[i] = trust.Command(v.Name + "=" + v.Value.String())
				}
				sub.Lines = append(sub.Lines, fmt.Sprintf("%s: with the environment %s", srv.Name, strings.Join(env, " ")))
			}
			if srv.Cwd != "" {
				sub.Lines = append(sub.Lines, fmt.Sprintf("%s: in the directory %s", srv.Name, trust.Command(srv.Cwd)))
			}
		} else {
			sub.Lines = append(sub.Lines, fmt.Sprintf("%s: connects to %s (%s)", srv.Name, srv.Target(), srv.Transport()))
			for _, h := range srv.Headers {
				sub.Lines = append(sub.Lines, fmt.Sprintf("%s: with the header %s: %s", srv.Name, h.Name, h.Value))
			}
		}
		if e.Shadows {
			sub.Lines = append(sub.Lines, fmt.Sprintf("%s: replaces your MCP server %s (%s)", srv.Name, srv.Name, s.User))
		}
		for _, n := range srv.Placeholders() {
			if !seen[n] {
				seen[n] = true
				sub.Secrets = append(sub.Secrets, n)
			}
		}
	}
	return sub
}

// WorkspaceTrustMatch matches the remembered decisions about the files of
// p's workspace, from the current directory: everything under its config
// directory (its mcp.json, its macros) and the workspace candidates
// outside it (./.mcp.json). .workspace untrust and --untrust-workspace
// forget what it matches.
func WorkspaceTrustMatch(p config.Paths) func(trust.Record) bool {
	var files []string
	for _, c := range WorkspaceCandidatesOf(p) {
		if filepath.Dir(c) != filepath.Clean(p.WorkspaceDir) {
			files = append(files, c)
		}
	}
	return trust.Under([]string{p.WorkspaceDir}, files)
}

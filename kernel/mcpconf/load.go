package mcpconf

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/coyote-cli/coyote/kernel/config"
)

// Scopes: the user's file or the workspace's.
const (
	ScopeUser      = "user"
	ScopeWorkspace = "workspace"
)

// UserFile is the user's mcp.json: <functions dir>/mcp.json.
func UserFile(p config.Paths) string {
	return filepath.Join(p.FunctionsDir, "mcp.json")
}

// WorkspaceCandidates are the files that may be the workspace's mcp.json,
// in the order they are tried: mcp.json and .mcp.json in the workspace
// config directory (./.coyote or $COYOTE_WORKSPACE_CONFIG_DIR), then
// .mcp.json in the current directory.
func WorkspaceCandidates(workspaceDir, cwd string) []string {
	return []string{
		filepath.Join(workspaceDir, "mcp.json"),
		filepath.Join(workspaceDir, ".mcp.json"),
		filepath.Join(cwd, ".mcp.json"),
	}
}

// FindWorkspaceFile returns the first workspace candidate that is a file,
// or "" when there is none.
func FindWorkspaceFile(workspaceDir, cwd string) string {
	for _, c := range WorkspaceCandidates(workspaceDir, cwd) {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// WorkspaceFile is the workspace's mcp.json for p, "" when there is none.
func WorkspaceFile(p config.Paths) string {
	return FindWorkspaceFile(p.WorkspaceDir, currentDir())
}

// WorkspaceCandidatesOf is WorkspaceCandidates for p, from the current
// directory.
func WorkspaceCandidatesOf(p config.Paths) []string {
	return WorkspaceCandidates(p.WorkspaceDir, currentDir())
}

// currentDir is the working directory, "." when it cannot be read.
func currentDir() string {
	cwd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return cwd
}

// NewWorkspaceFile is where a workspace mcp.json is created when there is
// none: mcp.json in the workspace config directory.
func NewWorkspaceFile(p config.Paths) string {
	return filepath.Join(p.WorkspaceDir, "mcp.json")
}

// Entry is a server with the file it comes from.
type Entry struct {
	*Server
	Scope string // ScopeUser or ScopeWorkspace
	Path  string // its file
	// Shadowed: a user server hidden by the workspace server of the same
	// name.
	Shadowed bool
	// Shadows: a workspace server that hides the user server of the same
	// name.
	Shadows bool
}

// Set is the merged servers of both scopes.
type Set struct {
	// User and Workspace are the files read ("" for a workspace without
	// one, or with workspace servers turned off).
	User, Workspace string
	// Entries are the user servers in file order, then the workspace ones,
	// shadowed ones included (and marked). Shadowed and Shadows say what
	// the files declare: a workspace server hides the user one only once
	// its file may be used (see WorkspaceTrust).
	Entries []Entry

	// wsContent is the workspace file's content, as parsed.
	wsContent []byte
	mu        sync.Mutex
	trust     WorkspaceTrust
}

// Load reads the user file and, unless noWorkspace, the workspace file
// (either path may be "" or name a file that does not exist: no servers),
// and merges them: a workspace server hides the user server of the same
// name. An error names the file, and the line when it can.
func Load(userPath, workspacePath string, noWorkspace bool) (*Set, error) {
	s := &Set{User: userPath}
	var user, ws *File
	var err error
	if userPath != "" {
		if user, err = ReadFile(userPath); err != nil {
			return nil, err
		}
	}
	if !noWorkspace && workspacePath != "" {
		s.Workspace = workspacePath
		if ws, err = ReadFile(workspacePath); err != nil {
			return nil, err
		}
	}
	inWorkspace := map[string]bool{}
	if ws != nil {
		for _, srv := range ws.Servers {
			inWorkspace[srv.Name] = true
		}
	}
	inUser := map[string]bool{}
	if user != nil {
		for _, srv := range user.Servers {
			inUser[srv.Name] = true
			s.Entries = append(s.Entries, Entry{Server: srv, Scope: ScopeUser, Path: userPath, Shadowed: inWorkspace[srv.Name]})
		}
	}
	if ws != nil {
		s.wsContent = ws.loaded
		for _, srv := range ws.Servers {
			s.Entries = append(s.Entries, Entry{Server: srv, Scope: ScopeWorkspace, Path: workspacePath, Shadows: inUser[srv.Name]})
		}
		// The gate's own rule decides, on what the question would show.
		s.trust = WorkspaceSafe
		if s.Subject().NeedsTrust() {
			s.trust = WorkspacePending
		}
	}
	return s, nil
}

// LoadPaths is Load with the files of p (the workspace file found from the
// current directory).
func LoadPaths(p config.Paths, noWorkspace bool) (*Set, error) {
	ws := ""
	if !noWorkspace {
		ws = WorkspaceFile(p)
	}
	return Load(UserFile(p), ws, noWorkspace)
}

// Active returns the servers that may be used: the user servers not
// hidden by a workspace one, then the workspace servers, when the
// workspace file may be used (WorkspaceUsable); else the user servers
// alone, none hidden.
func (s *Set) Active() []Entry {
	usable := s.WorkspaceUsable()
	out := make([]Entry, 0, len(s.Entries))
	for _, e := range s.Entries {
		if e.Scope == ScopeWorkspace && !usable || e.Shadowed && usable {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Names returns the names of the active servers, in Active's order.
func (s *Set) Names() []string {
	var names []string
	for _, e := range s.Active() {
		names = append(names, e.Name)
	}
	return names
}

// Lookup returns the server a name means in the files: the workspace's
// when both have it, whether or not the workspace file may be used yet
// (Active says what may be used).
func (s *Set) Lookup(name string) (Entry, bool) {
	for _, e := range s.Entries {
		if e.Name == name && !e.Shadowed {
			return e, true
		}
	}
	return Entry{}, false
}

// Package mcp is the kernel's side of MCP: which servers of mcp.json a
// conversation enables (enabled_mcp_servers with mapping_mcp_servers
// aliases), the three functions per enabled server that the model sees
// (mcp_search_<server>, mcp_describe_<server>, mcp_invoke_<server>), and
// the bridge plugin (coyote-mcp) that owns every server connection. The
// kernel never speaks MCP itself: it tells the bridge the servers once,
// on first use, and asks it for tools and calls. What the bridge says back
// reaches the model with every vault secret of the servers' configs
// masked as its {{NAME}} placeholder (kernel/redact).
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/kernel/browser"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// Search limits of mcp_search_<server>.
const (
	DefaultTopK = 8
	MaxTopK     = 20
)

// Function name prefixes; the server's name follows.
const (
	SearchPrefix   = "mcp_search_"
	DescribePrefix = "mcp_describe_"
	InvokePrefix   = "mcp_invoke_"
)

// Options are what a Manager needs from the program around it.
type Options struct {
	// Load reads mcp.json (user and workspace); it is called once, on
	// first need.
	Load func() (*mcpconf.Set, error)
	// Secret looks up a vault secret for a {{NAME}} placeholder; nil when
	// there is no vault. It must record each value it returns with
	// redact.Add (as the CLI's vault lookup does for every secret): the
	// bridge's errors and tool failures go to the model through
	// redact.String, which can only hide the secrets it was told.
	Secret mcpconf.Lookup
	// Bridge returns the bridge plugin's client, starting nothing until it
	// is called.
	Bridge func() (mcpbridge.Bridge, error)
	// OAuthDir is <cache dir>/oauth, where the bridge keeps tokens.
	OAuthDir string
	// Trust decides whether the workspace's mcp.json, which can run
	// commands or names secrets, may be used (kernel/trust: asking the
	// user when it can); an error says why not. It is asked once per file
	// read, when a server the conversation enables comes from that file.
	// nil refuses every file that needs approval.
	Trust func(set *mcpconf.Set) error
	// Notice shows the user one line: a workspace file ignored, a
	// workspace server used in place of the user's. nil drops them.
	Notice func(string)
}

// Manager is the MCP servers of one coyote process. It is safe for
// concurrent use (the calls of one tool round run at once).
type Manager struct {
	o Options

	loadMu  sync.Mutex
	loaded  bool
	set     *mcpconf.Set
	loadErr error

	// settleMu makes one decision about a workspace file at a time.
	settleMu sync.Mutex

	mu         sync.Mutex
	configured bool
	broken     map[string]error // servers whose config could not be resolved
	warmed     map[string]bool  // servers Prewarm has started since the last configure
	noticed    map[string]bool  // workspace servers said to replace the user's
}

// New returns a manager; it reads and starts nothing.
func New(o Options) *Manager { return &Manager{o: o} }

// Servers returns the merged servers of mcp.json, read on first call.
func (m *Manager) Servers() (*mcpconf.Set, error) {
	m.loadMu.Lock()
	defer m.loadMu.Unlock()
	if !m.loaded {
		m.loaded = true
		m.set, m.loadErr = &mcpconf.Set{}, nil
		if m.o.Load != nil {
			m.set, m.loadErr = m.o.Load()
		}
	}
	return m.set, m.loadErr
}

// Reload reads mcp.json again (after it was edited) and makes the next use
// tell the bridge, which keeps the servers whose config is unchanged
// running. A file that does not load is an error, and the servers read
// before stay in use.
func (m *Manager) Reload() error {
	if m.o.Load == nil {
		return nil
	}
	set, err := m.o.Load()
	if err != nil {
		return err
	}
	m.loadMu.Lock()
	m.loaded, m.set, m.loadErr = true, set, nil
	m.loadMu.Unlock()
	m.Reconfigure()
	return nil
}

// Enabled resolves an enabled_mcp_servers value (nil: none; "all"; a list
// or comma-separated string of names and mapping aliases) to the names of
// configured servers, in mcp.json order, and the names that match no
// server, for a warning.
func (m *Manager) Enabled(value any, mapping map[string]string) (names, unknown []string, err error) {
	want, all := wanted(value, mapping)
	if !all && len(want) == 0 {
		return nil, nil, nil
	}
	set, err := m.Servers()
	if err != nil {
		return nil, nil, err
	}
	m.settle(set, func(name string) bool { return all || want[name] })
	have := map[string]bool{}
	for _, n := range set.Names() {
		if all || want[n] {
			names = append(names, n)
		}
	}
	for _, e := range set.Entries {
		have[e.Name] = true // a workspace server not approved is not unknown: settle said why
	}
	for n := range want {
		if !have[n] {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	m.noticeShadows(set, names)
	return names, unknown, nil
}

// settle decides about a workspace file waiting for approval when one of
// its servers is wanted (Options.Trust); until then its servers are not
// used. A refusal is said in one line, and the user's servers stay as
// they are.
func (m *Manager) settle(set *mcpconf.Set, wanted func(name string) bool) {
	m.settleMu.Lock()
	if set.WorkspaceTrust() != mcpconf.WorkspacePending || !set.WorkspaceProvides(wanted) {
		m.settleMu.Unlock()
		return
	}
	err := fmt.Errorf("%s can run commands or use your secrets, and nothing here can approve it", set.Workspace)
	if m.o.Trust != nil {
		err = m.o.Trust(set)
	}
	set.DecideWorkspace(err == nil)
	m.settleMu.Unlock()
	if err != nil {
		m.notice("ignoring the workspace's MCP servers: " + err.Error())
		return
	}
	m.Reconfigure() // the bridge may have been told the user's servers only
}

// noticeShadows says, once per server, that a workspace server is used in
// place of the user's server of the same name.
func (m *Manager) noticeShadows(set *mcpconf.Set, names []string) {
	for _, n := range names {
		e, ok := set.Lookup(n)
		if !ok || !e.Shadows || !set.WorkspaceUsable() {
			continue
		}
		m.mu.Lock()
		done := m.noticed[n]
		if m.noticed == nil {
			m.noticed = map[string]bool{}
		}
		m.noticed[n] = true
		m.mu.Unlock()
		if !done {
			m.notice(fmt.Sprintf("MCP server %s is the workspace's (%s), which replaces yours (%s)", n, e.Path, set.User))
		}
	}
}

func (m *Manager) notice(line string) {
	if m.o.Notice != nil {
		m.o.Notice(line)
	}
}

// wanted reads an enabled_mcp_servers value into the names it asks for,
// aliases expanded.
func wanted(value any, mapping map[string]string) (map[string]bool, bool) {
	var list []string
	switch v := value.(type) {
	case string:
		list = tools.SplitNames(v)
	case []string:
		list = v
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				list = append(list, s)
			}
		}
	}
	want := map[string]bool{}
	all := false
	for _, n := range list {
		n = strings.TrimSpace(n)
		switch {
		case n == "all":
			all = true
		case mapping[n] != "":
			for _, x := range tools.SplitNames(mapping[n]) {
				want[x] = true
			}
		case n != "":
			want[n] = true
		}
	}
	return want, all
}

// bridge returns the bridge, told the servers on first use.
func (m *Manager) bridge(ctx context.Context) (mcpbridge.Bridge, error) {
	if m.o.Bridge == nil {
		return nil, errors.New("MCP is not available: no plugin host")
	}
	b, err := m.o.Bridge()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.configured {
		return b, nil
	}
	set, err := m.Servers()
	if err != nil {
		return nil, err
	}
	lookup := m.o.Secret
	if lookup == nil {
		lookup = func(name string) (string, error) {
			return "", fmt.Errorf("secret %s: there is no vault; create one with coyote --add-secret %s", name, name)
		}
	}
	// Whatever comes back from the bridge may repeat a secret (a URL in a
	// connection error, a server echoing its arguments on stderr) and goes
	// to the model as a tool result: Options.Secret has recorded every
	// secret told to the bridge, and redact replaces it with its {{NAME}}.
	req := &mcpbridge.ConfigureRequest{OAuthDir: m.o.OAuthDir}
	req.Servers, m.broken = mcpconf.Resolve(set.Active(), lookup)
	if err := b.Configure(ctx, req); err != nil {
		return nil, fmt.Errorf("configure the MCP bridge: %w", redact.Error(err))
	}
	m.configured = true
	return b, nil
}

// Reconfigure makes the next use tell the bridge the servers again (after
// mcp.json changed, or a server was authorized).
func (m *Manager) Reconfigure() {
	m.mu.Lock()
	m.configured = false
	m.warmed = nil
	m.mu.Unlock()
}

// server returns the bridge, configured, for a server that can be used;
// a server whose config could not be resolved is refused with why (which
// is known only once the bridge has been configured).
func (m *Manager) server(ctx context.Context, name string) (mcpbridge.Bridge, error) {
	b, err := m.bridge(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.usable(name); err != nil {
		return nil, err
	}
	return b, nil
}

// usable reports why a server cannot be used, or nil.
func (m *Manager) usable(server string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.broken[server]
}

// Prewarm starts servers in the background, so that their tools are
// listed by the time the model asks. Failures are reported when a tool is
// used.
//
// Each server is started this way once (until Reconfigure): every turn
// offers the enabled servers, and one that has gone since is started
// again by the call that needs it.
func (m *Manager) Prewarm(servers []string) {
	m.mu.Lock()
	var cold []string
	for _, s := range servers {
		if !m.warmed[s] {
			cold = append(cold, s)
			if m.warmed == nil {
				m.warmed = map[string]bool{}
			}
			m.warmed[s] = true
		}
	}
	m.mu.Unlock()
	if len(cold) == 0 {
		return
	}
	go func() {
		_, _ = m.Tools(context.Background(), cold)
	}()
}

// Tools lists the tools of servers (started when needed), in the order
// asked. A server that cannot be used is reported in its entry.
func (m *Manager) Tools(ctx context.Context, servers []string) ([]mcpbridge.ServerTools, error) {
	b, err := m.bridge(ctx)
	if err != nil {
		return nil, err
	}
	var ask []string
	for _, s := range servers {
		if m.usable(s) == nil {
			ask = append(ask, s)
		}
	}
	got := map[string]mcpbridge.ServerTools{}
	if len(ask) > 0 {
		resp, err := b.Tools(ctx, &mcpbridge.ToolsRequest{Servers: ask})
		if err != nil {
			return nil, redact.Error(err)
		}
		for _, st := range resp.Servers {
			got[st.Server] = st
		}
	}
	out := make([]mcpbridge.ServerTools, len(servers))
	for i, s := range servers {
		if err := m.usable(s); err != nil {
			out[i] = mcpbridge.ServerTools{Server: s, Error: redact.String(err.Error())}
			continue
		}
		out[i] = got[s]
		out[i].Server = s
		out[i].Error = redact.String(out[i].Error)
	}
	return out, nil
}

// serverTools lists one server's tools, or says why it cannot.
func (m *Manager) serverTools(ctx context.Context, server string) ([]mcpbridge.Tool, error) {
	res, err := m.Tools(ctx, []string{server})
	if err != nil {
		return nil, err
	}
	st := res[0]
	switch {
	case st.NeedsAuth:
		return nil, &NeedsAuthError{Server: server}
	case st.Error != "":
		return nil, fmt.Errorf("MCP server %s: %s", server, st.Error)
	}
	return st.Tools, nil
}

// NeedsAuthError is a remote server that has no usable OAuth token.
type NeedsAuthError struct{ Server string }

func (e *NeedsAuthError) Error() string {
	return fmt.Sprintf("MCP server %s needs authorization: run coyote --auth-mcp %s (or .mcp auth %s in the REPL)", e.Server, e.Server, e.Server)
}

// Authenticate runs the OAuth flow of a remote server through the bridge,
// for --auth-mcp and .mcp auth: it writes to w the URL the user must open
// (and opens it in the browser), the bridge's messages, and the outcome.
// The bridge is configured again afterwards, so the token is used.
func (m *Manager) Authenticate(ctx context.Context, server string, w io.Writer) error {
	set, err := m.Servers()
	if err != nil {
		return err
	}
	m.settle(set, func(name string) bool { return name == server })
	e, ok := set.Lookup(server)
	if !ok {
		return fmt.Errorf("no MCP server %q: coyote --mcp-list lists them", server)
	}
	if e.Scope == mcpconf.ScopeWorkspace && !set.WorkspaceUsable() {
		return fmt.Errorf("MCP server %s comes from the workspace file %s, which is not approved: approve it with coyote --trust-workspace, or .workspace trust in the REPL", server, e.Path)
	}
	if e.Transport() == mcpconf.Stdio {
		return fmt.Errorf("MCP server %s runs over stdio: only remote (http, sse) servers use OAuth", server)
	}
	b, err := m.server(ctx, server)
	if err != nil {
		return err
	}
	a, ok := b.(mcpbridge.Authenticator)
	if !ok {
		return errors.New("the MCP bridge plugin found cannot run OAuth flows: install the coyote-mcp that came with this coyote (coyote plugins shows which one is used)")
	}
	err = a.Authenticate(ctx, &mcpbridge.AuthenticateRequest{Server: server}, func(ev *mcpbridge.AuthEvent) error {
		// The URL is built from the authorization server's metadata, and
		// a message is the plugin's: shown, never acted on, as errors are
		// at the error edge.
		if ev.AuthorizationURL != "" {
			fmt.Fprintf(w, "Open this URL to authorize MCP server %s (Ctrl+C cancels):\n  %s\n", server, termtext.Strip(ev.AuthorizationURL))
			browser.Open(ev.AuthorizationURL)
		}
		if ev.Message != "" {
			fmt.Fprintln(w, termtext.Strip(ev.Message))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("authorize MCP server %s: %w", server, redact.Error(err))
	}
	m.Reconfigure()
	fmt.Fprintf(w, "MCP server %s is authorized.\n", server)
	return nil
}

// Funcs are the functions the model is given for the servers: search,
// describe and invoke per server. They start nothing until called.
func (m *Manager) Funcs(servers []string) []*tools.Func {
	var out []*tools.Func
	for _, s := range servers {
		out = append(out, m.searchFunc(s), m.describeFunc(s), m.invokeFunc(s))
	}
	return out
}

func (m *Manager) searchFunc(server string) *tools.Func {
	return &tools.Func{
		Name: SearchPrefix + server,
		Description: fmt.Sprintf("Search the tools of the MCP server %s by keywords. Returns the best matching tools' names and descriptions; "+
			"then call %s%s for a tool's parameters and %s%s to run it.", server, DescribePrefix, server, InvokePrefix, server),
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string","description":"Keywords describing what the tool should do."},"top_k":{"type":"integer","description":"How many tools to return (default %d, at most %d)."}},"required":["query"]}`, DefaultTopK, MaxTopK)),
		Source:     "mcp:" + server,
		Builtin:    true,
		Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Query string `json:"query"`
				TopK  int    `json:"top_k"`
			}
			if err := json.Unmarshal(raw, &a); err != nil {
				return "", fmt.Errorf("%s%s: bad arguments: %w", SearchPrefix, server, err)
			}
			k := a.TopK
			if k <= 0 {
				k = DefaultTopK
			}
			k = min(k, MaxTopK)
			ts, err := m.serverTools(ctx, server)
			if err != nil {
				return "", err
			}
			type found struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			}
			res := struct {
				Server string  `json:"server"`
				Tools  []found `json:"tools"`
			}{Server: server, Tools: []found{}}
			for _, t := range Search(ts, a.Query, k) {
				res.Tools = append(res.Tools, found{t.Name, t.Description})
			}
			b, err := json.Marshal(res)
			return string(b), err
		},
	}
}

// Search ranks tools by BM25 over their names and descriptions (names
// split at _ and -). When no word of the query matches, the first topK
// tools are returned, so the model always sees what there is.
func Search(ts []mcpbridge.Tool, query string, topK int) []mcpbridge.Tool {
	idx := rank.NewBM25()
	passages := make([]rank.Passage, len(ts))
	byID := make(map[string]mcpbridge.Tool, len(ts))
	for i, t := range ts {
		id := fmt.Sprint(i)
		passages[i] = rank.Passage{ID: id, Text: t.Name + " " + t.Description}
		byID[id] = t
	}
	idx.AddFile("tools", passages)
	hits := idx.Search(query, topK)
	if len(hits) == 0 {
		return ts[:min(topK, len(ts))]
	}
	out := make([]mcpbridge.Tool, 0, len(hits))
	for _, h := range hits {
		out = append(out, byID[h.ID])
	}
	return out
}

func (m *Manager) describeFunc(server string) *tools.Func {
	return &tools.Func{
		Name:        DescribePrefix + server,
		Description: fmt.Sprintf("Describe one tool of the MCP server %s: its description and the JSON Schema of its arguments.", server),
		Parameters:  json.RawMessage(`{"type":"object","properties":{"tool":{"type":"string","description":"The tool's name, as ` + SearchPrefix + server + ` gave it."}},"required":["tool"]}`),
		Source:      "mcp:" + server,
		Builtin:     true,
		Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Tool string `json:"tool"`
			}
			if err := json.Unmarshal(raw, &a); err != nil || a.Tool == "" {
				return "", fmt.Errorf("%s%s needs a tool name", DescribePrefix, server)
			}
			ts, err := m.serverTools(ctx, server)
			if err != nil {
				return "", err
			}
			i := slices.IndexFunc(ts, func(t mcpbridge.Tool) bool { return t.Name == a.Tool })
			if i < 0 {
				return "", fmt.Errorf("MCP server %s has no tool %q: find tools with %s%s", server, a.Tool, SearchPrefix, server)
			}
			schema := json.RawMessage(ts[i].InputSchema)
			if len(schema) == 0 || !json.Valid(schema) {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			b, err := json.Marshal(struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
			}{ts[i].Name, ts[i].Description, schema})
			return string(b), err
		},
	}
}

func (m *Manager) invokeFunc(server string) *tools.Func {
	return &tools.Func{
		Name:        InvokePrefix + server,
		Description: fmt.Sprintf("Run one tool of the MCP server %s with its arguments (an object matching the schema %s%s gives).", server, DescribePrefix, server),
		Parameters:  json.RawMessage(`{"type":"object","properties":{"tool":{"type":"string","description":"The tool's name."},"arguments":{"type":"object","description":"The tool's arguments."}},"required":["tool"]}`),
		Source:      "mcp:" + server,
		Builtin:     true,
		Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Tool      string          `json:"tool"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if err := json.Unmarshal(raw, &a); err != nil || a.Tool == "" {
				return "", fmt.Errorf("%s%s needs a tool name and its arguments", InvokePrefix, server)
			}
			args := a.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			b, err := m.server(ctx, server)
			if err != nil {
				return "", err
			}
			res, err := b.Call(ctx, &mcpbridge.CallRequest{Server: server, Tool: a.Tool, Arguments: args})
			if err != nil {
				return "", redact.Error(err)
			}
			if res.IsError {
				return "", &ToolError{Server: server, Tool: a.Tool, Text: redact.String(res.Text)}
			}
			return res.Text, nil
		},
	}
}

// ToolError is a tool that reported failure (MCP isError); it goes back
// to the model as an error result with the tool's text.
type ToolError struct{ Server, Tool, Text string }

func (e *ToolError) Error() string {
	return fmt.Sprintf("MCP tool %s of server %s failed: %s", e.Tool, e.Server, e.Text)
}

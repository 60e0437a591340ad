package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

const (
	// startTimeout bounds a server's start: process launch (or first HTTP
	// exchange) plus the MCP initialize handshake. npx may download the
	// server on first use, hence the generous bound.
	startTimeout = 60 * time.Second
	// endGrace is how long a failed call waits to see whether its server
	// has ended, so the error can say how.
	endGrace = 2 * time.Second
)

// errNeedsAuth marks a remote server that wants an OAuth token.
var errNeedsAuth = fmt.Errorf("needs authorization: %w", sdk.ErrUnauthenticated)

// server is one started MCP server: its connection, its process (stdio)
// and its cached tools.
type server struct {
	b        *Bridge
	cfg      mcpbridge.ServerConfig
	oauthDir string

	ready    chan struct{} // closed when the start has finished
	startErr error
	session  *mcp.ClientSession
	proc     *process     // stdio only
	saw401   *statusWatch // remote only
	guard    *originGuard // remote only
	cancel   context.CancelFunc

	ended   chan struct{} // closed when the connection is over
	endOnce sync.Once
	how     string // how it ended, set before ended is closed

	mu        sync.Mutex
	stopping  bool
	toolList  []mcpbridge.Tool
	toolsGood bool // toolList is current (no list_changed since)
}

func newServer(b *Bridge, cfg mcpbridge.ServerConfig, oauthDir string) *server {
	return &server{b: b, cfg: cfg, oauthDir: oauthDir, ready: make(chan struct{}), ended: make(chan struct{})}
}

func (s *server) hasEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// start connects to the server and runs the MCP handshake, then watches
// the connection until it ends.
func (s *server) start() {
	defer close(s.ready)
	started := time.Now()
	// The SSE transports keep the context given to Connect for their
	// stream: it lives as long as the connection, and only the start is
	// bounded by startTimeout.
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	timer := time.AfterFunc(startTimeout, cancel)
	defer timer.Stop()
	transport, err := s.transport()
	if err != nil {
		s.startErr = err
		s.markEnded("it did not start")
		return
	}
	client := mcp.NewClient(&mcp.Implementation{Name: s.b.opts.Name, Version: s.b.opts.Version}, &mcp.ClientOptions{
		// No roots: a server that asks the client for roots (such as
		// server-filesystem) keeps the directories it was given.
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { s.toolsChanged() },
	})
	session, err := client.Connect(ctx, transport, nil)
	if err == nil && !timer.Stop() {
		_ = session.Close()
		err = context.DeadlineExceeded
	}
	if err != nil {
		cancel()
		s.startErr = s.startError(err)
		s.markEnded("it did not start")
		if s.proc != nil {
			s.proc.terminate()
		}
		return
	}
	s.session = session
	s.b.log.Debug("MCP server started", "server", s.cfg.Name, "type", s.cfg.Type, "took", time.Since(started))
	go s.watch()
}

// startError says in one line why a server did not start.
func (s *server) startError(err error) error {
	name := s.cfg.Name
	if co := s.guard.refusedOrigin(err); co != nil {
		return fmt.Errorf("MCP server %q did not start: %w: %w", name, co, sdk.ErrUnavailable)
	}
	if s.needsAuth(err) {
		return fmt.Errorf("MCP server %q needs authorization; run `coyote --auth-mcp %s`: %w", name, name, errNeedsAuth)
	}
	if s.proc != nil {
		select {
		case <-s.proc.exited:
			return fmt.Errorf("MCP server %q exited during start (%s); check its command in mcp.json: %w",
				name, s.proc.describe(), sdk.ErrUnavailable)
		case <-time.After(endGrace):
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("MCP server %q did not answer the MCP handshake within %s: %w", name, startTimeout, sdk.ErrUnavailable)
	}
	return fmt.Errorf("start MCP server %q: %s: %w", name, oneLine(err.Error()), sdk.ErrUnavailable)
}

func (s *server) needsAuth(err error) bool {
	if s.b.opts.ErrNeedsAuth != nil && errors.Is(err, s.b.opts.ErrNeedsAuth) {
		return true
	}
	return s.saw401 != nil && s.saw401.unauthorized()
}

// watch waits for the connection or the process to end, then records
// how and makes sure the process group is gone.
func (s *server) watch() {
	sessionDone := make(chan struct{})
	go func() {
		_ = s.session.Wait()
		close(sessionDone)
	}()
	var exited <-chan struct{}
	if s.proc != nil {
		exited = s.proc.exited
	}
	select {
	case <-sessionDone:
	case <-exited:
		_ = s.session.Close()
	}
	how := "its connection closed"
	if s.proc != nil {
		select {
		case <-s.proc.exited:
			how = s.proc.describe()
		case <-time.After(endGrace):
			how = "it closed its output"
		}
		s.proc.terminate()
	}
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if !stopping {
		s.b.log.Warn("MCP server ended", "server", s.cfg.Name, "how", how)
	}
	s.cancel()
	s.markEnded(how)
	s.b.forget(s)
}

func (s *server) markEnded(how string) {
	s.endOnce.Do(func() {
		s.how = how
		close(s.ended)
	})
}

// stop ends the server: the connection (which closes a stdio server's
// stdin), then its process group.
func (s *server) stop() {
	<-s.ready
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	if s.session != nil {
		done := make(chan struct{})
		go func() {
			_ = s.session.Close()
			close(done)
		}()
		if s.proc != nil {
			// Closing stdin is the polite request; terminate escalates
			// when the server ignores it.
			s.proc.terminate()
		}
		select {
		case <-done:
		case <-time.After(killWait):
		}
	} else if s.proc != nil {
		s.proc.terminate()
	}
	if s.cancel != nil {
		s.cancel()
	}
	s.markEnded("stopped")
}

func (s *server) toolsChanged() {
	s.mu.Lock()
	s.toolsGood = false
	s.mu.Unlock()
}

// tools returns the server's tools, listing them when the cache is empty
// or the server said they changed.
func (s *server) tools(ctx context.Context) ([]mcpbridge.Tool, error) {
	s.mu.Lock()
	if s.toolsGood {
		t := s.toolList
		s.mu.Unlock()
		return t, nil
	}
	s.mu.Unlock()
	var list []mcpbridge.Tool
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, s.callError(ctx, "list the tools", err)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("MCP server %q: tool %q has an unusable input schema: %w", s.cfg.Name, t.Name, sdk.ErrBadResponse)
		}
		list = append(list, mcpbridge.Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	s.mu.Lock()
	s.toolList, s.toolsGood = list, true
	s.mu.Unlock()
	return list, nil
}

// call invokes one tool.
func (s *server) call(ctx context.Context, tool string, args []byte) (*mcpbridge.CallResult, error) {
	params := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage("{}")}
	if len(strings.TrimSpace(string(args))) > 0 {
		if !json.Valid(args) {
			return nil, fmt.Errorf("call %q on MCP server %q: the arguments are not valid JSON: %w", tool, s.cfg.Name, sdk.ErrInvalidArgument)
		}
		params.Arguments = json.RawMessage(args)
	}
	res, err := s.session.CallTool(ctx, params)
	if err != nil {
		return nil, s.callError(ctx, fmt.Sprintf("call %q", tool), err)
	}
	return resultOf(res), nil
}

// callError explains a failed request: cancelled, refused by the server,
// or the server gone (how it ended, and it will be started again).
func (s *server) callError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s on MCP server %q: %w", what, s.cfg.Name, ctx.Err())
	}
	if co := s.guard.refusedOrigin(err); co != nil {
		return fmt.Errorf("%s on MCP server %q: %w: %w", what, s.cfg.Name, co, sdk.ErrUnavailable)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return fmt.Errorf("MCP server %q refused to %s: %s: %w", s.cfg.Name, what, oneLine(rpcErr.Message), sdk.ErrInvalidArgument)
	}
	select {
	case <-s.ended:
	case <-time.After(endGrace):
		return fmt.Errorf("%s on MCP server %q: %s: %w", what, s.cfg.Name, oneLine(err.Error()), sdk.ErrUnavailable)
	}
	return fmt.Errorf("MCP server %q ended while asked to %s (%s); it will be started again on next use: %w",
		s.cfg.Name, what, s.how, sdk.ErrUnavailable)
}

// resultOf turns a tool's result into text: text parts joined with "\n",
// other parts as their JSON, and the structured content as JSON when
// there is no text.
func resultOf(res *mcp.CallToolResult) *mcpbridge.CallResult {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
			hasText = true
			continue
		}
		if b, err := json.Marshal(c); err == nil {
			parts = append(parts, string(b))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append([]string{string(b)}, parts...)
		}
	}
	return &mcpbridge.CallResult{Text: strings.Join(parts, "\n"), IsError: res.IsError}
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

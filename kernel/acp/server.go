package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

// DefaultMaxMessage is the largest message read (a prompt may embed
// files); a longer line is answered with an error and skipped, never
// held in memory whole.
const DefaultMaxMessage = 32 << 20

// ErrNoSession is LoadSession's error for a session that does not exist.
var ErrNoSession = errors.New("no such session")

// Agent makes the sessions of a connection.
type Agent interface {
	// NewSession starts a conversation whose tools work in cwd (an
	// absolute path). servers are the MCP servers the client offers.
	NewSession(ctx context.Context, cwd string, servers []MCPServer) (Session, error)
	// LoadSession opens the saved session id (ErrNoSession when there is
	// none).
	LoadSession(ctx context.Context, id, cwd string, servers []MCPServer) (Session, error)
}

// Session is one conversation of a connection. The server runs one
// prompt of a session at a time; prompts of different sessions may run
// at once.
type Session interface {
	// ID is the session's id, unique in the process and stable across
	// runs for a saved session (session/load takes it).
	ID() string
	// Replay sends the conversation so far to c (session/load).
	Replay(c *Client) error
	// Prompt answers a prompt, sending what happens through c, and
	// returns the stop reason. ctx ends when the client cancels the
	// turn (session/cancel) or leaves.
	Prompt(ctx context.Context, prompt []ContentBlock, c *Client) (stopReason string, err error)
	// Close releases the session when the connection ends.
	Close()
}

// Options are a server's name and limits.
type Options struct {
	// Name, Title and Version are the agent's, as initialize reports
	// them.
	Name, Title, Version string
	// MaxMessage is the largest message read, in bytes (0:
	// DefaultMaxMessage).
	MaxMessage int
	// Log receives the server's diagnostics (nil: none).
	Log hclog.Logger
}

// Serve speaks the protocol on in and out until in ends (the client
// left) or ctx is done. Every prompt still running is then cancelled and
// waited for, and every session closed, before it returns: nothing the
// sessions started is left behind.
func Serve(ctx context.Context, in io.Reader, out io.Writer, agent Agent, o Options) error {
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.Log == nil {
		o.Log = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &server{agent: agent, o: o, out: out, ctx: ctx, closed: make(chan struct{}),
		pending: map[string]chan response{}, sessions: map[string]*session{}}
	defer func() {
		cancel()
		close(s.closed)
		s.wg.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ss := range s.sessions {
			ss.s.Close()
		}
	}()
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooBig, err := readLine(r, o.MaxMessage)
		switch {
		case tooBig:
			o.Log.Warn("message too large; skipped", "limit", o.MaxMessage)
			s.reply(nil, nil, errorf(CodeInvalidRequest, fmt.Sprintf("message too large: over %d bytes", o.MaxMessage)))
		case len(bytes.TrimSpace(line)) > 0:
			s.handle(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				o.Log.Debug("the client closed the connection")
				return nil
			}
			return fmt.Errorf("read from the client: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// readLine reads one line without its end. A line longer than max is
// read to its end and dropped (tooBig).
func readLine(r *bufio.Reader, max int) (line []byte, tooBig bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooBig {
			if len(line)+len(chunk) > max+1 { // +1: the '\n'
				tooBig, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooBig, err
	}
}

type server struct {
	agent Agent
	o     Options
	ctx   context.Context // ends when the connection does
	wg    sync.WaitGroup  // the handlers running

	writeMu sync.Mutex
	out     io.Writer
	broken  bool // a write failed: the client is gone

	initialized atomic.Bool
	nextID      atomic.Int64
	closed      chan struct{} // closed when the connection ended

	mu       sync.Mutex
	pending  map[string]chan response // our requests awaiting the client's answer, by id
	sessions map[string]*session
}

// session is a Session with the prompt running in it, if any.
type session struct {
	s      Session
	cancel context.CancelFunc // the running prompt's; nil when idle
}

// message is any JSON-RPC message, as read.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *Error          `json:"error"`
}

type response struct {
	result json.RawMessage
	err    *Error
}

// write sends one message, on a line of its own.
func (s *server) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	b = append(b, '\n')
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.broken {
		return errors.New("the client is gone")
	}
	if _, err := s.out.Write(b); err != nil {
		s.broken = true
		return fmt.Errorf("write to the client: %w", err)
	}
	return nil
}

// reply answers the request id (nil: null, for a message whose id could
// not be read) with result or err.
func (s *server) reply(id json.RawMessage, result any, err error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *Error          `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = errorf(CodeInternalError, err.Error())
		}
		msg.Error = e
	} else {
		if result == nil {
			result = struct{}{}
		}
		msg.Result = result
	}
	if werr := s.write(msg); werr != nil {
		s.o.Log.Debug("could not answer", "error", werr)
	}
}

// handle routes one message: a request to its handler, a notification,
// or the client's answer to a request of ours.
func (s *server) handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || !json.Valid(line) {
			s.o.Log.Warn("malformed message", "error", err)
			s.reply(nil, nil, errorf(CodeParseError, "parse error: "+err.Error()))
			return
		}
		s.reply(nil, nil, errorf(CodeInvalidRequest, "invalid request: a message is a JSON-RPC 2.0 object"))
		return
	}
	if m.JSONRPC != "2.0" {
		s.reply(m.ID, nil, errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`))
		return
	}
	if m.Method == nil {
		if m.ID == nil || (m.Result == nil && m.Error == nil) {
			s.reply(m.ID, nil, errorf(CodeInvalidRequest, "invalid request: no method, and not an answer"))
			return
		}
		s.answered(m)
		return
	}
	method := *m.Method
	if m.ID == nil {
		s.notification(method, m.Params)
		return
	}
	s.o.Log.Debug("request", "method", method)
	switch method {
	case "initialize":
		res, err := s.initialize(m.Params)
		s.reply(m.ID, res, err)
		return
	case "authenticate", "session/new", "session/load", "session/prompt":
	default:
		s.reply(m.ID, nil, errorf(CodeMethodNotFound, "method not found: "+method))
		return
	}
	if !s.initialized.Load() {
		s.reply(m.ID, nil, errorf(CodeInvalidRequest, "the connection is not initialized: call initialize first"))
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var res any
		var err error
		switch method {
		case "authenticate":
			err = errorf(CodeInvalidParams, "coyote needs no authentication (it offers no methods)")
		case "session/new":
			res, err = s.newSession(m.Params)
		case "session/load":
			res, err = s.loadSession(m.Params)
		case "session/prompt":
			if res, err = s.prompt(m.Params); err == nil && res == nil {
				return // the client left: there is no one to answer
			}
		}
		s.reply(m.ID, res, err)
	}()
}

func (s *server) notification(method string, params json.RawMessage) {
	switch method {
	case "session/cancel":
		var p cancelParams
		if err := json.Unmarshal(params, &p); err != nil {
			s.o.Log.Warn("session/cancel with invalid parameters", "error", err)
			return
		}
		s.mu.Lock()
		if ss := s.sessions[p.SessionID]; ss != nil && ss.cancel != nil {
			ss.cancel()
		}
		s.mu.Unlock()
	default:
		// Notifications get no answer, errors included.
		s.o.Log.Debug("notification ignored", "method", method)
	}
}

// answered delivers the client's answer to a request of ours.
func (s *server) answered(m message) {
	key := string(bytes.TrimSpace(m.ID))
	s.mu.Lock()
	ch := s.pending[key]
	delete(s.pending, key)
	s.mu.Unlock()
	if ch == nil {
		s.o.Log.Warn("an answer to no request", "id", key)
		return
	}
	ch <- response{result: m.Result, err: m.Error}
}

// params decodes a request's parameters, an invalid-params error when
// they do not fit.
func params(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return errorf(CodeInvalidParams, "invalid params: missing")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return errorf(CodeInvalidParams, "invalid params: "+err.Error())
	}
	return nil
}

func (s *server) initialize(raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := params(raw, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == nil {
		return nil, errorf(CodeInvalidParams, "invalid params: protocolVersion is required")
	}
	s.initialized.Store(true)
	// The client's version when it is ours, else the latest we speak.
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: agentCapabilities{
			LoadSession:        true,
			PromptCapabilities: promptCapabilities{EmbeddedContext: true},
		},
		AgentInfo:   implementation{Name: s.o.Name, Title: s.o.Title, Version: s.o.Version},
		AuthMethods: []any{},
	}, nil
}

// cwd checks a session's working directory: required, absolute.
func cwd(p *string) (string, error) {
	switch {
	case p == nil || *p == "":
		return "", errorf(CodeInvalidParams, "invalid params: cwd is required")
	case !filepath.IsAbs(*p):
		return "", errorf(CodeInvalidParams, fmt.Sprintf("invalid params: cwd %q is not an absolute path", *p))
	}
	return filepath.Clean(*p), nil
}

func (s *server) newSession(raw json.RawMessage) (any, error) {
	var p newSessionParams
	if err := params(raw, &p); err != nil {
		return nil, err
	}
	dir, err := cwd(p.CWD)
	if err != nil {
		return nil, err
	}
	sess, err := s.agent.NewSession(s.ctx, dir, p.MCPServers)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.sessions[sess.ID()] = &session{s: sess}
	s.mu.Unlock()
	return newSessionResult{SessionID: sess.ID()}, nil
}

func (s *server) loadSession(raw json.RawMessage) (any, error) {
	var p loadSessionParams
	if err := params(raw, &p); err != nil {
		return nil, err
	}
	dir, err := cwd(p.CWD)
	if err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, errorf(CodeInvalidParams, "invalid params: sessionId is required")
	}
	s.mu.Lock()
	_, open := s.sessions[p.SessionID]
	s.mu.Unlock()
	if open {
		return nil, errorf(CodeInvalidRequest, fmt.Sprintf("session %q is already open on this connection", p.SessionID))
	}
	sess, err := s.agent.LoadSession(s.ctx, p.SessionID, dir, p.MCPServers)
	if errors.Is(err, ErrNoSession) {
		return nil, &Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("no session %q", p.SessionID), Data: map[string]string{"uri": p.SessionID}}
	}
	if err != nil {
		return nil, err
	}
	if err := sess.Replay(&Client{s: s, session: sess.ID()}); err != nil {
		sess.Close()
		return nil, fmt.Errorf("replay session %q: %w", p.SessionID, err)
	}
	s.mu.Lock()
	s.sessions[sess.ID()] = &session{s: sess}
	s.mu.Unlock()
	return struct{}{}, nil
}

// prompt runs a prompt turn. It returns nil, nil when the client left
// during the turn (there is no one to answer).
func (s *server) prompt(raw json.RawMessage) (any, error) {
	var p promptParams
	if err := params(raw, &p); err != nil {
		return nil, err
	}
	if len(p.Prompt) == 0 {
		return nil, errorf(CodeInvalidParams, "invalid params: the prompt is empty")
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	s.mu.Lock()
	ss := s.sessions[p.SessionID]
	switch {
	case ss == nil:
		s.mu.Unlock()
		return nil, &Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("no session %q (create it with session/new or session/load)", p.SessionID)}
	case ss.cancel != nil:
		s.mu.Unlock()
		return nil, errorf(CodeInvalidRequest, fmt.Sprintf("a prompt is already running in session %q", p.SessionID))
	}
	ss.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		ss.cancel = nil
		s.mu.Unlock()
	}()

	stop, err := ss.s.Prompt(ctx, p.Prompt, &Client{s: s, session: p.SessionID})
	switch {
	case s.ctx.Err() != nil:
		return nil, nil
	case ctx.Err() != nil:
		// Cancelled by session/cancel: whatever the turn returned, the
		// client is told it stopped because it asked.
		return promptResult{StopReason: StopCancelled}, nil
	case err != nil:
		return nil, err
	}
	return promptResult{StopReason: stop}, nil
}

// Client is the connected client as one session sees it.
type Client struct {
	s       *server
	session string
}

// Update sends a session/update notification.
func (c *Client) Update(u Update) error {
	return c.s.write(struct {
		JSONRPC string              `json:"jsonrpc"`
		Method  string              `json:"method"`
		Params  sessionNotification `json:"params"`
	}{"2.0", "session/update", sessionNotification{SessionID: c.session, Update: u}})
}

// ErrCancelled is RequestPermission's error when the client answered that
// the turn was cancelled.
var ErrCancelled = errors.New("the turn was cancelled")

// RequestPermission asks the client whether call may run and returns the
// option chosen (ErrCancelled when the client cancelled the turn).
func (c *Client) RequestPermission(ctx context.Context, call ToolCallRef, options []PermissionOption) (string, error) {
	id := strconv.FormatInt(c.s.nextID.Add(1), 10)
	ch := make(chan response, 1)
	c.s.mu.Lock()
	c.s.pending[id] = ch
	c.s.mu.Unlock()
	forget := func() {
		c.s.mu.Lock()
		delete(c.s.pending, id)
		c.s.mu.Unlock()
	}
	err := c.s.write(struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      json.RawMessage  `json:"id"`
		Method  string           `json:"method"`
		Params  permissionParams `json:"params"`
	}{"2.0", json.RawMessage(id), "session/request_permission", permissionParams{SessionID: c.session, ToolCall: call, Options: options}})
	if err != nil {
		forget()
		return "", err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return "", fmt.Errorf("the client could not ask: %s", r.err.Message)
		}
		var res permissionResult
		if err := json.Unmarshal(r.result, &res); err != nil {
			return "", fmt.Errorf("the client's answer to session/request_permission: %w", err)
		}
		switch res.Outcome.Outcome {
		case "selected":
			for _, o := range options {
				if o.OptionID == res.Outcome.OptionID {
					return o.OptionID, nil
				}
			}
			return "", fmt.Errorf("the client chose %q, which was not offered", res.Outcome.OptionID)
		case "cancelled":
			return "", ErrCancelled
		}
		return "", fmt.Errorf("the client's answer to session/request_permission has the outcome %q", res.Outcome.Outcome)
	case <-ctx.Done():
		forget()
		return "", ctx.Err()
	case <-c.s.closed:
		forget()
		return "", errors.New("the client is gone")
	}
}

// SessionID is the session's id.
func (c *Client) SessionID() string { return c.session }

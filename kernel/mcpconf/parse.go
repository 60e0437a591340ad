package mcpconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// FileError is a problem in an mcp.json file, at a line when one is known.
type FileError struct {
	Path string
	Line int // 0: the whole file
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// File is one mcp.json: its servers in file order.
type File struct {
	Path    string
	Servers []*Server

	// read is set for a File made by ReadFile or Parse, whose Save merges:
	// loaded is the content it was made from (nil: no file), edits the
	// changes made since (Put, Remove), to be made again on the file as
	// another process may have left it.
	read   bool
	loaded []byte
	edits  []func(*File)
}

// ReadFile reads and checks an mcp.json. A file that does not exist, or
// holds only white space, has no servers.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{Path: path, read: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read MCP config: %w", err)
	}
	return Parse(path, data)
}

// Parse reads an mcp.json's content; path is only for messages. Every
// server is checked (Server.Validate).
func Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path, read: true, loaded: bytes.Clone(data)}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	p := &parser{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	if err := p.file(f); err != nil {
		return nil, err
	}
	return f, nil
}

// parser walks a file's JSON token by token, so that it can keep the order
// of objects, name unknown fields and say on which line.
type parser struct {
	path string
	data []byte
	dec  *json.Decoder
	base int64 // offset of dec's input in data
}

func (p *parser) errorf(off int64, format string, args ...any) error {
	return &FileError{Path: p.path, Line: lineAt(p.data, p.base+off), Msg: fmt.Sprintf(format, args...)}
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// syntax turns a decoding error into a FileError at its line.
func (p *parser) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.errorf(se.Offset, "invalid JSON: %v", se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &FileError{Path: p.path, Line: lineAt(p.data, int64(len(p.data))), Msg: "invalid JSON: the file ends too early"}
	}
	return &FileError{Path: p.path, Msg: "invalid JSON: " + err.Error()}
}

func (p *parser) token() (json.Token, error) {
	t, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	return t, nil
}

// key reads an object's next key (the caller checked More).
func (p *parser) key() (string, int64, error) {
	t, err := p.token()
	if err != nil {
		return "", 0, err
	}
	return t.(string), p.dec.InputOffset(), nil // a key is always a string
}

// objectStart reads "{", or null (false) for an absent object.
func (p *parser) objectStart(what string) (bool, error) {
	at := p.dec.InputOffset()
	t, err := p.token()
	if err != nil {
		return false, err
	}
	switch t {
	case json.Delim('{'):
		return true, nil
	case nil:
		return false, nil
	}
	return false, p.errorf(at+1, "%s must be an object", what)
}

func (p *parser) file(f *File) error {
	t, err := p.token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return p.errorf(0, `the file must be a JSON object with "mcpServers"`)
	}
	seen := false
	for p.dec.More() {
		k, at, err := p.key()
		if err != nil {
			return err
		}
		if k != "mcpServers" {
			return p.errorf(at, `unknown field %q (the file holds only "mcpServers")`, k)
		}
		if seen {
			return p.errorf(at, `"mcpServers" appears twice`)
		}
		seen = true
		if err := p.servers(f); err != nil {
			return err
		}
	}
	if _, err := p.token(); err != nil { // "}"
		return err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return p.errorf(p.dec.InputOffset(), "unexpected text after the JSON object")
	}
	return nil
}

func (p *parser) servers(f *File) error {
	ok, err := p.objectStart(`"mcpServers"`)
	if !ok || err != nil {
		return err
	}
	dup := func(name string) string { return fmt.Sprintf("MCP server %q", name) }
	return p.members(dup, func(name string, at int64) error {
		if !ValidName(name) {
			return &FileError{Path: p.path, Line: lineAt(p.data, at), Msg: NameError(name).Error()}
		}
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return p.syntax(err)
		}
		end := p.dec.InputOffset()
		s := &Server{Name: name, raw: raw, line: lineAt(p.data, at)}
		sub := &parser{path: p.path, data: p.data, dec: json.NewDecoder(bytes.NewReader(raw)), base: end - int64(len(raw))}
		sub.dec.UseNumber()
		if err := sub.server(s); err != nil {
			return err
		}
		if err := s.validate(); err != nil {
			return &FileError{Path: p.path, Line: s.line, Msg: fmt.Sprintf("MCP server %q: %v", name, err)}
		}
		f.Servers = append(f.Servers, s)
		return nil
	})
}

// server reads one server object into s.
func (p *parser) server(s *Server) error {
	what := fmt.Sprintf("MCP server %q", s.Name)
	ok, err := p.objectStart(what)
	if err != nil {
		return err
	}
	if !ok {
		return p.errorf(0, "%s must be an object", what)
	}
	dup := func(k string) string { return fmt.Sprintf("%s: field %q", what, k) }
	return p.members(dup, func(k string, at int64) (err error) {
		field := fmt.Sprintf("%s: %q", what, k)
		switch k {
		case "type":
			s.Type, err = p.str(field)
		case "command":
			s.Command, err = p.str(field)
		case "args":
			s.Args, err = p.strList(field)
		case "env":
			s.Env, err = p.env(field)
		case "cwd":
			s.Cwd, err = p.str(field)
		case "url":
			s.URL, err = p.str(field)
		case "headers":
			s.Headers, err = p.headers(field)
		case "oauth":
			s.OAuth, err = p.oauth(what)
		default:
			return p.errorf(at, "%s: unknown field %q (known: type, command, args, env, cwd, url, headers, oauth)", what, k)
		}
		return err
	})
}

// members reads the members of an object objectStart opened, and its
// closing "}": read is called for each member's value; a key that
// appears twice is refused, dup naming it.
func (p *parser) members(dup func(key string) string, read func(key string, at int64) error) error {
	seen := map[string]bool{}
	for p.dec.More() {
		k, at, err := p.key()
		if err != nil {
			return err
		}
		if seen[k] {
			return p.errorf(at, "%s appears twice", dup(k))
		}
		seen[k] = true
		if err := read(k, at); err != nil {
			return err
		}
	}
	_, err := p.token()
	return err
}

// str reads a string or null.
func (p *parser) str(what string) (string, error) {
	at := p.dec.InputOffset()
	t, err := p.token()
	if err != nil {
		return "", err
	}
	switch v := t.(type) {
	case string:
		return v, nil
	case nil:
		return "", nil
	}
	return "", p.errorf(at+1, "%s must be a string", what)
}

// strList reads a list of strings or null.
func (p *parser) strList(what string) ([]string, error) {
	at := p.dec.InputOffset()
	t, err := p.token()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, nil
	}
	if t != json.Delim('[') {
		return nil, p.errorf(at+1, "%s must be a list of strings", what)
	}
	list := []string{}
	for p.dec.More() {
		at := p.dec.InputOffset()
		t, err := p.token()
		if err != nil {
			return nil, err
		}
		s, ok := t.(string)
		if !ok {
			return nil, p.errorf(at+1, "%s must be a list of strings", what)
		}
		list = append(list, s)
	}
	_, err = p.token()
	return list, err
}

// env reads the env object: string, boolean or whole-number values, in
// order.
func (p *parser) env(what string) ([]EnvVar, error) {
	ok, err := p.objectStart(what)
	if !ok || err != nil {
		return nil, err
	}
	var vars []EnvVar
	dup := func(name string) string { return fmt.Sprintf("%s: %q", what, name) }
	err = p.members(dup, func(name string, at int64) error {
		t, err := p.token()
		if err != nil {
			return err
		}
		var v EnvValue
		switch x := t.(type) {
		case string:
			v = StringValue(x)
		case bool:
			v = EnvValue{json: strconv.FormatBool(x)}
		case json.Number:
			if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
				return p.errorf(at, "%s: %q must be a string, true/false or a whole number, not %s", what, name, x)
			}
			v = EnvValue{json: string(x)}
		default:
			return p.errorf(at, "%s: %q must be a string, true/false or a whole number", what, name)
		}
		vars = append(vars, EnvVar{Name: name, Value: v})
		return nil
	})
	return vars, err
}

// headers reads the headers object: string values, in order.
func (p *parser) headers(what string) ([]Header, error) {
	ok, err := p.objectStart(what)
	if !ok || err != nil {
		return nil, err
	}
	var hs []Header
	dup := func(name string) string { return fmt.Sprintf("%s: %q", what, name) }
	err = p.members(dup, func(name string, _ int64) error {
		v, err := p.str(fmt.Sprintf("%s: %q", what, name))
		if err != nil {
			return err
		}
		hs = append(hs, Header{Name: name, Value: v})
		return nil
	})
	return hs, err
}

// oauth reads the oauth object.
func (p *parser) oauth(server string) (*OAuth, error) {
	ok, err := p.objectStart(server + `: "oauth"`)
	if !ok || err != nil {
		return nil, err
	}
	o := &OAuth{}
	dup := func(k string) string { return fmt.Sprintf("%s: field \"oauth.%s\"", server, k) }
	err = p.members(dup, func(k string, at int64) (err error) {
		field := fmt.Sprintf("%s: \"oauth.%s\"", server, k)
		switch k {
		case "clientId":
			o.ClientID, err = p.str(field)
		case "clientSecret":
			o.ClientSecret, err = p.str(field)
		case "redirectHost":
			o.RedirectHost, err = p.str(field)
		case "callbackPort":
			o.CallbackPort, err = p.port(field)
		default:
			return p.errorf(at, "%s: unknown field \"oauth.%s\" (known: clientId, clientSecret, callbackPort, redirectHost)", server, k)
		}
		return err
	})
	return o, err
}

// port reads a port number (0 to 65535) or null.
func (p *parser) port(what string) (int, error) {
	at := p.dec.InputOffset()
	t, err := p.token()
	if err != nil {
		return 0, err
	}
	switch v := t.(type) {
	case nil:
		return 0, nil
	case json.Number:
		if n, err := strconv.Atoi(string(v)); err == nil && n >= 0 && n <= 65535 {
			return n, nil
		}
	}
	return 0, p.errorf(at+1, "%s must be a port number between 0 and 65535", what)
}

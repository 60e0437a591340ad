package mcpconf

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
)

// Server is one entry of "mcpServers", as written in its file
// (placeholders not replaced).
type Server struct {
	Name string
	// Type is the "type" field as written; "" when it was left out (see
	// Transport).
	Type    string
	Command string
	Args    []string
	Env     []EnvVar
	Cwd     string
	URL     string
	Headers []Header
	OAuth   *OAuth

	// raw is the server's JSON as read, written back unchanged by Encode;
	// nil for a server made or changed in code.
	raw json.RawMessage
	// line is where the server's name is in its file (0 when unknown).
	line int
}

// EnvVar is one entry of "env", in file order.
type EnvVar struct {
	Name  string
	Value EnvValue
}

// Header is one entry of "headers", in file order.
type Header struct {
	Name, Value string
}

// OAuth is a remote server's "oauth" object. A zero CallbackPort means any
// free port.
type OAuth struct {
	ClientID     string
	ClientSecret string
	CallbackPort int
	RedirectHost string
}

// EnvValue is an env value as written: a JSON string, true or false, or a
// whole number.
type EnvValue struct {
	json string // the JSON text
}

// StringValue is an env value holding a string.
func StringValue(s string) EnvValue {
	return EnvValue{json: jsonString(s)}
}

// String is the value given to the server's process: the string itself,
// "true"/"false", or the number as written.
func (v EnvValue) String() string {
	if strings.HasPrefix(v.json, `"`) {
		var s string
		if json.Unmarshal([]byte(v.json), &s) == nil {
			return s
		}
	}
	return v.json
}

// JSON is the value as written in the file.
func (v EnvValue) JSON() string { return v.json }

// Transport is the server's transport: Type when given, else stdio for a
// server with a command and http for one with a URL ("" for neither).
func (s *Server) Transport() string {
	switch {
	case s.Type != "":
		return s.Type
	case s.Command != "":
		return Stdio
	case s.URL != "":
		return HTTP
	}
	return ""
}

// Target is what the server runs or reaches, as listings show it: its URL
// (a password in it masked), or its command and arguments.
func (s *Server) Target() string {
	if s.URL != "" {
		return shownURL(s.URL)
	}
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

// Line is the line of the server's name in its file (0 for a server not
// read from a file).
func (s *Server) Line() int { return s.line }

// JSON is the server's object as written in its file (re-indented), or as
// it would be written for a server made in code.
func (s *Server) JSON() []byte {
	return indent(s.compact(), "")
}

// ValidName reports whether name can name a server: letters, digits, "-"
// and "_" (ASCII), at least one.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// NameError is the message for a server name ValidName refuses.
func NameError(name string) error {
	if name == "" {
		return fmt.Errorf("the MCP server name is empty: use letters, digits, '-' and '_'")
	}
	return fmt.Errorf("invalid MCP server name %q: use only letters, digits, '-' and '_'", name)
}

// Validate checks the server as the original does: a known type, a stdio
// server with a command and no remote fields, a remote server with an
// http(s) URL and no stdio fields.
func (s *Server) Validate() error {
	if !ValidName(s.Name) {
		return NameError(s.Name)
	}
	if err := s.validate(); err != nil {
		return fmt.Errorf("MCP server %q: %w", s.Name, err)
	}
	return nil
}

func (s *Server) validate() error {
	switch s.Type {
	case "", Stdio, HTTP, SSE:
	default:
		return fmt.Errorf(`"type" must be stdio, http or sse, not %q`, s.Type)
	}
	switch s.Transport() {
	case "":
		return fmt.Errorf(`give a "command" (a stdio server) or a "url" (an http or sse server)`)
	case Stdio:
		if s.Command == "" {
			return fmt.Errorf(`a stdio server needs a "command"`)
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"url", s.URL != ""}, {"headers", len(s.Headers) > 0}, {"oauth", s.OAuth != nil}} {
			if f.set {
				return fmt.Errorf("a stdio server takes no %q (that is for http and sse servers)", f.name)
			}
		}
	default:
		if s.URL == "" {
			return fmt.Errorf(`an %s server needs a "url"`, s.Transport())
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"command", s.Command != ""}, {"args", len(s.Args) > 0}, {"env", len(s.Env) > 0}, {"cwd", s.Cwd != ""}} {
			if f.set {
				return fmt.Errorf("an %s server takes no %q (that is for stdio servers)", s.Transport(), f.name)
			}
		}
		// A placeholder may stand for any part of the URL: it is checked
		// again once resolved.
		if !strings.Contains(s.URL, "{{") {
			if err := checkURL(s.URL); err != nil {
				return err
			}
		}
	}
	for _, e := range s.Env {
		if e.Name == "" {
			return fmt.Errorf(`an "env" name is empty`)
		}
	}
	for _, h := range s.Headers {
		if h.Name == "" {
			return fmt.Errorf(`a "headers" name is empty`)
		}
	}
	if s.OAuth != nil && (s.OAuth.CallbackPort < 0 || s.OAuth.CallbackPort > 65535) {
		return fmt.Errorf(`"oauth.callbackPort" must be between 0 and 65535, not %d`, s.OAuth.CallbackPort)
	}
	return nil
}

// checkURL accepts absolute http and https URLs.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf(`"url" must be an http:// or https:// URL, not %q`, raw)
	}
	return nil
}

// compact is the server's JSON without insignificant space: its raw text
// when it was read and not changed, else the fields in the file's usual
// order.
func (s *Server) compact() []byte {
	if s.raw != nil {
		return s.raw
	}
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	field := func(name, value string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(jsonString(name))
		b.WriteByte(':')
		b.WriteString(value)
	}
	if t := s.Transport(); t != "" {
		field("type", jsonString(t))
	}
	if s.Command != "" {
		field("command", jsonString(s.Command))
	}
	if len(s.Args) > 0 {
		parts := make([]string, len(s.Args))
		for i, a := range s.Args {
			parts[i] = jsonString(a)
		}
		field("args", "["+strings.Join(parts, ",")+"]")
	}
	if len(s.Env) > 0 {
		parts := make([]string, len(s.Env))
		for i, e := range s.Env {
			parts[i] = jsonString(e.Name) + ":" + e.Value.json
		}
		field("env", "{"+strings.Join(parts, ",")+"}")
	}
	if s.Cwd != "" {
		field("cwd", jsonString(s.Cwd))
	}
	if s.URL != "" {
		field("url", jsonString(s.URL))
	}
	if len(s.Headers) > 0 {
		parts := make([]string, len(s.Headers))
		for i, h := range s.Headers {
			parts[i] = jsonString(h.Name) + ":" + jsonString(h.Value)
		}
		field("headers", "{"+strings.Join(parts, ",")+"}")
	}
	if o := s.OAuth; o != nil {
		var parts []string
		if o.ClientID != "" {
			parts = append(parts, `"clientId":`+jsonString(o.ClientID))
		}
		if o.ClientSecret != "" {
			parts = append(parts, `"clientSecret":`+jsonString(o.ClientSecret))
		}
		if o.CallbackPort != 0 {
			parts = append(parts, `"callbackPort":`+strconv.Itoa(o.CallbackPort))
		}
		if o.RedirectHost != "" {
			parts = append(parts, `"redirectHost":`+jsonString(o.RedirectHost))
		}
		field("oauth", "{"+strings.Join(parts, ",")+"}")
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// jsonString is s as a JSON string, with <, > and & left as they are.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// shownURL is a URL as a listing shows it: the password of a
// user:password@ part (a listing may go into a bug report) as ***.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, set := u.User.Password(); !set {
		return raw
	}
	return strings.Replace(u.Redacted(), ":xxxxx@", ":***@", 1)
}

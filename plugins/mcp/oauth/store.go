package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// storedToken is the token file of one server. It records everything a
// refresh needs, so that refreshing does not repeat the discovery.
type storedToken struct {
	// ServerURL is the URL the token was obtained for; a token is used
	// only for that exact URL.
	ServerURL    string `json:"server_url"`
	AccessToken  string `json:"access_token,omitempty"`
	TokenType    string `json:"token_type,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// ExpiresAt is zero when the server gave no lifetime.
	ExpiresAt     time.Time `json:"expires_at,omitzero"`
	Scope         string    `json:"scope,omitempty"`
	Resource      string    `json:"resource"`
	TokenEndpoint string    `json:"token_endpoint"`
	ClientID      string    `json:"client_id"`
	// AuthMethod is how the client authenticates at the token endpoint:
	// "none", "client_secret_basic" or "client_secret_post".
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// registration is a dynamic client registration, cached per server.
type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// RedirectURI is the exact URI registered; many servers match it
	// exactly, so the registration is only reused with the same one.
	RedirectURI string `json:"redirect_uri,omitempty"`
	// RegistrationEndpoint is where it was registered; a registration
	// made with another authorization server is not reused.
	RegistrationEndpoint string `json:"registration_endpoint,omitempty"`
	AuthMethod           string `json:"token_endpoint_auth_method,omitempty"`
}

// fileStamp tells whether a file changed since it was read. Files are
// replaced by rename, so a new write is a new file (os.SameFile fails)
// even when its time and size look the same.
type fileStamp struct {
	fi fs.FileInfo
}

func stampOf(fi fs.FileInfo) fileStamp { return fileStamp{fi: fi} }

func (a fileStamp) same(b fileStamp) bool {
	return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi) &&
		a.fi.ModTime().Equal(b.fi.ModTime()) && a.fi.Size() == b.fi.Size()
}

// fileKey turns a server name into a safe file-name part. Names that
// mcp.json validation allows ([A-Za-z0-9_-]) are kept as they are, which
// keeps the original's file names; any other name gets its unsafe bytes
// replaced and a short hash, so that two names never share a file.
func fileKey(name string) string {
	safe := true
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
			continue
		}
		safe = false
		b.WriteByte('_')
	}
	if safe && name != "" {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return b.String() + "-" + hex.EncodeToString(sum[:4])
}

func (c *Client) tokenPath() string {
	return filepath.Join(c.dir, "mcp_"+fileKey(c.s.Name)+"_oauth_tokens.json")
}

func (c *Client) registrationPath() string {
	return filepath.Join(c.dir, "mcp_"+fileKey(c.s.Name)+"_registration.json")
}

// loadLocked returns the stored token for this server's URL, re-reading
// the file when it changed since the last read (another process or Client
// may have authorized). nil: none, unreadable, or for another URL.
func (c *Client) loadLocked() *storedToken {
	if c.dir == "" {
		return nil
	}
	fi, err := os.Stat(c.tokenPath())
	if err != nil {
		c.tok, c.tokStamp = nil, fileStamp{}
		return nil
	}
	if stampOf(fi).same(c.tokStamp) {
		return c.tok
	}
	data, err := os.ReadFile(c.tokenPath())
	if err != nil {
		c.tok, c.tokStamp = nil, fileStamp{}
		return nil
	}
	c.tokStamp = stampOf(fi)
	var t storedToken
	if json.Unmarshal(data, &t) != nil || t.ServerURL != c.s.URL {
		c.tok = nil
		return nil
	}
	c.tok = &t
	return c.tok
}

// saveTokenLocked stores t (0600, atomically) and remembers it.
func (c *Client) saveTokenLocked(t *storedToken) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("encode token of MCP server %q: %w", c.s.Name, err)
	}
	if err := writeSecretFile(c.tokenPath(), data); err != nil {
		return fmt.Errorf("save token of MCP server %q: %w", c.s.Name, err)
	}
	c.tok = t
	if fi, err := os.Stat(c.tokenPath()); err == nil {
		c.tokStamp = stampOf(fi)
	} else {
		c.tokStamp = fileStamp{}
	}
	return nil
}

// loadRegistration returns the cached registration, nil when there is
// none or it cannot be read (then the client registers again).
func (c *Client) loadRegistration() *registration {
	data, err := os.ReadFile(c.registrationPath())
	if err != nil {
		return nil
	}
	var r registration
	if json.Unmarshal(data, &r) != nil || r.ClientID == "" {
		return nil
	}
	return &r
}

func (c *Client) saveRegistration(r *registration) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode client registration of MCP server %q: %w", c.s.Name, err)
	}
	if err := writeSecretFile(c.registrationPath(), data); err != nil {
		return fmt.Errorf("save client registration of MCP server %q: %w", c.s.Name, err)
	}
	return nil
}

// writeSecretFile writes a file of secrets atomically, readable by its
// owner only (0600, in a 0700 directory) whatever mode an earlier file of
// that name had (a file left 0644 by hand or by an older version).
func writeSecretFile(path string, data []byte) error {
	if err := fsx.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	return fsx.WritePrivate(path, data)
}

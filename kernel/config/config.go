package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// Config is config.yaml with the environment applied: every setting of
// Keys with its value and source, and the clients.
type Config struct {
	// File is the config file read, or "" when the configuration was
	// synthesised from the environment.
	File string
	// Model is the default model id ("client:model" or a bare client name).
	Model string
	// Clients are the configured LLM clients, in file order.
	Clients []Client
	// PluginStartTimeout bounds a plugin's launch and handshake.
	PluginStartTimeout time.Duration
	// Warnings are problems that do not stop coyote, such as unknown keys,
	// each naming the file and line.
	Warnings []string

	values map[string]*Value
}

// Get returns a setting's value and source (a null default for a key that
// is not in Keys).
func (c *Config) Get(key string) *Value {
	if v, ok := c.values[key]; ok {
		return v
	}
	return &Value{Null: true, Src: Source{Kind: "default"}}
}

// Bool returns a boolean setting (false when null).
func (c *Config) Bool(key string) bool {
	b, _ := c.Get(key).V.(bool)
	return b
}

// Int returns an integer setting and whether it is set.
func (c *Config) Int(key string) (int64, bool) {
	v := c.Get(key)
	i, ok := v.V.(int64)
	return i, ok && !v.Null
}

// String returns a string setting ("" when null).
func (c *Config) String(key string) string {
	s, _ := c.Get(key).V.(string)
	return s
}

// List returns a list setting and whether it is set (null: false; an
// explicit [] is set and empty).
func (c *Config) List(key string) ([]string, bool) {
	v := c.Get(key)
	l, _ := v.V.([]string)
	return l, !v.Null
}

// Map returns a mapping setting (nil when null).
func (c *Config) Map(key string) map[string]any {
	m, _ := c.Get(key).V.(map[string]any)
	return m
}

// StringMap returns a map setting's string values (document_loaders:
// extension or protocol → command); other values are left out.
func (c *Config) StringMap(key string) map[string]string {
	out := map[string]string{}
	for k, v := range c.Map(key) {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// Set changes a setting at run time (the REPL's .set), with its source.
func (c *Config) Set(key string, v *Value) {
	if c.values == nil {
		c.values = map[string]*Value{}
	}
	c.values[key] = v
	c.sync()
}

// sync refreshes the fields that mirror settings.
func (c *Config) sync() {
	c.Model = c.String("model")
	ua := strings.TrimSpace(c.String("user_agent"))
	if strings.EqualFold(ua, "auto") {
		ua = "coyote/" + buildinfo.Version
	}
	for i := range c.Clients {
		c.Clients[i].UserAgent = ua
	}
	if f, ok := c.Get("plugin_start_timeout").V.(float64); ok && f > 0 {
		c.PluginStartTimeout = time.Duration(f * float64(time.Second))
	}
}

// Client is one entry of `clients:`.
type Client struct {
	Type    string
	Name    string
	APIBase string
	APIKey  string
	// KeySource says where APIKey came from, for error messages: an
	// environment variable or a line of the config file. Empty if unset.
	KeySource string
	// Models are the client's own models; when empty, the catalog's.
	Models []models.Model
	// Patches are the client's `patch:` rules by API (APIChat, ...), in
	// file order; COYOTE_PATCH_<CLIENT>_<API> replaces one API's rules.
	Patches map[string][]PatchRule
	// Options holds the entry's other keys, passed to the plugin as they are.
	Options map[string]any
	// Line is the entry's line in the config file (0 if synthesised).
	Line int
	// Token, set for a client with `auth: oauth` by whoever loaded the
	// config (the command line attaches the client's login), returns its
	// access token, which replaces APIKey; force refreshes it after the
	// provider refused it. Nil for a client with a key.
	Token func(ctx context.Context, force bool) (string, error)
	// UserAgent is the User-Agent the client's plugin sends, from the
	// user_agent setting ("auto" is coyote/VERSION); empty leaves it to
	// the plugin. An extra.user_agent of the client's entry wins.
	UserAgent string
}

// UsesOAuth reports whether the client logs in with OAuth (`auth: oauth`)
// rather than an API key.
func (c *Client) UsesOAuth() bool {
	auth, _ := c.Options["auth"].(string)
	return auth == "oauth"
}

// PatchRule is one rule of a client's `patch:` for one API: requests to
// models whose whole name matches Pattern (a regular expression) are
// changed. The first matching rule of an API wins.
type PatchRule struct {
	Pattern string
	URL     string
	// Body is a JSON merge patch for the request body.
	Body any
	// Headers to set; a nil value removes the header.
	Headers map[string]*string
}

// Patch APIs.
const (
	APIChat       = "chat_completions"
	APIEmbeddings = "embeddings"
	APIRerank     = "rerank"
)

// ErrNoConfig means there is no config file and the environment does not
// say which provider to use.
var ErrNoConfig = errors.New("no configuration")

// DefaultPluginStartTimeout applies when plugin_start_timeout is unset.
const DefaultPluginStartTimeout = 10 * time.Second

// Load reads the config file named by p (if it exists) and applies the
// environment: COYOTE_MODEL, COYOTE_PLUGIN_START_TIMEOUT, and each client's
// <NAME>_API_KEY and <NAME>_API_BASE, which beat the file. Without a file,
// COYOTE_PROVIDER names the type of a single client made up from the
// environment.
func Load(p Paths, env Env) (*Config, error) { return LoadWithSecrets(p, env, nil) }

// Secrets resolves a {{NAME}} placeholder; vaultPasswordFile is the file's
// vault_password_file setting, read before the placeholders are replaced
// ("" when unset).
type Secrets func(name, vaultPasswordFile string) (string, error)

// LoadWithSecrets is Load with the {{NAME}} placeholders of config.yaml
// replaced by secrets before the file is parsed. A file without
// placeholders never calls secrets (the vault is not opened).
func LoadWithSecrets(p Paths, env Env, secrets Secrets) (*Config, error) {
	cfg := &Config{PluginStartTimeout: DefaultPluginStartTimeout, values: make(map[string]*Value, len(Keys))}
	for _, k := range Keys {
		cfg.values[k.Name] = defaultValue(k)
	}
	data, err := os.ReadFile(p.ConfigFile)
	switch {
	case err == nil:
		cfg.File = p.ConfigFile
		if err := cfg.parse(data, secrets); err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist):
		typ := env("COYOTE_PROVIDER")
		if typ == "" {
			return nil, fmt.Errorf("%w: %s does not exist; create it with a `clients:` list and a `model:` "+
				"(see the README), or set COYOTE_PROVIDER (e.g. openai) and that provider's API key variable (e.g. OPENAI_API_KEY)",
				ErrNoConfig, p.ConfigFile)
		}
		cfg.Clients = []Client{{Type: typ, Name: typ}}
	default:
		return nil, fmt.Errorf("read config: %w", err)
	}
	if err := cfg.applyEnv(env); err != nil {
		return nil, err
	}
	cfg.sync()
	return cfg, nil
}

// parse reads config.yaml: every known setting, the clients, and a warning
// for each unknown key. The {{NAME}} placeholders of its values are
// replaced by secrets; a setting that had one keeps its text as written
// (Value.Template), which is what --info and .info show.
func (c *Config) parse(data []byte, secrets Secrets) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, col, msg := yamlerr.Locate(data, err)
		return fmt.Errorf("%s:%d:%d: %s", c.File, line, col, msg)
	}
	if len(doc.Content) == 0 {
		return nil // empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return c.errorf(root, "the file must be a mapping of settings")
	}
	written := root // the values as written, placeholders and all
	if bytes.Contains(data, []byte("{{")) {
		unquotePlaceholders(written)
		root = cloneNode(root)
		if err := c.resolveSecrets(root, secrets); err != nil {
			return err
		}
	}
	if err := c.noRepeatedKeys(root); err != nil {
		return err
	}
	var unknown []*yaml.Node // settings that are not Coyote's, in file order
	defer func() { c.warnUnknown(unknown) }()
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		if key.Value == "clients" {
			if err := c.parseClients(val); err != nil {
				return err
			}
			continue
		}
		k, known := LookupKey(key.Value)
		if !known {
			unknown = append(unknown, key)
			continue
		}
		if k.FileIgnored {
			continue
		}
		v, null, err := decodeNode(k, val)
		if err != nil {
			return c.errorf(val, "%v", err)
		}
		value := &Value{Null: null, V: v, Src: Source{Kind: "file", Where: fmt.Sprintf("%s:%d", c.File, val.Line)}}
		if raw := written.Content[i+1]; raw != val {
			if t, _, err := decodeNode(k, raw); err == nil && !reflect.DeepEqual(t, v) {
				value.Template = t
			}
		}
		c.values[k.Name] = value
	}
	return nil
}

// keepPlaceholders are the settings whose {{NAME}} placeholders are not
// replaced when the file is read: the vault's own settings (the original
// does not template them), and document_loaders, whose commands get their
// secrets when they run, as environment variables, so that a secret is
// never part of a command line shown in an error.
var keepPlaceholders = map[string]bool{"vault_password_file": true, "secrets_provider": true, "document_loaders": true}

// resolveSecrets replaces the {{NAME}} placeholders in the values of root
// (a copy of the file's mapping) with their secrets. Every name is looked
// up once, in file order, so a missing secret is reported together with
// every other missing one; comments are not values, so a placeholder in a
// comment needs no secret.
func (c *Config) resolveSecrets(root *yaml.Node, secrets Secrets) error {
	var nodes []*yaml.Node
	var names []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if keepPlaceholders[root.Content[i].Value] {
			continue
		}
		walkScalars(root.Content[i+1], func(n *yaml.Node) {
			found := vault.Placeholders(n.Value)
			if len(found) == 0 {
				return
			}
			nodes = append(nodes, n)
			for _, name := range found {
				if !seen[name] {
					seen[name] = true
					names = append(names, name)
				}
			}
		})
	}
	if len(nodes) == 0 {
		return nil
	}
	if secrets == nil {
		return fmt.Errorf("%s uses {{...}} secrets, but no vault is available", c.File)
	}
	passwordFile := ""
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "vault_password_file" {
			passwordFile = root.Content[i+1].Value
		}
	}
	values := make(map[string]string, len(names))
	lookup := func(name string) (string, error) {
		if v, ok := values[name]; ok {
			return v, nil
		}
		v, err := secrets(name, passwordFile)
		if err == nil {
			values[name] = v
		}
		return v, err
	}
	// One pass over every name, so that the error lists all missing ones.
	var all strings.Builder
	for _, name := range names {
		all.WriteString("{{" + name + "}}")
	}
	if _, err := vault.Interpolate(all.String(), lookup); err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	for _, n := range nodes {
		out, err := vault.Interpolate(n.Value, lookup)
		if err != nil {
			return fmt.Errorf("%s: %w", c.File, err)
		}
		n.Value = out
		if n.Tag == "!!null" || n.Tag == "" {
			n.Tag = "!!str" // "{{X}}" is text, whatever the secret looks like
		}
	}
	return nil
}

// unquotePlaceholders turns every unquoted placeholder value under n back
// into text. YAML reads `api_key: {{KEY}}` as a mapping whose only key is
// the mapping {KEY: null}; the original replaces placeholders in the text
// before parsing, so there the line is fine, and it must be here too.
func unquotePlaceholders(n *yaml.Node) {
	for i, child := range n.Content {
		if name, ok := flowPlaceholder(child); ok {
			n.Content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "{{" + name + "}}",
				Line: child.Line, Column: child.Column}
			continue
		}
		unquotePlaceholders(child)
	}
}

// flowPlaceholder reports whether n is what YAML makes of an unquoted
// {{NAME}}: a flow mapping with one key, itself a flow mapping {NAME: null},
// and a null value.
func flowPlaceholder(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle == 0 || len(n.Content) != 2 {
		return "", false
	}
	key, val := n.Content[0], n.Content[1]
	if val.Tag != "!!null" || val.Value != "" || key.Kind != yaml.MappingNode || key.Style&yaml.FlowStyle == 0 || len(key.Content) != 2 {
		return "", false
	}
	name, null := key.Content[0], key.Content[1]
	if name.Kind != yaml.ScalarNode || name.Style != 0 || null.Tag != "!!null" || null.Value != "" || !vault.ValidName(name.Value) {
		return "", false
	}
	return name.Value, true
}

// walkScalars calls fn with every scalar node under n.
func walkScalars(n *yaml.Node, fn func(*yaml.Node)) {
	if n.Kind == yaml.ScalarNode {
		fn(n)
		return
	}
	for _, child := range n.Content {
		walkScalars(child, fn)
	}
}

// cloneNode copies a YAML tree, so that secrets can be filled into the
// copy while the original keeps the text as written. Aliases point into
// the copy.
func cloneNode(n *yaml.Node) *yaml.Node {
	copies := map[*yaml.Node]*yaml.Node{}
	var clone func(*yaml.Node) *yaml.Node
	clone = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copies[n]; ok {
			return c
		}
		c := *n
		copies[n] = &c
		if n.Content != nil {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, child := range n.Content {
				c.Content[i] = clone(child)
			}
		}
		c.Alias = clone(n.Alias)
		return &c
	}
	return clone(n)
}

func (c *Config) parseClients(seq *yaml.Node) error {
	if seq.Tag == "!!null" {
		return nil
	}
	if seq.Kind != yaml.SequenceNode {
		return c.errorf(seq, "clients must be a list")
	}
	seen := map[string]int{}
	for i, node := range seq.Content {
		if node.Kind != yaml.MappingNode {
			return c.errorf(node, "clients[%d] must be a mapping with at least `type`", i)
		}
		if err := c.noRepeatedKeys(node); err != nil {
			return err
		}
		cl := Client{Line: node.Line, Options: map[string]any{}}
		for j := 0; j+1 < len(node.Content); j += 2 {
			key, val := node.Content[j], node.Content[j+1]
			var err error
			switch key.Value {
			case "type":
				err = val.Decode(&cl.Type)
			case "name":
				err = val.Decode(&cl.Name)
			case "api_base":
				err = val.Decode(&cl.APIBase)
			case "api_key":
				err = val.Decode(&cl.APIKey)
				if cl.APIKey != "" {
					cl.KeySource = fmt.Sprintf("%s line %d", c.File, val.Line)
				}
			case "models":
				err = val.Decode(&cl.Models)
			case "patch":
				cl.Patches, err = parsePatches(val)
			default:
				var v any
				err = val.Decode(&v)
				cl.Options[key.Value] = v
			}
			if err != nil {
				return c.errorf(val, "clients[%d].%s: %v", i, key.Value, err)
			}
		}
		if cl.Type == "" {
			return c.errorf(node, "clients[%d] has no `type` (e.g. type: openai)", i)
		}
		if cl.Name == "" {
			cl.Name = cl.Type
		}
		if line, dup := seen[cl.Name]; dup {
			return c.errorf(node, "two clients are named %q (the other is at line %d); give one a different `name`", cl.Name, line)
		}
		seen[cl.Name] = node.Line
		for k, m := range cl.Models {
			if m.Name == "" {
				return c.errorf(node, "clients[%d].models[%d] has no name", i, k)
			}
		}
		c.Clients = append(c.Clients, cl)
	}
	return nil
}

// warnUnknown adds one warning for the unknown settings of the file,
// however many there are.
func (c *Config) warnUnknown(keys []*yaml.Node) {
	if len(keys) == 0 {
		return
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Value
	}
	verb := "are"
	if len(keys) == 1 {
		verb = "is"
	}
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: %s %s ignored", c.File, keys[0].Line, yamlerr.UnknownKeys("setting", names), verb))
}

// noRepeatedKeys refuses a mapping that sets a key twice: YAML forbids it,
// and reading the file node by node would otherwise keep the last one
// silently.
func (c *Config) noRepeatedKeys(m *yaml.Node) error {
	if k, first := yamlerr.RepeatedKey(m); k != nil {
		return c.errorf(k, "%q is set twice (first on line %d); keep one", k.Value, first)
	}
	return nil
}

func (c *Config) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", c.File, n.Line, n.Column, fmt.Sprintf(format, args...))
}

// applyEnv applies the environment: COYOTE_<KEY> for every setting
// ("null" unsets), and each client's <NAME>_API_KEY, <NAME>_API_BASE and
// COYOTE_PATCH_<NAME>_<API>.
func (c *Config) applyEnv(env Env) error {
	for _, k := range Keys {
		name := EnvName(k.Name)
		s := env(name)
		if s == "" {
			continue
		}
		v, null, err := parseEnv(k, s)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		c.values[k.Name] = &Value{Null: null, V: v, Src: Source{Kind: "env", Where: name}}
	}
	for i := range c.Clients {
		cl := &c.Clients[i]
		prefix := EnvPrefix(cl.Name)
		if v := env(prefix + "_API_KEY"); v != "" {
			cl.APIKey, cl.KeySource = v, "environment variable "+prefix+"_API_KEY"
		}
		if v := env(prefix + "_API_BASE"); v != "" {
			cl.APIBase = v
		}
		for _, api := range []string{APIChat, APIEmbeddings, APIRerank} {
			name := "COYOTE_PATCH_" + prefix + "_" + strings.ToUpper(api)
			v := env(name)
			if v == "" {
				continue
			}
			rules, err := parsePatchJSON(v)
			if err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			if cl.Patches == nil {
				cl.Patches = map[string][]PatchRule{}
			}
			cl.Patches[api] = rules
		}
	}
	return nil
}

// parsePatches reads a client's `patch:` mapping, keeping rule order.
func parsePatches(n *yaml.Node) (map[string][]PatchRule, error) {
	if n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("patch must map an API (chat_completions, embeddings, rerank) to rules")
	}
	out := map[string][]PatchRule{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		api, rules := n.Content[i].Value, n.Content[i+1]
		if rules.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("patch.%s must map model patterns to patches", api)
		}
		for j := 0; j+1 < len(rules.Content); j += 2 {
			var raw map[string]any
			if err := rules.Content[j+1].Decode(&raw); err != nil {
				return nil, fmt.Errorf("patch.%s.%s: %v", api, rules.Content[j].Value, err)
			}
			rule, err := patchRule(rules.Content[j].Value, raw)
			if err != nil {
				return nil, fmt.Errorf("patch.%s.%s: %v", api, rules.Content[j].Value, err)
			}
			out[api] = append(out[api], rule)
		}
	}
	return out, nil
}

// parsePatchJSON reads one API's rules from JSON ({"pattern": {...}}),
// keeping their order.
func parsePatchJSON(s string) ([]PatchRule, error) {
	var n yaml.Node // JSON is YAML, and yaml.Node keeps key order
	if err := yaml.Unmarshal([]byte(s), &n); err != nil || len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a JSON object mapping model patterns to patches")
	}
	m, err := parsePatches(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "x"}, n.Content[0]}})
	if err != nil {
		return nil, err
	}
	return m["x"], nil
}

func patchRule(pattern string, raw map[string]any) (PatchRule, error) {
	r := PatchRule{Pattern: pattern}
	if _, err := regexp.Compile("^(?:" + pattern + ")$"); err != nil {
		return r, fmt.Errorf("bad pattern: %v", err)
	}
	for k, v := range raw {
		switch k {
		case "url":
			s, ok := v.(string)
			if !ok && v != nil {
				return r, fmt.Errorf("url must be a string")
			}
			r.URL = s
		case "body":
			r.Body = v
		case "headers":
			hs, ok := v.(map[string]any)
			if !ok && v != nil {
				return r, fmt.Errorf("headers must be a mapping")
			}
			r.Headers = map[string]*string{}
			for name, hv := range hs {
				if hv == nil {
					r.Headers[name] = nil
					continue
				}
				s := fmt.Sprint(hv)
				r.Headers[name] = &s
			}
		default:
			return r, fmt.Errorf("unknown key %q (use url, body, headers)", k)
		}
	}
	return r, nil
}

// EnvPrefix is the prefix of a client's environment variables: its name in
// upper case with every character other than letters and digits made "_"
// (client "my-groq" reads MY_GROQ_API_KEY).
func EnvPrefix(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, ch := range b {
		if !(ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Client returns the client of a name.
func (c *Config) Client(name string) (*Client, bool) {
	for i := range c.Clients {
		if c.Clients[i].Name == name {
			return &c.Clients[i], true
		}
	}
	return nil, false
}

// ClientNames lists the clients' names, for messages.
func (c *Config) ClientNames() string {
	if len(c.Clients) == 0 {
		return "none"
	}
	names := make([]string, len(c.Clients))
	for i, cl := range c.Clients {
		names[i] = cl.Name
	}
	return strings.Join(names, ", ")
}

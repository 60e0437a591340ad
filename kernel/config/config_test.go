package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/compat"
	"github.com/coyote-cli/coyote/kernel/vault"
)

func mapEnv(m map[string]string) Env { return func(k string) string { return m[k] } }

func TestResolvePaths(t *testing.T) {
	tests := []struct {
		name              string
		env               map[string]string
		config, cache     string
		configFile, logTo string
	}{
		{
			name:   "own variables win",
			env:    map[string]string{"COYOTE_CONFIG_DIR": "/c", "COYOTE_CACHE_DIR": "/k", "XDG_CONFIG_HOME": "/x", "XDG_CACHE_HOME": "/y"},
			config: "/c", cache: "/k", configFile: "/c/config.yaml", logTo: "/k/coyote.log",
		},
		{
			name:   "XDG next",
			env:    map[string]string{"XDG_CONFIG_HOME": "/x", "XDG_CACHE_HOME": "/y"},
			config: "/x/coyote", cache: "/y/coyote", configFile: "/x/coyote/config.yaml", logTo: "/y/coyote/coyote.log",
		},
		{
			name:   "file overrides",
			env:    map[string]string{"COYOTE_CONFIG_DIR": "/c", "COYOTE_CACHE_DIR": "/k", "COYOTE_CONFIG_FILE": "/elsewhere.yaml", "COYOTE_LOG_PATH": "/l.log", "COYOTE_ENV_FILE": "/e.env"},
			config: "/c", cache: "/k", configFile: "/elsewhere.yaml", logTo: "/l.log",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ResolvePaths(mapEnv(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if p.ConfigDir != tt.config || p.CacheDir != tt.cache || p.ConfigFile != tt.configFile || p.LogFile != tt.logTo {
				t.Fatalf("paths = %+v", p)
			}
		})
	}
}

func writeConfig(t *testing.T, yaml string) Paths {
	t.Helper()
	dir := t.TempDir()
	p := Paths{ConfigDir: dir, ConfigFile: filepath.Join(dir, "config.yaml")}
	if err := os.WriteFile(p.ConfigFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadClients(t *testing.T) {
	p := writeConfig(t, `
model: groq:llama-3.3
stream: true            # a key the kernel does not use yet
clients:
  - type: openai
    api_key: sk-file
    organization_id: org-1
  - type: openai-compatible
    name: groq
    api_base: https://api.groq.com/openai/v1
    models:
      - name: llama-3.3
        max_input_tokens: 128000
        supports_function_calling: true
      - name: embed
        type: embedding
        max_batch_size: 50
    extra: {proxy: "socks5://127.0.0.1:1080", connect_timeout: 5}
`)
	cfg, err := Load(p, mapEnv(map[string]string{"GROQ_API_KEY": "gsk-env"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "groq:llama-3.3" || len(cfg.Clients) != 2 || cfg.PluginStartTimeout != DefaultPluginStartTimeout {
		t.Fatalf("cfg = %+v", cfg)
	}
	oa, groq := cfg.Clients[0], cfg.Clients[1]
	if oa.Name != "openai" || oa.APIKey != "sk-file" || oa.KeySource != p.ConfigFile+" line 6" || oa.Options["organization_id"] != "org-1" {
		t.Fatalf("openai client = %+v", oa)
	}
	if groq.APIKey != "gsk-env" || groq.KeySource != "environment variable GROQ_API_KEY" {
		t.Fatalf("groq key = %q from %q", groq.APIKey, groq.KeySource)
	}
	if len(groq.Models) != 2 || groq.Models[0].MaxInputTokens != 128000 || !groq.Models[0].SupportsFunctionCalling || groq.Models[1].Type != "embedding" {
		t.Fatalf("groq models = %+v", groq.Models)
	}
	extra, _ := groq.Options["extra"].(map[string]any)
	if extra["proxy"] != "socks5://127.0.0.1:1080" || extra["connect_timeout"] != 5 {
		t.Fatalf("groq extra = %#v", groq.Options["extra"])
	}
}

func TestLoadErrorsNameFileLineAndColumn(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"malformed", "clients:\n  - type: openai\n    name: x: y\n", "config.yaml:3:5: mapping values are not allowed"},
		{"tab indent", "clients:\n\t- type: openai\n", "config.yaml:2:1: found character that cannot start any token (a tab in the indentation: indent with spaces)"},
		{"client without type", "clients:\n  - name: x\n", "config.yaml:2:5: clients[0] has no `type`"},
		{"duplicate names", "clients:\n  - type: openai\n  - type: openai\n", `config.yaml:3:5: two clients are named "openai" (the other is at line 2)`},
		{"clients not a list", "clients: openai\n", "config.yaml:1:10: clients must be a list"},
		{"bad timeout", "plugin_start_timeout: soon\n", "config.yaml:1:23: plugin_start_timeout must be a number"},
		{"repeated key", "model: a:b\nsave: true\nmodel: c:d\n", `config.yaml:3:1: "model" is set twice (first on line 1); keep one`},
		{"repeated client key", "clients:\n  - type: openai\n    api_key: a\n    api_key: b\n", `config.yaml:4:5: "api_key" is set twice (first on line 3)`},
		{"temperature not finite", "temperature: .nan\n", "config.yaml:1:14: temperature must be a finite number between 0 and 2, not NaN"},
		{"top_p infinite", "top_p: .inf\n", "config.yaml:1:8: top_p must be a finite number between 0 and 1, not +Inf"},
		{"top_p out of range", "top_p: 1.5\n", "config.yaml:1:8: top_p must be a number between 0 and 1, not 1.5"},
		{"rag_top_k too small", "rag_top_k: 0\n", "config.yaml:1:12: rag_top_k must be a number of at least 1, not 0"},
		{"model without name", "clients:\n  - type: x\n    models: [{max_input_tokens: 5}]\n", "clients[0].models[0] has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.yaml), mapEnv(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadWithoutFile(t *testing.T) {
	p := Paths{ConfigFile: filepath.Join(t.TempDir(), "config.yaml")}
	if _, err := Load(p, mapEnv(nil)); !errors.Is(err, ErrNoConfig) {
		t.Fatalf("err = %v, want ErrNoConfig", err)
	}
	cfg, err := Load(p, mapEnv(map[string]string{
		"COYOTE_PROVIDER": "openai", "OPENAI_API_KEY": "sk-1", "OPENAI_API_BASE": "http://x/v1",
		"COYOTE_MODEL": "openai:gpt-4.1", "COYOTE_PLUGIN_START_TIMEOUT": "2.5",
	}))
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Clients[0]
	if cfg.File != "" || c.Type != "openai" || c.Name != "openai" || c.APIKey != "sk-1" || c.APIBase != "http://x/v1" ||
		cfg.Model != "openai:gpt-4.1" || cfg.PluginStartTimeout != 2500*time.Millisecond {
		t.Fatalf("cfg = %+v, client %+v", cfg, c)
	}
}

func TestEnvPrefix(t *testing.T) {
	for in, want := range map[string]string{"openai": "OPENAI", "my-groq": "MY_GROQ", "a.b c": "A_B_C", "x2": "X2"} {
		if got := EnvPrefix(in); got != want {
			t.Errorf("EnvPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseEnvFile(t *testing.T) {
	in := `
# comment
OPENAI_API_KEY=sk-abc
export GROQ_API_KEY = gsk # trailing comment
QUOTED="a \"b\"\nc"
SINGLE='raw $x \n'
EMPTY=
`
	got, err := ParseEnvFile([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"OPENAI_API_KEY", "sk-abc"}, {"GROQ_API_KEY", "gsk"}, {"QUOTED", "a \"b\"\nc"}, {"SINGLE", `raw $x \n`}, {"EMPTY", ""}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d = %q, want %q", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"NOEQUALS\n", "1BAD=x\n", "X='open\n", "X=\"open\n"} {
		if _, err := ParseEnvFile([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "1:") {
			t.Errorf("ParseEnvFile(%q) err = %v, want an error on line 1", bad, err)
		}
	}
}

func TestLoadEnvFileDoesNotOverrideTheEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(path, []byte("COYOTE_T_SET=file\nCOYOTE_T_NEW=file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COYOTE_T_SET", "env")
	t.Setenv("COYOTE_T_NEW", "")
	os.Unsetenv("COYOTE_T_NEW")
	if err := LoadEnvFile(path); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("COYOTE_T_SET") != "env" || os.Getenv("COYOTE_T_NEW") != "file" {
		t.Fatalf("SET=%q NEW=%q", os.Getenv("COYOTE_T_SET"), os.Getenv("COYOTE_T_NEW"))
	}
	if err := LoadEnvFile(filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Fatalf("missing file: %v", err)
	}
}

// The original's example config must load with the same clients.
func TestOriginalExampleConfigLoads(t *testing.T) {
	path := compat.Path(t, "config.example.yaml")
	cfg, err := LoadWithSecrets(Paths{ConfigFile: path}, mapEnv(nil), fakeSecrets)
	if err != nil {
		t.Fatal(err)
	}
	ollama, ok := cfg.Client("ollama")
	if !ok || ollama.Type != "openai-compatible" || ollama.APIBase != "http://localhost:11434/v1" || len(ollama.Models) != 4 {
		t.Fatalf("ollama = %+v", ollama)
	}
	if ollama.Models[0].Name != "deepseek-r1" || ollama.Models[3].Type != "embedding" || ollama.Models[3].MaxBatchSize != 50 {
		t.Fatalf("ollama models = %+v", ollama.Models)
	}
	gemini, _ := cfg.Client("gemini")
	if rules := gemini.Patches[APIChat]; len(rules) != 1 || rules[0].Pattern != ".*" || rules[0].Body == nil {
		t.Fatalf("gemini patches = %+v", gemini.Patches)
	}
	if len(cfg.Clients) < 10 {
		t.Fatalf("only %d clients", len(cfg.Clients))
	}
}

func TestPatchesKeepOrderAndEnvReplacesThem(t *testing.T) {
	p := writeConfig(t, `
clients:
  - type: openai
    patch:
      chat_completions:
        'gpt-4o.*':
          url: https://proxy/v1/chat/completions
          body: {temperature: null}
          headers: {X-A: 1, X-Gone: null}
        '.*':
          body: {seed: 7}
      embeddings:
        '.*':
          body: {dimensions: 256}
`)
	cfg, err := Load(p, mapEnv(map[string]string{"COYOTE_PATCH_OPENAI_EMBEDDINGS": `{"text-.*": {"body": {"x": 1}}, ".*": {}}`}))
	if err != nil {
		t.Fatal(err)
	}
	chat := cfg.Clients[0].Patches[APIChat]
	if len(chat) != 2 || chat[0].Pattern != "gpt-4o.*" || chat[1].Pattern != ".*" || chat[0].URL != "https://proxy/v1/chat/completions" {
		t.Fatalf("chat rules = %+v", chat)
	}
	if v := chat[0].Headers["X-A"]; v == nil || *v != "1" || chat[0].Headers["X-Gone"] != nil {
		t.Fatalf("headers = %+v", chat[0].Headers)
	}
	if _, ok := chat[0].Headers["X-Gone"]; !ok {
		t.Fatal("a null header (delete) was dropped")
	}
	emb := cfg.Clients[0].Patches[APIEmbeddings]
	if len(emb) != 2 || emb[0].Pattern != "text-.*" || emb[1].Pattern != ".*" {
		t.Fatalf("the environment did not replace the embeddings rules: %+v", emb)
	}
	for _, bad := range []string{"patch: {chat_completions: {'(': {}}}", "patch: {chat_completions: {'.*': {bogus: 1}}}", "patch: [1]"} {
		if _, err := Load(writeConfig(t, "clients:\n  - type: openai\n    "+bad+"\n"), mapEnv(nil)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := Load(p, mapEnv(map[string]string{"COYOTE_PATCH_OPENAI_RERANK": `[1]`})); err == nil || !strings.Contains(err.Error(), "COYOTE_PATCH_OPENAI_RERANK") {
		t.Fatalf("bad env patch: err = %v", err)
	}
}

func TestEverySettingHasItsDefaultAndSource(t *testing.T) {
	cfg, err := Load(writeConfig(t, "clients: []\n"), mapEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want string
	}{
		{"stream", "true"}, {"save", "false"}, {"keybindings", "emacs"}, {"wrap", "no"},
		{"highlight", "true"}, {"function_calling_support", "true"}, {"enabled_tools", "null"},
		{"max_auto_continues", "10"}, {"compression_threshold", "4000"}, {"rag_top_k", "5"},
		{"memory_cap_with_tools", "6000"}, {"save_session", "null"}, {"rag_graph_hops", "1"},
		{"workspace_instructions_files", "[COYOTE.md, AGENTS.md, CLAUDE.md, GEMINI.md]"},
	}
	for _, tt := range tests {
		v := cfg.Get(tt.key)
		if v.Format() != tt.want || v.Src.Kind != "default" {
			t.Errorf("%s = %s from %s, want %s from default", tt.key, v.Format(), v.Src, tt.want)
		}
	}
}

func TestFileValuesListsAndNulls(t *testing.T) {
	p := writeConfig(t, `
stream: false
temperature: 0.3
enabled_tools: fs_cat, fs_ls
enabled_mcp_servers: []
visible_tools:
  - a.sh
  - b.sh
enabled_macros: null
rag_top_k: 8
reasoning_effort: high
light_theme: true
no_workspace_mcp: true
mapping_tools:
  fs: 'fs_cat,fs_ls'
bogus_key: 1
clients: []
`)
	cfg, err := Load(p, mapEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Bool("stream") || cfg.Get("stream").Src.String() != "file "+p.ConfigFile+":2" {
		t.Fatalf("stream = %v from %s", cfg.Get("stream").V, cfg.Get("stream").Src)
	}
	if v := cfg.Get("temperature"); v.V != 0.3 {
		t.Fatalf("temperature = %v", v.V)
	}
	tools, set := cfg.List("enabled_tools")
	if !set || strings.Join(tools, "|") != "fs_cat|fs_ls" {
		t.Fatalf("enabled_tools = %v %v", tools, set)
	}
	// [] is set and empty; null is unset: they mean different things.
	if mcp, set := cfg.List("enabled_mcp_servers"); !set || len(mcp) != 0 {
		t.Fatalf("enabled_mcp_servers = %v %v", mcp, set)
	}
	if _, set := cfg.List("enabled_macros"); set {
		t.Fatal("enabled_macros: null read as set")
	}
	if v, _ := cfg.List("visible_tools"); len(v) != 2 {
		t.Fatalf("visible_tools = %v", v)
	}
	if n, _ := cfg.Int("rag_top_k"); n != 8 {
		t.Fatalf("rag_top_k = %d", n)
	}
	// The original does not read these from the file.
	if !cfg.Get("reasoning_effort").Null || cfg.Bool("light_theme") {
		t.Fatal("a setting the original ignores in the file was read")
	}
	if m := cfg.Map("mapping_tools"); m["fs"] != "fs_cat,fs_ls" {
		t.Fatalf("mapping_tools = %v", m)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `config.yaml:16: unknown setting "bogus_key"`) {
		t.Fatalf("warnings = %v", cfg.Warnings)
	}
}

func TestEnvironmentOverridesEverySettingKind(t *testing.T) {
	p := writeConfig(t, "stream: false\nenabled_tools: [a]\nmodel: x:y\nclients: []\n")
	cfg, err := Load(p, mapEnv(map[string]string{
		"COYOTE_STREAM":                 "true",
		"COYOTE_ENABLED_TOOLS":          "null",
		"COYOTE_VISIBLE_TOOLS":          `["a.sh","b.sh"]`,
		"COYOTE_ENABLED_SKILLS":         "s1, s2",
		"COYOTE_ENABLED_MACROS":         "[]",
		"COYOTE_TEMPERATURE":            "0.7",
		"COYOTE_RAG_TOP_K":              "3",
		"COYOTE_DOCUMENT_LOADERS":       `{"pdf":"mutool draw -F txt $1"}`,
		"COYOTE_REASONING_EFFORT":       "low",
		"COYOTE_MODEL":                  "a:b",
		"COYOTE_WORKSPACE_INSTRUCTIONS": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Bool("stream") || cfg.Get("stream").Src.String() != "env COYOTE_STREAM" {
		t.Fatalf("stream from %s", cfg.Get("stream").Src)
	}
	if _, set := cfg.List("enabled_tools"); set {
		t.Fatal("null did not unset enabled_tools")
	}
	if v, _ := cfg.List("visible_tools"); strings.Join(v, ",") != "a.sh,b.sh" {
		t.Fatalf("visible_tools = %v", v)
	}
	if v, _ := cfg.List("enabled_skills"); strings.Join(v, ",") != "s1,s2" {
		t.Fatalf("enabled_skills = %v", v)
	}
	if v, set := cfg.List("enabled_macros"); !set || len(v) != 0 {
		t.Fatalf("enabled_macros = %v %v", v, set)
	}
	if cfg.Get("temperature").V != 0.7 || cfg.String("reasoning_effort") != "low" || cfg.Model != "a:b" {
		t.Fatalf("temperature %v effort %q model %q", cfg.Get("temperature").V, cfg.String("reasoning_effort"), cfg.Model)
	}
	if n, _ := cfg.Int("rag_top_k"); n != 3 {
		t.Fatalf("rag_top_k = %d", n)
	}
	if cfg.Map("document_loaders")["pdf"] != "mutool draw -F txt $1" || cfg.Bool("workspace_instructions") {
		t.Fatalf("loaders %v", cfg.Map("document_loaders"))
	}
	for name, bad := range map[string]string{"COYOTE_STREAM": "maybe", "COYOTE_RAG_TOP_K": "many", "COYOTE_DOCUMENT_LOADERS": "[1]", "COYOTE_VISIBLE_TOOLS": "[1,2]"} {
		if _, err := Load(p, mapEnv(map[string]string{name: bad})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: err = %v", name, bad, err)
		}
	}
	// Every error names the key the same way, whether the text fails to
	// parse or is out of range.
	for _, tt := range []struct{ name, bad, want string }{
		{"COYOTE_STREAM", "maybe", `COYOTE_STREAM: stream must be true or false, not "maybe"`},
		{"COYOTE_RAG_TOP_K", "many", `COYOTE_RAG_TOP_K: rag_top_k must be a whole number, not "many"`},
		{"COYOTE_RAG_TOP_K", "0", `COYOTE_RAG_TOP_K: rag_top_k must be a number of at least 1, not 0`},
		{"COYOTE_TEMPERATURE", "NaN", `COYOTE_TEMPERATURE: temperature must be a finite number between 0 and 2, not NaN`},
	} {
		if _, err := Load(p, mapEnv(map[string]string{tt.name: tt.bad})); err == nil || err.Error() != tt.want {
			t.Errorf("%s=%s: err = %v, want %s", tt.name, tt.bad, err, tt.want)
		}
	}
}

func TestTheOriginalsExampleConfigHasNoUnknownSettings(t *testing.T) {
	path := compat.Path(t, "config.example.yaml")
	cfg, err := LoadWithSecrets(Paths{ConfigFile: path}, mapEnv(nil), fakeSecrets)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Fatalf("warnings: %v", cfg.Warnings)
	}
	if v, _ := cfg.List("visible_tools"); len(v) == 0 {
		t.Fatal("visible_tools not read")
	}
}

func TestDirectoryOverrides(t *testing.T) {
	p, err := ResolvePaths(mapEnv(map[string]string{
		"COYOTE_CONFIG_DIR": "/c", "COYOTE_CACHE_DIR": "/k", "COYOTE_ROLES_DIR": "/r", "COYOTE_MACROS_DIR": "/m",
		"COYOTE_WORKSPACE_CONFIG_DIR": "/w", "COYOTE_MESSAGES_FILE": "/msgs.md",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.RolesDir != "/r" || p.MacrosDir != "/m" || p.SessionsDir != "/c/sessions" || p.AgentsDir != "/c/agents" ||
		p.WorkspaceDir != "/w" || p.MessagesFile != "/msgs.md" || p.FunctionsDir != "/c/functions" {
		t.Fatalf("paths = %+v", p)
	}
	p, _ = ResolvePaths(mapEnv(map[string]string{"COYOTE_CONFIG_DIR": "/c", "COYOTE_CACHE_DIR": "/k"}))
	wd, _ := os.Getwd()
	if p.WorkspaceDir != filepath.Join(wd, ".coyote") || p.MessagesFile != "/k/messages.md" {
		t.Fatalf("defaults = %+v", p)
	}
}

func TestSecretsAreInterpolatedBeforeParsing(t *testing.T) {
	p := writeConfig(t, "vault_password_file: /pw\nclients:\n  - type: openai\n    api_key: '{{OPENAI_KEY}}'\n    api_base: https://{{HOST}}/v1\n# a comment about {{NOT_A_SECRET}}\n")
	var asked []string
	cfg, err := LoadWithSecrets(p, mapEnv(nil), func(name, pw string) (string, error) {
		asked = append(asked, name+"@"+pw)
		return map[string]string{"OPENAI_KEY": "sk-from-vault", "HOST": "gw.example"}[name], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Clients[0]
	if c.APIKey != "sk-from-vault" || c.APIBase != "https://gw.example/v1" || strings.Join(asked, ",") != "OPENAI_KEY@/pw,HOST@/pw" {
		t.Fatalf("client %+v, asked %v", c, asked)
	}
	_, err = LoadWithSecrets(p, mapEnv(nil), func(name, _ string) (string, error) {
		return "", fmt.Errorf("secret %q is not in the vault: add it with coyote --add-secret %s", name, name)
	})
	if err == nil || !strings.Contains(err.Error(), "config.yaml") || !strings.Contains(err.Error(), "--add-secret OPENAI_KEY") {
		t.Fatalf("err = %v", err)
	}
	// No placeholders: the vault is never asked.
	plain := writeConfig(t, "clients: []\n")
	if _, err := LoadWithSecrets(plain, mapEnv(nil), func(string, string) (string, error) { panic("asked") }); err != nil {
		t.Fatal(err)
	}
}

// fakeSecrets answers every placeholder, as a vault holding them all would.
func fakeSecrets(name, _ string) (string, error) { return "secret-" + name, nil }

// Settings filled from the vault keep their text as written for people to
// see; the secret itself is only in the value the program uses.
func TestSecretSettingsShowTheirPlaceholders(t *testing.T) {
	const secret = `s3cr3t: "value" # with yaml in it`
	secrets := func(name, _ string) (string, error) {
		if name == "MISSING" || name == "ALSO_MISSING" {
			return "", fmt.Errorf("%w", vault.ErrNotFound)
		}
		return secret, nil
	}
	tests := []struct {
		name, file string
		key        string // a setting to check; "" checks the first client's key
		want       string // the value the program uses
		shown      string // what --info shows
	}{
		{"quoted", "user_agent: '{{UA}}'\n", "user_agent", secret, "{{UA}}"},
		{"unquoted", "user_agent: {{UA}}\n", "user_agent", secret, "{{UA}}"},
		{"in text", "user_agent: coyote {{ UA }}/1\n", "user_agent", "coyote " + secret + "/1", "coyote {{ UA }}/1"},
		{"in a list", "enabled_tools: [ {{UA}}, fs ]\n", "enabled_tools", "[" + secret + ", fs]", "[{{UA}}, fs]"},
		{"in a map", "mapping_tools:\n  x: '{{UA}}'\n", "mapping_tools", `{"x":"` + strings.ReplaceAll(secret, `"`, `\"`) + `"}`, `{"x":"{{UA}}"}`},
		{"no placeholder", "user_agent: plain\n", "user_agent", "plain", "plain"},
		{"client key unquoted", "clients:\n  - type: openai\n    api_key: {{K}}\n", "", secret, ""},
		{"loaders keep theirs", "document_loaders:\n  jina: 'curl -H \"Bearer {{K}}\" $1'\n", "document_loaders", `{"jina":"curl -H \"Bearer {{K}}\" $1"}`, `{"jina":"curl -H \"Bearer {{K}}\" $1"}`},
		{"comments need no secret", "# {{MISSING}}\nuser_agent: x\n", "user_agent", "x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadWithSecrets(writeConfig(t, tt.file), mapEnv(nil), secrets)
			if err != nil {
				t.Fatal(err)
			}
			if tt.key == "" {
				if got := cfg.Clients[0].APIKey; got != tt.want {
					t.Fatalf("api_key = %q, want %q", got, tt.want)
				}
				return
			}
			v := cfg.Get(tt.key)
			used := (&Value{V: v.V}).Format()
			if used != tt.want || v.Format() != tt.shown {
				t.Fatalf("%s = %q shown as %q, want %q shown as %q", tt.key, used, v.Format(), tt.want, tt.shown)
			}
		})
	}
	_, err := LoadWithSecrets(writeConfig(t, "user_agent: '{{MISSING}}'\nclients:\n  - type: openai\n    api_key: '{{ALSO_MISSING}}'\n"), mapEnv(nil), secrets)
	if err == nil || !strings.Contains(err.Error(), `"MISSING" and "ALSO_MISSING"`) {
		t.Fatalf("two missing secrets: err = %v", err)
	}
}

// Unknown settings make one warning, however many there are.
func TestUnknownSettingsMakeOneWarning(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"model: a:b\nmystery: 1\n", `config.yaml:2: unknown setting "mystery" is ignored`},
		{"a1: 1\nmodel: a:b\na2: 2\na3: 3\na4: 4\n", `config.yaml:1: 4 unknown settings ("a1", "a2", "a3", …) are ignored`},
	} {
		cfg, err := Load(writeConfig(t, tt.yaml), mapEnv(nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Warnings) != 1 || !strings.HasSuffix(cfg.Warnings[0], tt.want) {
			t.Errorf("warnings %q, want one ending %q", cfg.Warnings, tt.want)
		}
	}
}

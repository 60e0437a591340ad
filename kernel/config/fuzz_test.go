package config

import (
	"testing"
)

// Any config.yaml either loads or is refused with an error: it never
// panics, and a file that loads shows every setting (--info) without
// panicking either. A file with placeholders gets a secret for each.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"model: a:b\nclients:\n  - type: openai\n    api_key: '{{K}}'\n",
		"temperature: .nan\n",
		"top_p: [1]\n",
		"clients:\n  - {type: x, name: y, models: [{name: m}], patch: {chat_completions: {'.*': {body: {a: 1}}}}}\n",
		"document_loaders: {pdf: 'pdftotext $1 -'}\nenabled_tools: a,b\n",
		"user_agent: {{UA}}\nmodel: &a x\nsave: *a\n",
		"model: a\nmodel: b\n",
		"- 1\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	secrets := func(name, _ string) (string, error) { return "s3cr3t-" + name, nil }
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Config{File: "config.yaml", values: map[string]*Value{}}
		for _, k := range Keys {
			c.values[k.Name] = defaultValue(k)
		}
		if err := c.parse(data, secrets); err != nil {
			return
		}
		for _, k := range Keys {
			_ = c.Get(k.Name).Format()
			if v := c.Get(k.Name); !v.Null {
				if err := k.Check(v.V); err != nil {
					t.Fatalf("a loaded file holds a value its key refuses: %v", err)
				}
			}
		}
		_ = c.ClientNames()
	})
}

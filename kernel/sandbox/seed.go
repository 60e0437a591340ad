package sandbox

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Never copied into a sandbox: the vault's data, and the .env file that
// holds keys as variables.
var neverCopied = map[string]bool{"vault.yml": true, ".env": true}

// secretKeys are the client settings that hold a credential; the seed's
// config.yaml has them removed (the proxy supplies keys).
var secretKeys = map[string]bool{"api_key": true}

// WriteSeed copies the configuration directory into seed (which must be
// empty or missing) for the launcher to copy inside: every regular file
// except vault.yml and .env, config.yaml (configFile) with the clients'
// api_key values removed, and nothing under skip (the plugins directory,
// caches). Links are not followed.
func WriteSeed(configDir, configFile, seed string, skip []string) error {
	if err := os.MkdirAll(seed, 0o700); err != nil {
		return err
	}
	if _, err := os.Stat(configDir); os.IsNotExist(err) {
		return nil
	}
	return filepath.WalkDir(configDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, s := range skip {
			if path == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		rel, err := filepath.Rel(configDir, path)
		if err != nil {
			return err
		}
		target := filepath.Join(seed, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		case !d.Type().IsRegular() || neverCopied[d.Name()]:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if path == configFile {
			if data, err = stripSecrets(data); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return os.WriteFile(target, data, 0o600)
	})
}

// stripSecrets removes the credential settings of every client in a
// config.yaml, keeping everything else as written.
func stripSecrets(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, nil
	}
	root := doc.Content[0]
	changed := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "clients" || root.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, cl := range root.Content[i+1].Content {
			if cl.Kind != yaml.MappingNode {
				continue
			}
			kept := cl.Content[:0:0]
			for j := 0; j+1 < len(cl.Content); j += 2 {
				if secretKeys[cl.Content[j].Value] {
					changed = true
					continue
				}
				kept = append(kept, cl.Content[j], cl.Content[j+1])
			}
			cl.Content = kept
		}
	}
	if !changed {
		return data, nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

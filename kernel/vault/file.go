package vault

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/yamlerr"

	"gopkg.in/yaml.v3"
)

// FileName is the vault's file in the config directory.
const FileName = "vault.yml"

// fileHeader starts every vault.yml coyote writes, and fileTrailer ends
// it: YAML comments, which the original ignores (and drops when it
// rewrites the file). A file that starts with the header but lacks the
// trailer was cut short.
const (
	fileHeader = `# Coyote secrets vault, in the original coyote's format: names in clear,
# each value encrypted on its own. Change it with coyote --add-secret,
# --update-secret, --delete-secret: a value edited by hand no longer opens.
`
	fileTrailer = "# end of the vault\n"
)

// coyote1Version is the format number of the coyote_vault format.
const coyote1Version = 1

// fileV1 is a coyote_vault 1 vault.yml.
type fileV1 struct {
	Version int               `yaml:"coyote_vault"`
	KDF     kdfBlock          `yaml:"kdf"`
	Check   string            `yaml:"check"`
	Secrets map[string]string `yaml:"secrets"`
}

type kdfBlock struct {
	Name        string `yaml:"name"`
	MemoryKiB   uint32 `yaml:"memory_kib"`
	Iterations  uint32 `yaml:"iterations"`
	Parallelism uint8  `yaml:"parallelism"`
	Salt        string `yaml:"salt"`
}

// vaultFile is vault.yml in memory.
type vaultFile struct {
	// secrets maps each name to its value as stored: an envelope of the
	// original's format, or (v1 set) a coyote_vault 1 sealed value. It is
	// never nil.
	secrets map[string]string
	// v1 is the header of a coyote_vault 1 file, nil for the original's
	// format (and for no file).
	v1 *v1Header
}

// v1Header is what a coyote_vault 1 file holds besides its secrets.
type v1Header struct {
	params kdfParams
	salt   []byte
	check  string // base64, as sealed
}

// readVaultFile reads and parses path; a missing or blank file is an
// empty vault.
func readVaultFile(path string) (*vaultFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &vaultFile{secrets: map[string]string{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read vault: %w", err)
	}
	return decodeVaultFile(path, data)
}

// decodeVaultFile parses the content of the vault at path; an empty one
// is an empty vault.
func decodeVaultFile(path string, data []byte) (*vaultFile, error) {
	f, err := parseVaultFile(data)
	if err != nil {
		return nil, errorf(ErrTampered, "the vault %s is damaged: %s; restore it from a backup, or remove it and add the secrets again", path, err)
	}
	return f, nil
}

// parseVaultFile parses either format. Its errors say what is wrong
// without quoting any value.
func parseVaultFile(data []byte) (*vaultFile, error) {
	f := &vaultFile{secrets: map[string]string{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("it is not valid YAML (%s)", yamlReason(err))
	}
	if len(doc.Content) == 0 {
		// Only comments: the start of a vault whose rest is lost.
		return nil, errors.New("it has comments but no content")
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: it is not a YAML mapping", top.Line)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value == "coyote_vault" && !strings.HasPrefix(v.Value, envelopePrefix) {
			return parseV1(data, f)
		}
	}
	trailer := "\n" + strings.TrimSpace(fileTrailer)
	if bytes.HasPrefix(data, []byte(fileHeader)) && !bytes.HasSuffix(bytes.TrimRight(data, " \t\r\n"), []byte(trailer)) {
		return nil, fmt.Errorf("it is cut short (its last line, %q, is missing)", strings.TrimSpace(fileTrailer))
	}
	return parseEnvelopes(top, f)
}

// parseV1 parses a coyote_vault 1 file.
func parseV1(data []byte, f *vaultFile) (*vaultFile, error) {
	trimmed := bytes.TrimRight(data, " \t\r\n")
	if !bytes.HasSuffix(trimmed, []byte("\n...")) {
		return nil, errors.New("it is cut short (its last line, \"...\", is missing)")
	}
	var v fileV1
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("it does not have the vault's layout (%s)", yamlReason(err))
	}
	switch {
	case v.Version > coyote1Version:
		return nil, fmt.Errorf("it is in format %d, written by a newer coyote; upgrade coyote to read it", v.Version)
	case v.Version < 1:
		return nil, fmt.Errorf("its format number %d is not valid", v.Version)
	case v.KDF.Name != kdfName:
		return nil, fmt.Errorf("its key derivation %q is not %s", v.KDF.Name, kdfName)
	}
	h := &v1Header{params: kdfParams{memoryKiB: v.KDF.MemoryKiB, iterations: v.KDF.Iterations, parallelism: v.KDF.Parallelism}}
	if !h.params.valid() {
		return nil, fmt.Errorf("its key derivation costs (memory_kib %d, iterations %d, parallelism %d) are out of range",
			v.KDF.MemoryKiB, v.KDF.Iterations, v.KDF.Parallelism)
	}
	salt, err := base64.StdEncoding.DecodeString(v.KDF.Salt)
	if err != nil || len(salt) < minSaltLen || len(salt) > maxSaltLen {
		return nil, errors.New("its salt is not valid")
	}
	h.salt = salt
	if _, ok := decodeSealed(v.Check); !ok {
		return nil, errors.New("its check value is not valid")
	}
	h.check = v.Check
	f.v1 = h
	// Values are checked when opened, so that one damaged entry can still
	// be replaced or deleted.
	maps.Copy(f.secrets, v.Secrets)
	return f, nil
}

// parseEnvelopes parses the original's format: a flat map from name to
// envelope. Envelopes are checked when opened, so that one damaged entry
// can still be replaced or deleted.
func parseEnvelopes(top *yaml.Node, f *vaultFile) (*vaultFile, error) {
	if k, _ := yamlerr.RepeatedKey(top); k != nil {
		return nil, fmt.Errorf("line %d: secret %q appears twice", k.Line, k.Value)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || !strings.HasPrefix(v.Value, envelopePrefix) {
			return nil, fmt.Errorf("line %d: it is neither a coyote vault nor one written by the original coyote", k.Line)
		}
		f.secrets[k.Value] = v.Value
	}
	return f, nil
}

// yamlReason is a YAML error without its "yaml: " prefix.
func yamlReason(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// encode renders the vault in the original's format: a flat YAML map from
// name to envelope, sorted by name, between the header and trailer
// comments. It must not be called on a coyote_vault 1 file (convert it
// first).
func (f *vaultFile) encode() ([]byte, error) {
	if f.v1 != nil {
		return nil, errors.New("encode vault: a coyote_vault 1 file must be converted first")
	}
	var b bytes.Buffer
	b.WriteString(fileHeader)
	if len(f.secrets) == 0 {
		b.WriteString("{}\n")
	} else {
		top := &yaml.Node{Kind: yaml.MappingNode}
		for _, name := range slices.Sorted(maps.Keys(f.secrets)) {
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}
			if !plainKey(name) {
				key.Style = yaml.DoubleQuotedStyle
			}
			top.Content = append(top.Content, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.secrets[name]})
		}
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(top); err != nil {
			return nil, fmt.Errorf("encode vault: %w", err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("encode vault: %w", err)
		}
	}
	b.WriteString(fileTrailer)
	return b.Bytes(), nil
}

// plainKey reports whether a name can be written unquoted and read back
// as the same string by any YAML parser (1.1 or 1.2): an identifier that
// no YAML version reads as a boolean or null.
func plainKey(name string) bool {
	if !ValidName(name) {
		return false
	}
	switch strings.ToLower(name) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

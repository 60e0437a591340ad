package vault

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// FileName is the vault's file in the config directory.
const FileName = "vault.yml"

// legacyBackupSuffix names the copy of an original-format vault kept when
// it is converted.
const legacyBackupSuffix = ".legacy.bak"

const formatVersion = 1

const fileHeader = `# Coyote secrets vault. Names are stored in clear, values encrypted.
# Change it with coyote --add-secret, --update-secret, --delete-secret:
# a value edited by hand no longer decrypts.
`

// endMarker is YAML's end-of-document marker, written last so that a file
// cut short is noticed.
const endMarker = "..."

// fileV1 is vault.yml as written (see the package comment).
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

// vaultFile is vault.yml in memory, in either format.
type vaultFile struct {
	// legacy: the original's format; secrets holds its envelopes.
	legacy bool
	// header: a format-1 file (params, salt, check are set); secrets holds
	// base64 sealed values. Neither legacy nor header: no vault yet.
	header bool
	params kdfParams
	salt   []byte
	check  string // base64, as sealed
	// secrets is never nil.
	secrets map[string]string
	// raw is the file as read.
	raw []byte
}

func (f *vaultFile) keyID() string {
	return fmt.Sprintf("%d,%d,%d;%x", f.params.memoryKiB, f.params.iterations, f.params.parallelism, f.salt)
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
	f, err := parseVaultFile(data)
	if err != nil {
		return nil, errorf(ErrTampered, "the vault %s is damaged: %s; restore it from a backup, or remove it and add the secrets again", path, err)
	}
	f.raw = data
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
		if k.Value == "coyote_vault" && !strings.HasPrefix(v.Value, legacyPrefix) {
			return parseV1(data, f)
		}
	}
	return parseLegacyFile(top, f)
}

func parseV1(data []byte, f *vaultFile) (*vaultFile, error) {
	trimmed := bytes.TrimRight(data, " \t\r\n")
	if !bytes.HasSuffix(trimmed, []byte("\n"+endMarker)) {
		return nil, errors.New("it is cut short (its last line, \"...\", is missing)")
	}
	var v fileV1
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("it does not have the vault's layout (%s)", yamlReason(err))
	}
	switch {
	case v.Version > formatVersion:
		return nil, fmt.Errorf("it is in format %d, written by a newer coyote; upgrade coyote to read it", v.Version)
	case v.Version < 1:
		return nil, fmt.Errorf("its format number %d is not valid", v.Version)
	case v.KDF.Name != kdfName:
		return nil, fmt.Errorf("its key derivation %q is not %s", v.KDF.Name, kdfName)
	}
	f.header = true
	f.params = kdfParams{memoryKiB: v.KDF.MemoryKiB, iterations: v.KDF.Iterations, parallelism: v.KDF.Parallelism}
	if !f.params.valid() {
		return nil, fmt.Errorf("its key derivation costs (memory_kib %d, iterations %d, parallelism %d) are out of range",
			v.KDF.MemoryKiB, v.KDF.Iterations, v.KDF.Parallelism)
	}
	salt, err := base64.StdEncoding.DecodeString(v.KDF.Salt)
	if err != nil || len(salt) < minSaltLen || len(salt) > maxSaltLen {
		return nil, errors.New("its salt is not valid")
	}
	f.salt = salt
	if _, ok := decodeSealed(v.Check); !ok {
		return nil, errors.New("its check value is not valid")
	}
	f.check = v.Check
	// Values are checked when opened, so that one damaged entry can still
	// be replaced or deleted.
	for name, value := range v.Secrets {
		f.secrets[name] = value
	}
	return f, nil
}

func parseLegacyFile(top *yaml.Node, f *vaultFile) (*vaultFile, error) {
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || !strings.HasPrefix(v.Value, legacyPrefix) {
			return nil, fmt.Errorf("line %d: it is neither a coyote vault nor one written by the original coyote", k.Line)
		}
		if _, dup := f.secrets[k.Value]; dup {
			return nil, fmt.Errorf("line %d: secret %q appears twice", k.Line, k.Value)
		}
		f.secrets[k.Value] = v.Value
	}
	f.legacy = len(f.secrets) > 0
	return f, nil
}

// yamlReason is a YAML error without its "yaml: " prefix.
func yamlReason(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// encode renders f in its format.
func (f *vaultFile) encode() ([]byte, error) {
	if f.legacy {
		data, err := yaml.Marshal(f.secrets)
		if err != nil {
			return nil, fmt.Errorf("encode vault: %w", err)
		}
		return data, nil
	}
	v := fileV1{
		Version: formatVersion,
		KDF: kdfBlock{
			Name:        kdfName,
			MemoryKiB:   f.params.memoryKiB,
			Iterations:  f.params.iterations,
			Parallelism: f.params.parallelism,
			Salt:        base64.StdEncoding.EncodeToString(f.salt),
		},
		Check:   f.check,
		Secrets: f.secrets,
	}
	var b bytes.Buffer
	b.WriteString(fileHeader)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode vault: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode vault: %w", err)
	}
	b.WriteString(endMarker + "\n")
	return b.Bytes(), nil
}

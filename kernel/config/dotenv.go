package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/coyote-cli/coyote/kernel/textutil"
)

// LoadEnvFile exports the variables of a .env file that are not already set
// in the environment. A missing file is not an error.
//
// Lines are KEY=VALUE, optionally prefixed with "export "; blank lines and
// lines starting with # are skipped; a value may be wrapped in single quotes
// (taken literally) or double quotes (with \n, \t, \" and \\ escapes);
// an unquoted value ends at " #".
func LoadEnvFile(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	vars, err := ParseEnvFile(data)
	if err != nil {
		return fmt.Errorf("%s:%w", path, err)
	}
	for _, kv := range vars {
		if _, set := os.LookupEnv(kv[0]); !set {
			if err := os.Setenv(kv[0], kv[1]); err != nil {
				return fmt.Errorf("%s: set %s: %w", path, kv[0], err)
			}
		}
	}
	return nil
}

// ParseEnvFile parses .env content into ordered key/value pairs. Errors
// start with the line number.
func ParseEnvFile(data []byte) ([][2]string, error) {
	var out [][2]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !validEnvKey(key) {
			return nil, fmt.Errorf("%d: expected KEY=VALUE, got %q", n, textutil.Cut(line, 40))
		}
		val, err := envValue(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("%d: %s: %w", n, key, err)
		}
		out = append(out, [2]string{key, val})
	}
	return out, sc.Err()
}

func envValue(v string) (string, error) {
	switch {
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", errors.New("unterminated single quote")
		}
		return v[1 : end+1], nil
	case strings.HasPrefix(v, `"`):
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			c := v[i]
			switch {
			case c == '"':
				return b.String(), nil
			case c == '\\' && i+1 < len(v):
				i++
				switch v[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(v[i])
				}
			default:
				b.WriteByte(c)
			}
		}
		return "", errors.New("unterminated double quote")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, nil
}

func validEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

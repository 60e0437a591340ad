package vault

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// MinPasswordLength is the fewest characters a new vault password may
// have, as in the original.
const MinPasswordLength = 10

// maxPasswordFile bounds how much of a password file is read: a larger
// file is not a password file.
const maxPasswordFile = 64 << 10

// CreatePasswordFile writes password to a new password file at path, mode
// 0600, creating missing directories (0700). It is the CLI's first-run
// step, after asking for the password in a terminal.
//
// It refuses a password shorter than MinPasswordLength characters
// (ErrPasswordTooShort) or with leading or trailing white space (which
// reading would drop), and never replaces a password file that has a
// password in it: without it the vault cannot be opened (the error matches
// fs.ErrExist). An empty existing file is filled in.
func CreatePasswordFile(path, password string) error {
	if path == "" {
		return errorf(ErrNoPasswordFile, "no vault password file is configured: set vault_password_file in config.yaml")
	}
	if n := utf8.RuneCountInString(password); n < MinPasswordLength {
		return errorf(ErrPasswordTooShort, "the vault password must have at least %d characters, this one has %d", MinPasswordLength, n)
	}
	if strings.TrimSpace(password) != password {
		return errors.New("the vault password must not begin or end with white space")
	}
	switch st, err := os.Stat(path); {
	case err == nil && st.IsDir():
		return fmt.Errorf("create vault password file %s: it is a directory", path)
	case err == nil && st.Size() > 0:
		return fmt.Errorf("create vault password file %s: %w: it already holds a password, and the vault cannot be opened without it; remove it yourself if you really mean to replace it", path, fs.ErrExist)
	case err == nil:
		// An empty file, maybe made with a wider mode, is replaced by a
		// private one.
		if err := fsx.WritePrivate(path, []byte(password)); err != nil {
			return fmt.Errorf("create vault password file: %w", err)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("create vault password file: %w", err)
	}
	// Never over a file another process has just created: each would then
	// seal secrets with a password the file no longer holds.
	created, err := fsx.CreateNew(path, []byte(password), fsx.PrivateFileMode)
	if err != nil {
		return fmt.Errorf("create vault password file: %w", err)
	}
	if !created {
		return fmt.Errorf("create vault password file %s: %w: another process has just created it", path, fs.ErrExist)
	}
	return nil
}

// generatedPasswordBytes is the randomness of GeneratePassword: 192
// bits, 32 characters.
const generatedPasswordBytes = 24

// GeneratePassword returns a new random password for CreatePasswordFile:
// 32 characters of URL-safe base64 (192 random bits), for a first use
// where no one can be asked for one.
func GeneratePassword() (string, error) {
	b := make([]byte, generatedPasswordBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a vault password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// readPassword reads and checks the password file.
func readPassword(path string) ([]byte, error) {
	if path == "" {
		return nil, errorf(ErrNoPasswordFile, "no vault password file is configured: set vault_password_file in config.yaml to a file holding the vault password")
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorf(ErrNoPasswordFile, "the vault password file %s does not exist: put a password of at least %d characters in it and run chmod 600 %s", path, MinPasswordLength, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read vault password file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read vault password file: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("read vault password file %s: it is a directory; set vault_password_file to the file that holds the password", path)
	}
	if perm := st.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, errorf(ErrInsecurePasswordFile, "the vault password file %s can be read or changed by other users (mode %04o): run chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPasswordFile+1))
	if err != nil {
		return nil, fmt.Errorf("read vault password file: %w", err)
	}
	if len(data) > maxPasswordFile {
		return nil, fmt.Errorf("read vault password file %s: it is larger than %d KiB, which no password is; check vault_password_file in config.yaml", path, maxPasswordFile>>10)
	}
	password := []byte(strings.TrimSpace(string(data)))
	clear(data)
	if len(password) == 0 {
		return nil, errorf(ErrNoPasswordFile, "the vault password file %s is empty: put the vault password in it", path)
	}
	return password, nil
}

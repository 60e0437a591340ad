package vault

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, for the CLI to choose what to do (offer to create the
// password file, ask to add a secret, …) with errors.Is. The errors
// returned carry a full one-line message of their own that names the files
// involved and how to fix the problem; these sentinels only classify them.
var (
	// ErrNoPasswordFile: no password file is configured, or it does not
	// exist, or it is empty. The CLI may offer to create it
	// (CreatePasswordFile).
	ErrNoPasswordFile = errors.New("no vault password file")
	// ErrInsecurePasswordFile: the password file can be read or written
	// by the group or by others.
	ErrInsecurePasswordFile = errors.New("vault password file is not private")
	// ErrPasswordTooShort: CreatePasswordFile was given a password shorter
	// than MinPasswordLength characters.
	ErrPasswordTooShort = errors.New("vault password is too short")
	// ErrBadPassword: the password does not unlock the vault.
	ErrBadPassword = errors.New("wrong vault password")
	// ErrTampered: vault.yml is damaged, cut short or was edited, or a
	// secret is sealed without a key (the original's oldest files).
	ErrTampered = errors.New("vault file is damaged")
	// ErrNotFound: a secret is not in the vault.
	ErrNotFound = errors.New("secret not in the vault")
	// ErrExists: Add was given a name the vault already has.
	ErrExists = errors.New("secret already in the vault")
)

// vaultError is an error of one of the sentinel kinds with its own
// message.
type vaultError struct {
	kind error
	msg  string
}

func (e *vaultError) Error() string { return e.msg }
func (e *vaultError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &vaultError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// NotFoundIn is the error of a lookup for Interpolate: the secret is not
// where secrets are kept (Where: "the secrets provider aws_secrets_manager").
// It matches ErrNotFound, and Interpolate names Where in its message.
type NotFoundIn struct{ Name, Where string }

func (e *NotFoundIn) Error() string {
	return (&missingError{names: []string{e.Name}, where: e.Where}).Error()
}
func (e *NotFoundIn) Unwrap() error { return ErrNotFound }

// MissingIn is the error for secrets that are not in where (all of them at
// once), with the command that adds them. It matches ErrNotFound.
func MissingIn(names []string, where string) error {
	return &missingError{names: names, where: where}
}

// missingError names the secrets that are not in the vault (or where) and
// the command that adds them. It matches ErrNotFound.
type missingError struct {
	names []string
	where string
}

func (e *missingError) Unwrap() error { return ErrNotFound }

func (e *missingError) Error() string {
	where := e.where
	if where == "" {
		where = "the vault"
	}
	if len(e.names) == 1 {
		return fmt.Sprintf("secret %q is not in %s: add it with coyote --add-secret %s", e.names[0], where, e.names[0])
	}
	quoted := make([]string, len(e.names))
	for i, n := range e.names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	last := len(quoted) - 1
	list := strings.Join(quoted[:last], ", ") + " and " + quoted[last]
	return fmt.Sprintf("secrets %s are not in %s: add each with coyote --add-secret NAME", list, where)
}

func notFound(name string) error { return &missingError{names: []string{name}} }

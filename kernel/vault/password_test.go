package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPasswordFileAccessibleToOthersIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o620, 0o602, 0o601, 0o610, 0o777} {
		dir := t.TempDir()
		mustSet(t, testVault(t, dir, "correct horse battery"), "A", "a")
		pw := writePasswordFile(t, "correct horse battery")
		if err := os.Chmod(pw, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, pw).Get("A")
		if !errors.Is(err, ErrInsecurePasswordFile) {
			t.Fatalf("mode %04o: got %v", mode, err)
		}
		if !strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "chmod 600 "+pw) {
			t.Fatalf("mode %04o: the error does not say how to fix it: %v", mode, err)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		dir := t.TempDir()
		mustSet(t, testVault(t, dir, "correct horse battery"), "A", "a")
		pw := writePasswordFile(t, "correct horse battery")
		os.Chmod(pw, mode)
		mustGet(t, Open(dir, pw), "A", "a")
	}
}

func TestMissingOrEmptyPasswordFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	mustSet(t, testVault(t, dir, "correct horse battery"), "A", "a")
	missing := filepath.Join(t.TempDir(), "nope")
	empty := writePasswordFile(t, " \n")
	tests := []struct {
		file, want string
	}{
		{"", "set vault_password_file in config.yaml"},
		{missing, missing + " does not exist"},
		{empty, empty + " is empty"},
	}
	for _, tt := range tests {
		_, err := Open(dir, tt.file).Get("A")
		if !errors.Is(err, ErrNoPasswordFile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("password file %q: got %v, want ErrNoPasswordFile saying %q", tt.file, err, tt.want)
		}
		if err := Open(t.TempDir(), tt.file).Set("A", "a"); !errors.Is(err, ErrNoPasswordFile) {
			t.Errorf("creating a vault with password file %q: %v", tt.file, err)
		}
	}
}

// The password is the file's content without surrounding white space, as
// in the original: "echo password > file" works.
func TestPasswordFileWhiteSpaceIsIgnored(t *testing.T) {
	dir := t.TempDir()
	mustSet(t, testVault(t, dir, "correct horse battery"), "A", "a")
	mustGet(t, Open(dir, writePasswordFile(t, "  correct horse battery\r\n\n")), "A", "a")
}

func TestCreatePasswordFile(t *testing.T) {
	tests := []struct {
		name, password string
		want           error
	}{
		{"ten characters", "0123456789", nil},
		{"ten multi-byte characters", "ünïcødé🔑ab", nil},
		{"nine characters", "012345678", ErrPasswordTooShort},
		{"nine characters in more bytes", "ünïcødé🔑a", ErrPasswordTooShort},
		{"empty", "", ErrPasswordTooShort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "pw")
			err := CreatePasswordFile(path, tt.password)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
					t.Fatal("a refused password was written")
				}
				return
			}
			data, _ := os.ReadFile(path)
			st, _ := os.Stat(path)
			if string(data) != tt.password || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
				t.Fatalf("wrote %q mode %04o", data, st.Mode().Perm())
			}
			// And it opens a vault.
			v := Open(t.TempDir(), path)
			v.params = cheap
			mustSet(t, v, "A", "a")
			mustGet(t, Open(filepath.Dir(v.path), path), "A", "a")
		})
	}
}

func TestCreatePasswordFileRefusesSurroundingWhiteSpace(t *testing.T) {
	for _, pw := range []string{" 0123456789", "0123456789\n", "0123456789\t"} {
		if err := CreatePasswordFile(filepath.Join(t.TempDir(), "pw"), pw); err == nil || !strings.Contains(err.Error(), "white space") {
			t.Errorf("%q: %v", pw, err)
		}
	}
}

// Without its password a vault is lost, so an existing password is never
// replaced; an empty file (the original offered to fill one) is filled and
// made private.
func TestCreatePasswordFileNeverReplacesAPassword(t *testing.T) {
	path := writePasswordFile(t, "the old password")
	err := CreatePasswordFile(path, "a new password")
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("got %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "the old password" {
		t.Fatalf("the password file now holds %q", data)
	}

	empty := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(empty, nil, 0o644)
	if err := CreatePasswordFile(empty, "a new password"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(empty)
	st, _ := os.Stat(empty)
	if string(data) != "a new password" || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Fatalf("wrote %q mode %04o", data, st.Mode().Perm())
	}
	if err := CreatePasswordFile("", "a new password"); !errors.Is(err, ErrNoPasswordFile) {
		t.Fatalf("no path: %v", err)
	}
}

// A generated password is long enough, private once written, and new each
// time.
func TestGeneratedPasswordCreatesAUsableFile(t *testing.T) {
	a, err := GeneratePassword()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GeneratePassword()
	if len(a) != 32 || a == b || strings.TrimSpace(a) != a {
		t.Fatalf("generated %q and %q", a, b)
	}
	path := filepath.Join(t.TempDir(), "pw")
	if err := CreatePasswordFile(path, a); err != nil {
		t.Fatal(err)
	}
	if err := CreatePasswordFile(path, b); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a second password file over the first: %v", err)
	}
	v := Open(t.TempDir(), path)
	v.params = cheap
	mustSet(t, v, "A", "a")
	mustGet(t, Open(filepath.Dir(v.path), path), "A", "a")
}

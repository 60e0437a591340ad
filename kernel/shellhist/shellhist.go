// Package shellhist appends a command to the history file of the user's
// shell (bash, zsh, fish), in the file's own format, so the command that
// `coyote -e` ran comes back with the shell's up arrow.
package shellhist

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Shell is the base name of a shell program ("/usr/bin/zsh" -> "zsh").
func Shell(program string) string {
	base := program
	if k := strings.LastIndexAny(base, `/\`); k >= 0 {
		base = base[k+1:]
	}
	return strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
}

// File is the history file of shell: $HISTFILE (when exported) or the
// shell's default; "" for a shell whose history is not written here.
func File(shell string, getenv func(string) string, home string) string {
	data := getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	switch shell {
	case "bash":
		if f := getenv("HISTFILE"); f != "" {
			return f
		}
		return filepath.Join(home, ".bash_history")
	case "zsh":
		if f := getenv("HISTFILE"); f != "" {
			return f
		}
		dir := getenv("ZDOTDIR")
		if dir == "" {
			dir = home
		}
		return filepath.Join(dir, ".zsh_history")
	case "fish":
		name := getenv("fish_history")
		if name == "" {
			name = "fish"
		}
		return filepath.Join(data, "fish", name+"_history")
	}
	return ""
}

// Append adds command to shell's history file, in the format the file
// already has: bash's "#<time>" lines and zsh's extended ": <time>:0;"
// entries when the file's last entries have them (HISTTIMEFORMAT and
// EXTENDED_HISTORY are the shell's own variables, which coyote cannot
// see). The entry is one write to a file opened for appending, as the
// shells themselves append. An unknown shell is not an error: nothing is
// written (ok false).
func Append(shell, file, command string, now time.Time) (ok bool, err error) {
	if file == "" {
		return false, nil
	}
	tail, err := readTail(file)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", file, err)
	}
	var entry []byte
	switch shell {
	case "bash":
		entry = bashEntry(command, now, bashTimed.Match(tail))
	case "zsh":
		entry = zshEntry(command, now, zshExtended.Match(tail))
	case "fish":
		entry = fishEntry(command, now)
	default:
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, fmt.Errorf("append to %s: %w", file, err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("append to %s: %w", file, err)
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		entry = append([]byte{'\n'}, entry...)
	}
	if _, err := f.Write(entry); err != nil {
		f.Close()
		return false, fmt.Errorf("append to %s: %w", file, err)
	}
	return true, f.Close()
}

var (
	bashTimed   = regexp.MustCompile(`(?m)^#\d{9,}$`)
	zshExtended = regexp.MustCompile(`(?m)^: \d+:\d+;`)
)

// readTail is the last few KiB of a file ("" when there is none).
func readTail(file string) ([]byte, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const n = 4096
	if st, err := f.Stat(); err == nil && st.Size() > n {
		if _, err := f.Seek(-n, io.SeekEnd); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(f)
}

// bashEntry is the command as bash writes it: as is, after a "#<time>"
// line when the file is timestamped (bash then reads a multi-line
// command back as one entry).
func bashEntry(command string, now time.Time, timed bool) []byte {
	var b bytes.Buffer
	if timed {
		b.WriteString("#" + strconv.FormatInt(now.Unix(), 10) + "\n")
	}
	b.WriteString(command + "\n")
	return b.Bytes()
}

// zshEntry is the command as zsh writes it: every line but the last ends
// with a backslash, the bytes zsh uses internally (0x83 to 0xa2, and NUL)
// are "metafied" (0x83, then the byte xor 0x20), and with
// EXTENDED_HISTORY the entry starts ": <start>:<duration>;".
func zshEntry(command string, now time.Time, extended bool) []byte {
	var b bytes.Buffer
	if extended {
		b.WriteString(": " + strconv.FormatInt(now.Unix(), 10) + ":0;")
	}
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\n':
			b.WriteString("\\\n")
		case c == 0 || (c >= 0x83 && c <= 0xa2):
			b.WriteByte(0x83)
			b.WriteByte(c ^ 0x20)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// fishEntry is the command as fish writes it: a YAML-like "- cmd:" item
// whose backslashes and newlines are escaped, and its time.
func fishEntry(command string, now time.Time) []byte {
	cmd := strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(command)
	return []byte("- cmd: " + cmd + "\n  when: " + strconv.FormatInt(now.Unix(), 10) + "\n")
}

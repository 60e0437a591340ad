package session

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with the file, or rewrites the file with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from what the code produces (go test -update rewrites it):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first differing line.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return "(same lines)"
}

// dump renders messages one part a line, for golden files and failures.
func dump(msgs []provider.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s\n", m.Role)
		for _, p := range m.Parts {
			switch {
			case p.ToolCall != nil:
				c := p.ToolCall
				fmt.Fprintf(&b, "  call id=%q name=%q args=%q sig=%q\n", c.ID, c.Name, c.Arguments, c.Signature)
			case p.ToolResult != nil:
				r := p.ToolResult
				fmt.Fprintf(&b, "  result id=%q name=%q error=%v content=%q\n", r.CallID, r.Name, r.IsError, r.Content)
			case p.Reasoning != nil:
				r := p.Reasoning
				fmt.Fprintf(&b, "  reasoning text=%q sig=%q redacted=%q\n", r.Text, r.Signature, r.Redacted)
			case p.ImageURL != "":
				fmt.Fprintf(&b, "  image %q\n", p.ImageURL)
			default:
				fmt.Fprintf(&b, "  text %q\n", p.Text)
			}
		}
	}
	return b.String()
}

func decodeFile(t *testing.T, path string) (*fileData, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return fd, data
}

// TestFilesRoundTripByteForByte: a file in the form this package writes
// is written back identical, every content form and every field it does
// not know included.
func TestFilesRoundTripByteForByte(t *testing.T) {
	for _, name := range []string{"every-form.yaml", "unknown-fields.yaml", "minimal.yaml"} {
		t.Run(name, func(t *testing.T) {
			fd, data := decodeFile(t, filepath.Join("testdata", name))
			if got := encode(fd); string(got) != string(data) {
				t.Errorf("written back differently:\n%s", lineDiff(string(data), string(got)))
			}
		})
	}
}

// TestOriginalStyleFileIsReadAndNormalised: a file written by the
// original program, or edited by hand (comments, a CSV list, flow and
// folded styles), loads; it is written in this package's style, and the
// written file means the same.
func TestOriginalStyleFileIsReadAndNormalised(t *testing.T) {
	fd, _ := decodeFile(t, "testdata/original-style.yaml")
	out := encode(fd)
	golden(t, "testdata/original-style.golden.yaml", out)
	again, err := decode("again", out)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := dump(toMessages(fd.messages, nil)), dump(toMessages(again.messages, nil)); a != b {
		t.Errorf("the rewritten file means something else:\n%s", lineDiff(a, b))
	}
	if got := fd.settings.EnabledTools; len(got) != 2 || got[0] != "fs_cat" || got[1] != "fs_ls" {
		t.Errorf("enabled_tools read as %q", got)
	}
	if fd.settings.SaveSession != nil {
		t.Errorf("save_session: null read as set")
	}
}

// TestFileMessagesConvertToKernelMessages pins how every content form
// reaches the kernel: text, parts, thinking, and tool-call entries split
// into rounds (narration, thinking, a repeated id), with one tool message
// holding every result.
func TestFileMessagesConvertToKernelMessages(t *testing.T) {
	for _, name := range []string{"every-form", "unknown-fields", "original-style"} {
		t.Run(name, func(t *testing.T) {
			fd, _ := decodeFile(t, filepath.Join("testdata", name+".yaml"))
			golden(t, filepath.Join("testdata", name+".messages.txt"), []byte(dump(toMessages(fd.messages, nil))))
		})
	}
}

// TestKernelMessagesRebuildTheFile: converting a file's messages to the
// kernel's and back gives the same file, tool rounds with thinking and
// repeated ids included.
func TestKernelMessagesRebuildTheFile(t *testing.T) {
	fd, data := decodeFile(t, "testdata/every-form.yaml")
	entries, err := fromMessages(toMessages(fd.messages, nil))
	if err != nil {
		t.Fatal(err)
	}
	fd.messages = entries
	if got := encode(fd); string(got) != string(data) {
		t.Errorf("rebuilt differently:\n%s", lineDiff(string(data), string(got)))
	}
}

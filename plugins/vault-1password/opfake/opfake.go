// Package opfake is a stand-in for 1Password's op command, for tests: a
// test binary run under the name op calls Main. It keeps items as JSON
// files in $OP_FAKE_DIR/items and appends each command line (arguments
// joined by NUL) to $OP_FAKE_DIR/argv.log, so a test can check that no
// value was ever on it. $OP_FAKE_SIGNED_OUT makes every command fail as op
// does when its session has expired.
package opfake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

type fakeItem struct {
	ID, Title, Vault, Password string
}

// Main runs the stand-in with the command's arguments and returns its
// exit code.
func Main(args []string) int {
	dir := os.Getenv("OP_FAKE_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "stand-in: OP_FAKE_DIR is not set")
		return 2
	}
	log, _ := os.OpenFile(filepath.Join(dir, "argv.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	fmt.Fprintln(log, strings.Join(args, "\x00"))
	log.Close()
	if os.Getenv("OP_FAKE_SIGNED_OUT") != "" {
		fmt.Fprintln(os.Stderr, "[ERROR] 2026/12/01 10:00:00 You are not currently signed in. Please run `op signin --help` for instructions")
		return 1
	}
	items := filepath.Join(dir, "items")
	_ = os.MkdirAll(items, 0o700)
	vaultName := "Private"
	var pos []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--vault":
			vaultName = args[i+1]
			i++
		case "--account", "--categories", "--format", "--fields":
			i++
		case "--reveal", "--archive":
		default:
			pos = append(pos, args[i])
		}
	}
	load := func() []fakeItem {
		var out []fakeItem
		des, _ := os.ReadDir(items)
		for _, de := range des {
			var it fakeItem
			b, _ := os.ReadFile(filepath.Join(items, de.Name()))
			_ = json.Unmarshal(b, &it)
			if it.Vault == vaultName {
				out = append(out, it)
			}
		}
		return out
	}
	find := func(id string) (fakeItem, bool) {
		for _, it := range load() {
			if it.ID == id {
				return it, true
			}
		}
		fmt.Fprintf(os.Stderr, "[ERROR] %q isn't an item in the %q vault. Specify the item with its UUID, name, or domain.\n", id, vaultName)
		return fakeItem{}, false
	}
	switch strings.Join(pos, " ") {
	case "item list":
		var list []map[string]string
		for _, it := range load() {
			list = append(list, map[string]string{"id": it.ID, "title": it.Title})
		}
		b, _ := json.Marshal(list)
		fmt.Println(string(b))
		return 0
	case "item create":
		var tmpl struct {
			Title    string
			Category string
			Fields   []struct{ ID, Value string }
		}
		b, _ := io.ReadAll(os.Stdin)
		if err := json.Unmarshal(b, &tmpl); err != nil || tmpl.Category != "PASSWORD" || len(tmpl.Fields) != 1 || tmpl.Fields[0].ID != "password" {
			fmt.Fprintln(os.Stderr, "[ERROR] bad template")
			return 1
		}
		var id [8]byte
		_, _ = rand.Read(id[:])
		it := fakeItem{ID: hex.EncodeToString(id[:]), Title: tmpl.Title, Vault: vaultName, Password: tmpl.Fields[0].Value}
		b, _ = json.Marshal(it)
		_ = os.WriteFile(filepath.Join(items, it.ID), b, 0o600)
		return 0
	}
	if len(pos) == 3 && pos[0] == "item" {
		it, ok := find(pos[2])
		if !ok {
			return 1
		}
		switch pos[1] {
		case "get":
			if !slices.Contains(args, "--reveal") {
				fmt.Println("[use 'op item get " + it.ID + " --reveal' to reveal]")
				return 0
			}
			fmt.Println(it.Password)
			return 0
		case "delete":
			_ = os.Remove(filepath.Join(items, it.ID))
			return 0
		}
	}
	fmt.Fprintln(os.Stderr, "fake op: unexpected arguments", args)
	return 2
}

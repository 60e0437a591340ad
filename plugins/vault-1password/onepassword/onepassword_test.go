package onepassword

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
	"github.com/coyote-cli/coyote/sdk/vault/vaulttest"
)

// The test binary is also the stand-in op: run under that name, it keeps
// items as JSON files in $FAKE_OP_DIR/items and records each command line
// in argv.log. $FAKE_OP_SIGNED_OUT makes every command fail as op does
// when its session has expired.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "op" {
		os.Exit(fakeOp(os.Args[1:]))
	}
	os.Exit(m.Run())
}

type fakeItem struct {
	ID, Title, Vault, Password string
}

func fakeOp(args []string) int {
	dir := os.Getenv("FAKE_OP_DIR")
	log, _ := os.OpenFile(filepath.Join(dir, "argv.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	fmt.Fprintln(log, strings.Join(args, "\x00"))
	log.Close()
	if os.Getenv("FAKE_OP_SIGNED_OUT") != "" {
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

func standIn(t *testing.T) string {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "op")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_OP_DIR", dir)
	return dir
}

func TestRoundTripThroughOp(t *testing.T) {
	for _, vaultName := range []string{"", "Production"} {
		t.Run("vault="+vaultName, func(t *testing.T) {
			dir := standIn(t)
			v := New()
			settings := map[string]string{"account": "my.1password.com"}
			if vaultName != "" {
				settings["vault"] = vaultName
			}
			if err := v.Configure(context.Background(), &vault.ConfigureRequest{Settings: settings}); err != nil {
				t.Fatal(err)
			}
			vaulttest.Run(t, v, vaulttest.Options{})
			b, _ := os.ReadFile(filepath.Join(dir, "argv.log"))
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				for _, secret := range []string{"sk-test", "sk-rotated", "quotes"} {
					if strings.Contains(line, secret) {
						t.Errorf("a value reached op's command line: %q", line)
					}
				}
				if !strings.Contains(line, "--account\x00my.1password.com") {
					t.Errorf("command without the account: %q", line)
				}
				if vaultName != "" && !strings.Contains(line, "--vault\x00"+vaultName) {
					t.Errorf("command without the vault: %q", line)
				}
			}
		})
	}
}

func TestOpSignedOutIsUnauthenticated(t *testing.T) {
	standIn(t)
	t.Setenv("FAKE_OP_SIGNED_OUT", "1")
	v := New()
	if err := v.Configure(context.Background(), &vault.ConfigureRequest{}); err != nil {
		t.Fatal(err)
	}
	_, err := v.Get(context.Background(), &vault.GetRequest{Names: []string{"OPENAI_API_KEY"}})
	if !errors.Is(err, sdk.ErrUnauthenticated) || !strings.Contains(err.Error(), "op signin") || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("signed out: %v", err)
	}
}

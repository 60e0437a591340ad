package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal ends an idle REPL at once, with the session handled as .exit
// would without asking, every plugin stopped, and the exit code of the
// signal.
func TestSignalsEndTheREPLKeepingTheSession(t *testing.T) {
	tests := []struct {
		name        string
		saveSession string // the save_session line of config.yaml
		hangUp      bool   // close the terminal instead of SIGTERM
		code        int
		saved       bool // sessions/work.yaml written
		kept        bool // a recovery copy under sessions/_/
	}{
		{"SIGTERM, save_session true", "save_session: true\n", false, 143, true, false},
		{"SIGTERM, ask", "", false, 143, false, true},
		{"terminal closed, ask", "", true, 129, false, true},
		{"terminal closed, save_session false", "save_session: false\n", true, 129, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := startREPLFake(t, reply("Coyotes howl at dusk."))
			e := newEnv(t, tt.saveSession+openAIConfig(fake.url, "k"))
			p := e.startREPL()
			p.enter(".session work", sessionPrompt("work"))
			p.enter("when do coyotes howl", "Coyotes howl at dusk.", sessionPrompt("work"))
			plugin := p.pluginPID("coyote-provider-openai")

			start := time.Now()
			if tt.hangUp {
				p.ptmx.Close() // the terminal goes away: the kernel gets SIGHUP
			} else if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.waitExit(10 * time.Second); code != tt.code {
				t.Fatalf("exit code %d, want %d", code, tt.code)
			}
			t.Logf("ended %v after the signal", time.Since(start))
			waitGone(t, plugin, 5*time.Second)

			sessions := filepath.Join(e.configDir, "sessions")
			if _, err := os.Stat(filepath.Join(sessions, "work.yaml")); (err == nil) != tt.saved {
				t.Errorf("sessions/work.yaml exists: %v, want %v", err == nil, tt.saved)
			}
			kept, _ := filepath.Glob(filepath.Join(sessions, "_", "*-work.yaml"))
			if (len(kept) == 1) != tt.kept {
				t.Fatalf("recovery copies %v, want one: %v", kept, tt.kept)
			}
			for _, f := range append(kept, filepath.Join(sessions, "work.yaml")) {
				if b, err := os.ReadFile(f); err == nil && !strings.Contains(string(b), "Coyotes howl at dusk.") {
					t.Errorf("%s lacks the exchange:\n%s", f, b)
				}
			}
			assertNoTempFiles(t, sessions)
			assertNoTempFiles(t, filepath.Join(sessions, "_"))
			if !tt.kept {
				return
			}
			// The next start says where the session went, once.
			name := strings.TrimSuffix(filepath.Base(kept[0]), ".yaml")
			p = e.startPTY()
			p.expect("with session work unsaved; it was kept: .session _/"+name+" continues it.", replTimeout)
			p.expect(replPrompt, replTimeout)
			p.enter(".session _/"+name, "Coyotes howl at dusk.")
			p.exit()
			p = e.startREPL()
			p.exit()
			if strings.Contains(p.output(), "was kept") {
				t.Fatalf("the note was shown twice")
			}
		})
	}
}

package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// --help lists the flags under headings by purpose, as the original does,
// one line each (issue 13).
func TestHelpGroupsTheFlagsUnderHeadings(t *testing.T) {
	e := newEnv(t, "")
	r := e.run("", "--help")
	e.mustSucceed(r)
	long := regexp.MustCompile(`^  (?:-[a-zA-Z], |    )--([a-z-]+)`)
	var headings []string
	under := map[string]string{} // flag → its heading
	heading := ""
	for _, l := range strings.Split(r.stdout, "\n") {
		switch {
		case l == "":
			heading = ""
		case strings.HasSuffix(l, ":") && !strings.HasPrefix(l, " "):
			heading = strings.TrimSuffix(l, ":")
			headings = append(headings, heading)
		case heading != "" && heading != "Usage" && heading != "Commands":
			m := long.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("under %q, a line that is not one flag: %q", heading, l)
				continue
			}
			if was, ok := under[m[1]]; ok {
				t.Errorf("--%s is listed under %q and %q", m[1], was, heading)
			}
			under[m[1]] = heading
		}
	}
	want := []string{"Usage", "Commands", "Input", "Sessions and memory", "Agents, RAG and macros", "Lists",
		"Install", "Vault (each alone on the command line)", "Auth", "MCP servers", "Headless and editors", "Sandbox", "Diagnostics and shell"}
	if !slices.Equal(headings, want) {
		t.Fatalf("headings %q, want %q\n%s", headings, want, r.stdout)
	}
	for flag, h := range map[string]string{
		"model": "Input", "file": "Input", "session": "Sessions and memory", "empty-session": "Sessions and memory",
		"rag": "Agents, RAG and macros", "macro": "Agents, RAG and macros", "list-roles": "Lists", "list-plugins": "Lists",
		"install-from": "Install", "add-secret": "Vault (each alone on the command line)", "auth-mcp": "Auth", "mcp-add": "MCP servers",
		"header": "MCP servers", "headless": "Headless and editors", "acp-server": "Headless and editors",
		"tail-logs": "Diagnostics and shell", "info": "Diagnostics and shell", "help": "Diagnostics and shell",
	} {
		if under[flag] != h {
			t.Errorf("--%s is under %q, want %q", flag, under[flag], h)
		}
	}
	if !strings.Contains(r.stdout, "\nSessions and memory:\n  -s, --session [NAME] ") {
		t.Errorf("-s, --session [NAME] does not open its group:\n%s", r.stdout)
	}
	// The flag takes no value: nothing stands between it and its text.
	if !regexp.MustCompile(`\n      --list-plugins +list the plugins found`).MatchString(r.stdout) {
		t.Errorf("--list-plugins:\n%s", r.stdout)
	}
}

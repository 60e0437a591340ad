package skill

import (
	"fmt"
	"testing"
)

// benchDirs are 50 skills, 45 in the config directory and 10 in the
// workspace (5 of them shadowing global ones), each with a front matter
// and a body of about 2 KB.
func benchDirs(b *testing.B) Dirs {
	d := Dirs{Global: b.TempDir(), Workspace: b.TempDir()}
	body := ""
	for i := 0; i < 40; i++ {
		body += "A line of the skill's instructions, long enough to be realistic.\n"
	}
	for i := 0; i < 50; i++ {
		dir := d.Global
		if i >= 45 {
			dir = d.Workspace
		}
		writeSkill(b, dir, fmt.Sprintf("skill-%02d", i), fmt.Sprintf("---\ndescription: skill %d\nenabled_tools: [fs_read]\n---\n%s", i, body))
	}
	for i := 0; i < 5; i++ {
		writeSkill(b, d.Workspace, fmt.Sprintf("skill-%02d", i), "---\ndescription: shadow\n---\n"+body)
	}
	return d
}

// BenchmarkAvailable is what each request pays to decide whether skills
// are available, with MCP on (no front matter read).
func BenchmarkAvailable(b *testing.B) {
	d := benchDirs(b)
	c := NewCatalog()
	for b.Loop() {
		entries, _ := c.Installed(d)
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name
		}
		if got, _ := Available(Policy{Enabled: true, MCP: true}, names, nil); len(got) != 50 {
			b.Fatal(len(got))
		}
	}
}

// BenchmarkAvailableMCPOff reads every front matter (cached after the
// first time).
func BenchmarkAvailableMCPOff(b *testing.B) {
	d := benchDirs(b)
	c := NewCatalog()
	for b.Loop() {
		entries, _ := c.Installed(d)
		names := make([]string, len(entries))
		byName := map[string]Entry{}
		for i, e := range entries {
			names[i], byName[e.Name] = e.Name, e
		}
		got, _ := Available(Policy{Enabled: true}, names, func(n string) (bool, error) {
			h, err := c.Header(byName[n])
			if err != nil {
				return false, err
			}
			return h.NeedsMCP(), nil
		})
		if len(got) != 50 {
			b.Fatal(len(got))
		}
	}
}

// BenchmarkHeadersCold is the first listing of a process (skill__list,
// .list skills, MCP off): every front matter read and parsed.
func BenchmarkHeadersCold(b *testing.B) {
	d := benchDirs(b)
	for b.Loop() {
		c := NewCatalog()
		entries, _ := c.Installed(d)
		for _, e := range entries {
			if _, err := c.Header(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

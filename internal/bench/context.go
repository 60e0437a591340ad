package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// contextBench measures what the workspace instructions, 50 skills and a
// memory of 20 entries add to a one-shot's first byte, in a repository 10
// directories deep, against the same prompt in an empty directory with a
// config directory that has none of them.
func contextBench(coyote, work string, baseEnv []string, baseConfig string, runs int) ([]row, error) {
	repo := filepath.Join(work, "ctx-repo")
	leaf := repo
	for i := range 10 {
		leaf = filepath.Join(leaf, fmt.Sprintf("level%d", i))
	}
	cfgDir := filepath.Join(work, "ctx-config")
	files := map[string]string{
		filepath.Join(repo, ".git", "HEAD"):          "ref: refs/heads/main\n",
		filepath.Join(repo, "AGENTS.md"):             "# Rules\n\n- Run make test before you say a change is done.\n- Keep functions short.\n",
		filepath.Join(leaf, "COYOTE.md"):             "This package parses configuration files.\n",
		filepath.Join(cfgDir, "memory", "MEMORY.md"): "# Memory\n",
	}
	var index strings.Builder
	index.WriteString("# Memory\n\n")
	for i := range 20 {
		name := fmt.Sprintf("note%02d.md", i)
		index.WriteString(fmt.Sprintf("- [Note %d](%s): a fact about the project, number %d\n", i, name, i))
		files[filepath.Join(cfgDir, "memory", name)] = fmt.Sprintf("---\nname: Note %d\ndescription: a fact about the project, number %d\ntype: project\ncreated: 2026-01-02\n---\nThe build uses make; fact %d.\n", i, i, i)
	}
	files[filepath.Join(cfgDir, "memory", "MEMORY.md")] = index.String()
	body := strings.Repeat("Check the diff line by line and name each problem with its file and line.\n", 25)
	for i := range 50 {
		files[filepath.Join(cfgDir, "skills", fmt.Sprintf("skill-%02d", i), "SKILL.md")] =
			fmt.Sprintf("---\ndescription: Skill number %d, for a kind of task\nenabled_tools: [fs_read]\n---\n%s", i, body)
	}
	files[filepath.Join(cfgDir, "config.yaml")] = baseConfig
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return nil, err
	}
	plainDir := filepath.Join(work, "ctx-plain")
	if err := os.MkdirAll(plainDir, 0o755); err != nil {
		return nil, err
	}
	withEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "COYOTE_CONFIG_DIR=" + cfgDir, "COYOTE_CACHE_DIR=" + filepath.Join(cfgDir, "cache")}
	first := func(dir string, env []string) time.Duration {
		c := exec.Command(coyote, "-m", "openai:gpt-4o-mini", "hi")
		c.Dir, c.Env = dir, env
		d, _, err := firstByte(c)
		if err != nil {
			panic(err)
		}
		return d
	}
	first(leaf, withEnv) // installs the bundled skills once, as a first run does
	var plain, with []time.Duration
	for range runs {
		plain, with = append(plain, first(plainDir, baseEnv)), append(with, first(leaf, withEnv))
	}
	p, w := middle(plain), middle(with)
	return []row{{"one-shot first byte with instructions, 50 skills and memory, 10 levels deep", ms(w), "≤ 2 ms more than without",
		"without them " + ms(p), verdict(w-p <= 2*time.Millisecond, "+%s", ms(w-p))}}, nil
}

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// benchAgentConfig is an agent as a user writes one: instructions with its
// tools and a variable, a global tool, starters.
const benchAgentConfig = `name: Bench
description: An agent of the benchmark, with tools and a variable
version: 1.0.0
global_tools:
  - fs_ls.sh
  - fs_cat.sh
instructions: |
  You help {{user}} with the project in {{__cwd__}} on {{__os__}}.
  Your tools:
  {{__tools__}}
  Work step by step and say what you changed.
variables:
  - name: user
    description: Who you work for
    default: someone
conversation_starters:
  - What is in this directory?
  - Summarise the README
`

const benchAgentTools = `#!/usr/bin/env bash
set -e
# @cmd Search the project for a pattern.
# @option --pattern! The pattern.
search() { grep -rn -- "$argc_pattern" . >> "$LLM_OUTPUT" || true; }

# @cmd Show a file's lines.
# @option --path! The file.
# @option --from The first line.
show() { sed -n "${argc_from:-1},\$p" "$argc_path" >> "$LLM_OUTPUT"; }

# @cmd Count the lines of the project's files.
count() { find . -type f | xargs wc -l >> "$LLM_OUTPUT"; }
`

// agentBench measures what an agent adds to a one-shot's first byte (its
// config, tools script and global tools parsed, its instructions built)
// against the same prompt without one, and --list-agents over 100 agents.
func agentBench(coyote, configDir string, env []string, runs int) ([]row, error) {
	agents := filepath.Join(configDir, "agents")
	write := func(name string) error {
		dir := filepath.Join(agents, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(benchAgentConfig), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "tools.sh"), []byte(benchAgentTools), 0o755)
	}
	if err := write("bench"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(agents)
	oneShot := func(args ...string) func() time.Duration {
		return func() time.Duration {
			c := exec.Command(coyote, append(args, "hi")...)
			c.Env = env
			first, _, err := firstByte(c)
			if err != nil {
				panic(err)
			}
			return first
		}
	}
	// Warm the tools' installation and wrappers first, as a user's second run.
	oneShot("-a", "bench")()
	// Alternated, so that a load on the machine weighs on both alike.
	var plains, withs []time.Duration
	plainRun, agentRun := oneShot("-m", "openai:gpt-4o-mini"), oneShot("-m", "openai:gpt-4o-mini", "-a", "bench")
	for range runs {
		plains, withs = append(plains, plainRun()), append(withs, agentRun())
	}
	plain, withAgent := middle(plains), middle(withs)
	extra := withAgent - plain
	rows := []row{{"coyote -a NAME one-shot: first byte", ms(withAgent), "≤ 3 ms more than without",
		"without an agent " + ms(plain), verdict(extra <= 3*time.Millisecond, "+%s", ms(extra))}}

	for i := range 100 {
		if err := write(fmt.Sprintf("agent-%03d", i)); err != nil {
			return nil, err
		}
	}
	list := median(runs, func() time.Duration {
		c := exec.Command(coyote, "--list-agents")
		c.Env = env
		start := time.Now()
		out, err := c.Output()
		if err != nil || strings.Count(string(out), "\n") < 101 { // and the bundled agents
			panic(fmt.Sprintf("--list-agents: %v, %d lines", err, strings.Count(string(out), "\n")))
		}
		return time.Since(start)
	})
	rows = append(rows, row{"coyote --list-agents, 100 agents", ms(list), "≤ 15 ms", "each config parsed and checked", withinTarget(list, 15*time.Millisecond)})
	return rows, nil
}

// middle is the median of ds.
func middle(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

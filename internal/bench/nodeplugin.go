package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// nodePluginBench measures the launch of the Node.js provider example
// (sdk/examples/node-provider, found beside the -bin directory) next to
// the Go OpenAI plugin, both as launchOnce does: a fresh host, the
// process, the handshake and one Describe call. Node.js's own start is
// the reference: the floor of any plugin in Node.js. goT is the Go
// plugin's launch as the run measured it already; 0 (-only node) has it
// measured here.
func nodePluginBench(bin string, runs int, goT time.Duration) ([]row, error) {
	const name = "plugin launch + handshake + first call, Node.js example"
	src := filepath.Join(filepath.Dir(bin), "sdk", "examples", "node-provider")
	if _, err := exec.LookPath("node"); err != nil {
		return []row{{name, "-", "report", "", "not measured: node is not installed"}}, nil
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules", "@grpc", "grpc-js")); err != nil {
		return []row{{name, "-", "report", "", "not measured: run make test-deps"}}, nil
	}
	dir, err := os.MkdirTemp("", "coyote-bench-node-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	const binary = "coyote-provider-node-echo"
	if err := os.Symlink(filepath.Join(src, binary), filepath.Join(dir, binary)); err != nil {
		return nil, err
	}
	if goT == 0 {
		goT = median(runs, func() time.Duration { return launchOnce(filepath.Join(bin, "plugins")) })
	}
	var launchErr error
	nodeT := median(runs, func() time.Duration {
		d, err := launchProvider(dir, "node-echo")
		if err != nil {
			launchErr = err
		}
		return d
	})
	if launchErr != nil {
		return nil, fmt.Errorf("node plugin: %w", launchErr)
	}
	nodeStart := median(runs, func() time.Duration { return mustTime(exec.Command("node", "-e", "")) })
	return []row{{name, ms(nodeT), "report",
		fmt.Sprintf("Go plugin (openai) %s; node -e '' alone %s", ms(goT), ms(nodeStart)),
		fmt.Sprintf("measured, x%.1f the Go plugin", ratio(nodeT, goT))}}, nil
}

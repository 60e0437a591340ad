package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// interpreter is the program that runs a script node's file, by its
// extension; nil runs the file itself (its #! line).
func interpreter(path string) []string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".sh", ".bash":
		return []string{"bash"}
	case ".py":
		return []string{"python3"}
	case ".js", ".mjs", ".cjs":
		return []string{"node"}
	case ".ts", ".mts":
		return []string{"tsx"}
	}
	return nil
}

// script runs a script node: the state as JSON in GRAPH_STATE (or in a
// file named by GRAPH_STATE_FILE when larger than 32 KiB), its stdout a
// JSON object whose keys merge into the state; _next routes.
func (e *engine) script(ctx context.Context, n *Node, sc scope) (result, error) {
	path := n.Script
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.g.Dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return result{}, fmt.Errorf("script %s: %w", path, err)
	}
	state, err := json.Marshal(sc.state)
	if err != nil {
		return result{}, fmt.Errorf("the state is not JSON: %w", err)
	}
	env := append(e.rt.ScriptEnv(n), "GRAPH_NODE="+n.ID)
	if len(state) > StateInlineLimit {
		f, err := os.CreateTemp("", "coyote-graph-state-*.json")
		if err != nil {
			return result{}, fmt.Errorf("write the state for the script: %w", err)
		}
		defer os.Remove(f.Name())
		_, werr := f.Write(state)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return result{}, fmt.Errorf("write the state for the script: %w", werr)
		}
		env = append(env, "GRAPH_STATE_FILE="+f.Name())
	} else {
		env = append(env, "GRAPH_STATE="+string(state))
	}
	argv := append(interpreter(path), path)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limitWriter{w: &stderr, n: 64 << 10}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return result{}, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return result{}, fmt.Errorf("script %s failed: %w: %s", n.Script, err, lastLines(msg, 5))
		}
		return result{}, fmt.Errorf("script %s failed: %w", n.Script, err)
	}
	out := strings.TrimSpace(stdout.String())
	if out == "" {
		return result{out: map[string]any{}}, nil
	}
	var v any
	if err := decodeJSON([]byte(out), &v); err != nil {
		return result{}, fmt.Errorf("script %s printed %q, not a JSON object", n.Script, clip(out, 200))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return result{}, fmt.Errorf("script %s printed %s, not a JSON object", n.Script, clip(out, 200))
	}
	var r result
	if nx, ok := obj["_next"]; ok {
		switch x := nx.(type) {
		case string:
			if x != "" {
				r.next = []string{x}
			}
		case []any:
			for _, t := range x {
				r.next = append(r.next, text(t))
			}
		case nil:
		default:
			return result{}, fmt.Errorf("script %s: _next must be a node id or a list of them, not %s", n.Script, text(nx))
		}
		delete(obj, "_next")
	}
	for _, k := range sortedKeys(obj) {
		r.writes = append(r.writes, write{k, obj[k]})
	}
	r.out = obj
	return r, nil
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/kernel/tools/script"
)

// Scripts are the tool scripts of a functions directory.
type Scripts struct {
	// Dir is the functions directory (tools/ and bin/ under it).
	Dir string
	// Visible lists the tool files that may be used (visible_tools); nil
	// means every file in tools/. A name without its extension (fs_ls) is
	// the first script of that stem.
	Visible []string
	// VisibleFrom names the setting Visible comes from in warnings
	// ("visible_tools" when empty; an agent's global_tools).
	VisibleFrom string
	// Runner runs calls without a terminal; Guarded runs the tools that
	// ask for confirmation (they call guard_operation or guard_path), with
	// the terminal when there is one.
	Runner, Guarded *script.Runner
	// Env is added to the environment of every call (an agent's
	// LLM_AGENT_VAR_* variables).
	Env []string
}

// Confirm asks whether a guarded tool call may run: nil lets it go
// ahead confirmed (AUTO_CONFIRM=true); an error refuses it, and its
// message is the result the model reads. CallID(ctx) names the call.
type Confirm func(ctx context.Context, name string, args json.RawMessage) error

type confirmKey struct{}

// WithConfirm makes confirm the one asked before each guarded tool of
// the turn run with ctx runs, instead of the tool asking on the terminal:
// a caller with someone else to ask (the ACP server asks its client).
func WithConfirm(ctx context.Context, confirm Confirm) context.Context {
	return context.WithValue(ctx, confirmKey{}, confirm)
}

type workDirKey struct{}

// WithWorkDir makes dir the working directory of the tool scripts run
// with ctx (an ACP session's cwd), instead of the runner's.
func WithWorkDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, workDirKey{}, dir)
}

// Load parses the visible tool scripts and registers one function per
// declaration. A script that cannot be read or whose interpreter is
// missing is left out, with a warning.
func (s *Scripts) Load(reg *Registry, warn func(string)) {
	for _, path := range s.files(warn) {
		src, err := os.ReadFile(path)
		if err != nil {
			warn(fmt.Sprintf("tool %s: %v", filepath.Base(path), err))
			continue
		}
		decls, err := script.ParseSource(path, src)
		if err != nil {
			warn(err.Error())
			continue
		}
		s.Add(reg, src, decls, warn)
	}
}

// Add registers one function per declaration of a script whose source is
// src (a tool that calls guard_operation or guard_path asks for
// confirmation, so it runs alone and on the terminal). A declaration whose
// interpreter is missing is left out, with a warning.
func (s *Scripts) Add(reg *Registry, src []byte, decls []script.Decl, warn func(string)) {
	guarded := bytes.Contains(src, []byte("guard_operation")) || bytes.Contains(src, []byte("guard_path"))
	for _, d := range decls {
		if err := d.Available(); err != nil {
			warn(fmt.Sprintf("tool %s is left out: %v", d.Name, err))
			continue
		}
		reg.Add(s.function(d, guarded))
	}
}

// files lists the visible tool files, sorted by name.
func (s *Scripts) files(warn func(string)) []string {
	toolsDir := filepath.Join(s.Dir, "tools")
	var names []string
	if s.Visible == nil {
		entries, err := os.ReadDir(toolsDir)
		if err != nil {
			return nil
		}
		for _, e := range entries {
			if !e.IsDir() && script.LangOf(e.Name()) != "" {
				names = append(names, e.Name())
			}
		}
	} else {
		from := s.VisibleFrom
		if from == "" {
			from = "visible_tools"
		}
		for _, n := range s.Visible {
			n = toolFile(toolsDir, strings.TrimSpace(n))
			if _, err := os.Stat(filepath.Join(toolsDir, n)); err != nil {
				warn(fmt.Sprintf("%s names %s, which is not in %s; it is left out", from, n, toolsDir))
				continue
			}
			names = append(names, n)
		}
	}
	sort.Strings(names)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(toolsDir, n)
	}
	return paths
}

// toolFile is the file of a tool named in visible_tools or global_tools:
// the name as given (fs_ls.sh), or, for a name without its extension
// (fs_ls), the first script of that stem.
func toolFile(dir, name string) string {
	if filepath.Ext(name) != "" {
		return name
	}
	for _, ext := range []string{".sh", ".py", ".ts", ".js"} {
		if _, err := os.Stat(filepath.Join(dir, name+ext)); err == nil {
			return name + ext
		}
	}
	return name
}

// function turns a declaration into a registry function. The wrapper is
// brought up to date on the first call, not when the REPL starts, and not
// again at every call: its content depends only on d (Run still rebuilds
// a wrapper that has gone missing since).
func (s *Scripts) function(d script.Decl, guarded bool) *Func {
	runner := s.Runner
	if guarded && s.Guarded != nil {
		runner = s.Guarded
	}
	var (
		mu    sync.Mutex
		built bool
	)
	build := func() error {
		mu.Lock()
		defer mu.Unlock()
		if built {
			return nil
		}
		if _, err := script.BuildWrapper(s.wrapperDir(), d); err != nil {
			return err // tried again at the next call
		}
		built = true
		return nil
	}
	return &Func{
		Name:        d.Name,
		Description: d.Description,
		Parameters:  d.Parameters,
		Source:      "script",
		Serial:      guarded, // a confirmation is asked alone
		Guarded:     guarded,
		Call: func(ctx context.Context, args json.RawMessage) (string, error) {
			if err := build(); err != nil {
				return "", err
			}
			run := runner
			confirm, _ := ctx.Value(confirmKey{}).(Confirm)
			dir, _ := ctx.Value(workDirKey{}).(string)
			if (guarded && confirm != nil) || dir != "" {
				c := *runner
				if guarded && confirm != nil {
					if err := confirm(ctx, d.Name, args); err != nil {
						return "", err
					}
					c.AutoConfirm, c.Terminal = true, false
				}
				if dir != "" {
					c.Dir = dir
				}
				run = &c
			}
			res := run.Run(ctx, d, args, append([]string{"LLM_TOOL_NAME=" + d.Name}, s.Env...))
			if res.Err != nil {
				return "", res.Err
			}
			return res.Output, nil
		},
	}
}

// wrapperDir holds bin/ with the wrappers: the runner's WrapperDir (an
// agent's directory) or the functions directory.
func (s *Scripts) wrapperDir() string {
	if s.Runner != nil && s.Runner.WrapperDir != "" {
		return s.Runner.WrapperDir
	}
	return s.Dir
}

// Build writes the wrappers of every visible tool (coyote --build-tools)
// and returns their names.
func (s *Scripts) Build(warn func(string)) ([]string, error) {
	var decls []script.Decl
	for _, path := range s.files(warn) {
		ds, err := script.Parse(path)
		if err != nil {
			warn(err.Error())
			continue
		}
		decls = append(decls, ds...)
	}
	names := make([]string, 0, len(decls))
	for _, d := range decls {
		names = append(names, d.Name)
	}
	return names, script.BuildAll(s.Dir, decls)
}

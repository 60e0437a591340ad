package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/tools/script"
)

// Resolve sets the variables' values, each from the first that has it:
// given (the command line's --agent-variable, .agent's k=v), saved (an
// agent session's agent_variables), <AGENT>_VARIABLES, the variable's
// default, and last ask (the terminal; nil when there is none, and a
// missing variable is then an error that says how to give it). A name
// in given that the agent does not declare is an error naming the config
// file.
func (a *Agent) Resolve(given, saved map[string]string, ask func(v Variable) (string, error)) error {
	for name := range given {
		if !a.declares(name) {
			return fmt.Errorf("agent %q has no variable %q (%s declares: %s)", a.Name, name, a.File, a.variableNames())
		}
	}
	a.Vars = map[string]string{}
	for _, v := range a.Config.Variables {
		val, ok := given[v.Name]
		if !ok {
			val, ok = saved[v.Name]
		}
		if !ok {
			val, ok = a.envVars[v.Name]
		}
		if !ok && v.Default != nil {
			val, ok = *v.Default, true
		}
		if !ok {
			if ask == nil {
				return fmt.Errorf("agent %q needs variable %q (%s): give it with --agent-variable %s VALUE", a.Name, v.Name, v.Description, v.Name)
			}
			var err error
			if val, err = ask(v); err != nil {
				return fmt.Errorf("agent %q: variable %q: %w", a.Name, v.Name, err)
			}
		}
		a.Vars[v.Name] = val
	}
	return nil
}

func (a *Agent) declares(name string) bool {
	for _, v := range a.Config.Variables {
		if v.Name == name {
			return true
		}
	}
	return false
}

func (a *Agent) variableNames() string {
	if len(a.Config.Variables) == 0 {
		return "none"
	}
	names := make([]string, len(a.Config.Variables))
	for i, v := range a.Config.Variables {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// VarEnv is the variables as tools see them: LLM_AGENT_VAR_<NAME>=value
// (the name in capitals), sorted.
func (a *Agent) VarEnv() []string {
	out := make([]string, 0, len(a.Vars))
	for k, v := range a.Vars {
		out = append(out, "LLM_AGENT_VAR_"+strings.ToUpper(k)+"="+v)
	}
	sort.Strings(out)
	return out
}

// ToolsScript is the agent's tools script: the first of tools.sh,
// tools.py, tools.ts and tools.js in its directory, or "".
func (a *Agent) ToolsScript() string {
	for _, n := range []string{"tools.sh", "tools.py", "tools.ts", "tools.js"} {
		p := filepath.Join(a.Dir, n)
		if isFile(p) {
			return p
		}
	}
	return ""
}

// bashCmd finds an @cmd tag in a bash tools script.
var bashCmd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*#\s*@cmd\b`) })

// Declarations are the functions the tools script declares (one per
// subcommand), without the ones whose name starts with _ (such as
// _instructions). No script: none.
func (a *Agent) Declarations() ([]script.Decl, error) {
	p := a.ToolsScript()
	if p == "" {
		return nil, nil
	}
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("agent %q: tools script: %w", a.Name, err)
	}
	if script.LangOf(p) == script.LangBash && !bashCmd().Match(src) {
		// An agent's bash script declares its tools as @cmd functions;
		// one with none (only _instructions, say) declares no tool.
		return nil, nil
	}
	decls, err := script.ParseSource(p, src)
	if err != nil {
		return nil, fmt.Errorf("agent %q: tools script: %w", a.Name, err)
	}
	return slices.DeleteFunc(decls, func(d script.Decl) bool { return strings.HasPrefix(d.Name, "_") }), nil
}

// Instructions are the agent's system prompt: its instructions (or, with
// dynamic_instructions, what its tools script's _instructions command
// prints), with {{__tools__}} replaced by the list of tools, the system
// variables ({{__os__}}, {{__cwd__}}, …) and the agent's {{variable}}s.
// tools lists the functions the agent offers as "name: description".
func (a *Agent) Instructions(ctx context.Context, tools []string, env []string) (string, error) {
	text := a.Config.Instructions
	if a.Config.DynamicInstructions {
		out, err := a.dynamicInstructions(ctx, env)
		if err != nil {
			return "", err
		}
		text = out
	}
	if strings.Contains(text, "{{__tools__}}") {
		var b strings.Builder
		for _, t := range tools {
			b.WriteString("- " + t + "\n")
		}
		text = strings.ReplaceAll(text, "{{__tools__}}", strings.TrimRight(b.String(), "\n"))
	}
	text = role.Expand(text, nil)
	for k, v := range a.Vars {
		text = strings.ReplaceAll(text, "{{"+k+"}}", v)
	}
	return text, nil
}

// dynamicInstructions runs the tools script's _instructions command.
func (a *Agent) dynamicInstructions(ctx context.Context, env []string) (string, error) {
	p := a.ToolsScript()
	if p == "" {
		return "", fmt.Errorf("agent %q: dynamic_instructions needs a tools script with an _instructions command in %s", a.Name, a.Dir)
	}
	var cmd *exec.Cmd
	switch script.LangOf(p) {
	case script.LangBash:
		cmd = exec.CommandContext(ctx, "bash", "-c", `source "$1" && _instructions`, "_instructions", p)
	case script.LangPython:
		cmd = exec.CommandContext(ctx, "python3", "-c",
			"import runpy,sys\nm=runpy.run_path(sys.argv[1])\nr=m['_instructions']()\nif r is not None: print(r)", p)
	case script.LangJavaScript:
		cmd = exec.CommandContext(ctx, "node", "-e",
			"const m=require(process.argv[1]);Promise.resolve(m._instructions()).then(r=>{if(r!=null)process.stdout.write(String(r))})", p)
	default:
		return "", fmt.Errorf("agent %q: dynamic_instructions is not supported for %s (use tools.sh, tools.py or tools.js)", a.Name, filepath.Base(p))
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd.Dir = a.Dir
	cmd.Env = append(env, a.VarEnv()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return "", fmt.Errorf("agent %q: %s _instructions failed: %v %s (fix the script's _instructions, or set dynamic_instructions: false in %s)",
			a.Name, filepath.Base(p), err, msg, a.File)
	}
	return strings.TrimRight(string(out), "\n"), nil
}

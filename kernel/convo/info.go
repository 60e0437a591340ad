package convo

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/kernel/textutil"
)

// InfoRow is one line of --info and .info: a setting (or a file), its
// value and where the value comes from.
type InfoRow struct {
	Key, Value, Source string
}

// Info lists what --info and .info show: the version, the model and what
// is active (role, session, RAG), every setting as this conversation
// resolves it (session → role → global) with its source, the clients, the
// built-in functions offered, and Coyote's files. Both commands show the
// same rows, so a setting looks the same wherever it is asked about.
func (s *State) Info() []InfoRow {
	rows := []InfoRow{{Key: "version", Value: buildinfo.String()}}
	cfg := s.d.Config
	if cfg != nil {
		model, src := s.ModelID(), cfg.Resolve("model", s.Layers()).Src
		if s.Model != "" {
			src = config.Source{Kind: "chosen", Where: "for this run (-m or .model)"}
		}
		if t, err := s.Target(); err == nil && t.Client != nil && t.Model.Name != "" {
			model = t.ID() // a bare client name becomes its first model
		}
		if model == "" {
			model = "none"
		}
		rows = append(rows, InfoRow{"model", model, src.String()})
		if s.MaxOutputTokens > 0 {
			rows = append(rows, InfoRow{"max_output_tokens", strconv.FormatInt(s.MaxOutputTokens, 10), "runtime .set"})
		}
	}
	if a := s.Agent; a != nil {
		rows = append(rows, InfoRow{Key: "agent", Value: a.Name, Source: a.File})
	}
	if r := s.Role; r != nil {
		rows = append(rows, InfoRow{Key: "role", Value: r.Name})
	}
	if ss := s.Session; ss != nil {
		rows = append(rows, InfoRow{Key: "session", Value: ss.Name()})
	}
	if sp, ok := s.SessionSpend(); ok && sp.Calls > 0 {
		rows = append(rows, spendRow(sp, "the session's recorded turns"))
	} else if sp := s.RunSpend(); !ok && sp.Calls > 0 {
		rows = append(rows, spendRow(sp, "this run"))
	}
	if r := s.RAG; r != nil {
		rows = append(rows, InfoRow{Key: "rag", Value: r.Name})
	}
	if cfg != nil {
		layers := s.Layers()
		for _, k := range config.Keys {
			if k.Name == "model" {
				continue
			}
			v := cfg.Resolve(k.Name, layers)
			rows = append(rows, InfoRow{k.Name, v.Format(), v.Src.String()})
		}
		rows = append(rows, InfoRow{Key: "clients", Value: cfg.ClientNames()})
		rows = append(rows, InfoRow{Key: "workspace_instructions_in_force", Value: s.instructionPaths()})
		rows = append(rows, InfoRow{Key: "memory_in_force", Value: s.memoryPaths()})
		rows = append(rows, InfoRow{Key: "builtin_functions", Value: s.builtinFunctions()})
	}
	for _, kv := range s.d.Paths.List() {
		rows = append(rows, InfoRow{Key: kv[0], Value: kv[1]})
	}
	return rows
}

// builtinFunctions says which built-in functions a model that can call
// functions is offered here.
func (s *State) builtinFunctions() string {
	if !s.d.Config.Bool("function_calling_support") {
		return "none (function_calling_support is off)"
	}
	var names []string
	if s.Tools != nil {
		for _, f := range s.Tools.All() {
			if f.Builtin {
				names = append(names, f.Name)
			}
		}
	}
	// The conversation's own: the todo and memory functions when on.
	for _, f := range append(s.todoFuncs(), s.memoryFuncs()...) {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// maxInfoValue is the widest setting value --info shows; longer ones are
// cut with "…", so that one long setting (a prompt template) does not pad
// every other row to its width. Paths, in the last column, are whole.
const maxInfoValue = 60

// WriteInfo prints rows as an aligned table. Secrets read from the vault
// are shown as their {{NAME}}.
func WriteInfo(w io.Writer, rows []InfoRow) error {
	width := 0
	for _, r := range rows {
		width = max(width, len(r.Key))
	}
	valueWidth := 0
	for _, r := range rows {
		if r.Source != "" {
			valueWidth = max(valueWidth, min(utf8.RuneCountInString(r.Value), maxInfoValue))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		if r.Source == "" { // a last column: nothing to align after it
			fmt.Fprintf(&b, "%-*s  %s\n", width, r.Key, r.Value)
			continue
		}
		v := textutil.Cut(r.Value, maxInfoValue)
		fmt.Fprintf(&b, "%-*s  %s%s  %s\n", width, r.Key, v, strings.Repeat(" ", valueWidth-utf8.RuneCountInString(v)), r.Source)
	}
	_, err := io.WriteString(w, redact.String(b.String()))
	return err
}

// instructionPaths lists the instruction files in force, or says why
// there are none.
func (s *State) instructionPaths() string {
	files := s.InstructionFiles()
	if len(files) == 0 {
		return "none"
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
		if f.Cut {
			paths[i] += " (cut)"
		}
	}
	return strings.Join(paths, ", ")
}

// spendRow is the cost row of --info and .info: the running total and the
// tokens behind it.
func spendRow(sp Spend, of string) InfoRow {
	return InfoRow{Key: "cost", Value: sp.CostText() + " (" + sp.TokensText() + " tokens)", Source: of}
}

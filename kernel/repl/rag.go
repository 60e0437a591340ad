package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// cmdRAG is `.rag [name]`: use a RAG, creating it (with a few questions)
// when it does not exist yet; without a name, a temporary one.
func (r *REPL) cmdRAG(c *call) error {
	if len(c.args) > 0 && c.args[0] == "attach" {
		if len(c.args) != 2 {
			return errors.New("usage: .rag attach <name>")
		}
		return r.attachRAG(c.ctx, c.args[1])
	}
	name, path, temp := "temp", "", len(c.args) == 0
	if !temp {
		name = c.args[0]
		if err := checkRAGName(name); err != nil {
			return err
		}
		path = r.conv.RAGPath(name)
	}
	var f *rag.File
	mode := ragstore.ReadOnly
	if _, err := os.Stat(path); err == nil { // never the temporary RAG: its path is ""
		if f, err = rag.LoadSettings(path); err != nil {
			return err
		}
	} else {
		switch {
		case r.inMacro && temp:
			return errors.New("a macro cannot build a temporary RAG: use an existing one with .rag NAME")
		case r.inMacro:
			return fmt.Errorf("RAG %s does not exist, and a macro cannot create RAGs: create it at the prompt with .rag %s first", name, name)
		case temp:
			// The temporary RAG lives in a directory of its own that is
			// gone when the REPL ends, as the original keeps it in memory
			// only.
			dir, err := os.MkdirTemp("", "coyote-rag-")
			if err != nil {
				return err
			}
			r.tempDirs = append(r.tempDirs, dir)
			path = filepath.Join(dir, "temp.yaml")
		}
		if f, err = r.ragWizard(c.ctx, name, path); err != nil {
			return err
		}
		mode = ragstore.ReadWrite
	}
	return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
		if mode == ragstore.ReadWrite {
			return r.build(ctx, f, name, true)
		}
		rg, err := r.conv.OpenRAG(ctx, f, name, mode)
		if err != nil {
			return err
		}
		r.conv.UseRAG(rg)
		return nil
	})
}

// attachRAG is `.rag attach <name>`: a RAG over an existing collection of
// a store that attaches (its plugin announces the attach capability; the
// in-tree one is Qdrant's, whose points hold their text in the
// page_content payload, LangChain's layout). The driver's plugin says what
// to ask. The collection is queried only; it is never written, rebuilt or
// deleted from here.
func (r *REPL) attachRAG(ctx context.Context, name string) error {
	if err := checkRAGName(name); err != nil {
		return err
	}
	path := r.conv.RAGPath(name)
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("RAG %s already exists at %s: choose another name, or delete it first with .delete rag", name, path)
	}
	if r.inMacro {
		return fmt.Errorf("a macro cannot attach RAGs: attach it at the prompt with .rag attach %s, then use .rag %s in the macro", name, name)
	}
	return r.whileInterruptible(ctx, func(ctx context.Context) error {
		d, store, err := r.attachDriver(ctx)
		if err != nil {
			return err
		}
		setup, err := r.conv.RAGSetup(ctx, d, store, name, true)
		if err != nil {
			return err
		}
		dc, collection, err := r.askDriverConfig(ctx, name, d, setup)
		if err != nil {
			return err
		}
		model, err := r.question("Embedding model (the one the collection's vectors were made with)", r.defaultEmbeddingModel())
		if err != nil {
			return err
		}
		if model == "" {
			return errors.New("no embedding model: name the client:model the collection's vectors were made with, so that questions are embedded the same way")
		}
		topK, _ := r.conv.Config().Int("rag_top_k")
		f := &rag.File{Path: path, Driver: d.Name, Attached: true, DriverConfig: dc, EmbeddingModel: model, TopK: int(max(topK, 1))}
		rg, err := r.conv.OpenRAG(ctx, f, name, ragstore.ReadOnly)
		if err != nil {
			return err
		}
		keep := false
		defer func() {
			if !keep {
				convo.CloseRAG(rg)
			}
		}()
		stats, err := rg.Store.Stats(ctx, &ragstore.StatsRequest{Store: name})
		if err != nil {
			return err
		}
		what := "the collection"
		if collection != "" {
			what = "collection " + collection
		}
		if stats.Dimension > 0 {
			probe, err := rg.Embed(ctx, []string{"dimension probe"}, provider.InputQuery)
			if err != nil {
				return fmt.Errorf("embed with %s: %w", model, err)
			}
			if len(probe) == 1 && len(probe[0]) != stats.Dimension {
				return fmt.Errorf("%s holds %d-dimensional vectors but %s makes %d: choose the model the collection was built with", what, stats.Dimension, model, len(probe[0]))
			}
		}
		if stats.Chunks == 0 {
			ok, err := r.confirm(fmt.Sprintf("%s is empty: questions will find nothing until it is filled. Attach anyway? [y/N] ", upperFirst(what)))
			if err != nil {
				return err
			}
			if !ok {
				return errors.New("attach cancelled")
			}
		}
		if err := f.Save(path); err != nil {
			return err
		}
		keep = true
		r.conv.UseRAG(rg)
		msg := fmt.Sprintf("Attached RAG %s to %s (driver %s, %d chunks).", name, what, d.Name, stats.Chunks)
		if setup.Note != "" {
			msg += " " + setup.Note
		}
		r.println(msg)
		return nil
	})
}

// attachDriver picks the driver of a new attached RAG among the installed
// store plugins that can attach (each is asked, and stopped again): the
// only one, or the user's choice. Only the chosen driver's plugin is then
// started for the attach.
func (r *REPL) attachDriver(ctx context.Context) (rag.Driver, *plugins.RagStore, error) {
	drivers, installed, err := r.conv.InspectRAGDrivers(ctx)
	if err != nil {
		return rag.Driver{}, nil, err
	}
	var names []string // a broken plugin is not offered; `coyote plugins` shows it
	for _, d := range drivers {
		if d.Attach {
			names = append(names, d.Name)
		}
	}
	chosen := ""
	switch len(names) {
	case 0:
		return rag.Driver{}, nil, fmt.Errorf("no installed store plugin can attach to an external collection (installed drivers: %s); install one that announces the attach capability", listOrNone(installed))
	case 1:
		chosen = names[0]
	default:
		ans, err := r.question("Driver ("+strings.Join(names, ", ")+")", names[0])
		if err != nil {
			return rag.Driver{}, nil, err
		}
		if !slices.Contains(names, ans) {
			return rag.Driver{}, nil, fmt.Errorf("driver %q cannot attach: choose one of %s", ans, strings.Join(names, ", "))
		}
		chosen = ans
	}
	return r.conv.RAGDriver(ctx, chosen)
}

// askDriverConfig asks a driver's setup questions and returns the
// driver_config they make (secrets as {{NAME}}, never their values) and
// the collection picked, if a question picks one.
func (r *REPL) askDriverConfig(ctx context.Context, name string, d rag.Driver, setup *ragstore.SetupResponse) (map[string]string, string, error) {
	dc := map[string]string{}
	collection := ""
	for _, q := range setup.Questions {
		var ans string
		var err error
		switch q.Kind {
		case ragstore.QuestionSecret:
			ans, err = r.askSecret(q.Prompt, q.Default)
			if ans != "" {
				ans = "{{" + ans + "}}"
			}
		case ragstore.QuestionCollection:
			ans, err = r.pickCollection(ctx, name, d, dc, q)
			collection = ans
		default:
			ans, err = r.question(q.Prompt, q.Default)
		}
		if err != nil {
			return nil, "", err
		}
		if ans == "" {
			if q.Required {
				return nil, "", fmt.Errorf("%s: an answer is needed", q.Prompt)
			}
			continue
		}
		dc[q.Key] = ans
	}
	return dc, collection, nil
}

// askSecret asks for the name of a vault secret, adding the secret to the
// vault when it is not there yet. An empty answer is none.
func (r *REPL) askSecret(prompt, def string) (string, error) {
	secret, err := r.question(prompt, def)
	if err != nil || secret == "" {
		return "", err
	}
	if !vault.ValidName(secret) {
		return "", fmt.Errorf("%q is not a secret name: use letters, digits and _", secret)
	}
	if !r.conv.HasSecret(secret) {
		if r.o.Vault == nil {
			return "", fmt.Errorf("secret %s is not in the vault: add it with coyote --add-secret %s", secret, secret)
		}
		r.printf("Secret %s is not in the vault yet; adding it.\n", secret)
		if err := r.o.Vault("add", secret); err != nil {
			return "", err
		}
	}
	return secret, nil
}

// pickCollection lists the collections the answers so far name and lets
// the user pick one by number or name.
func (r *REPL) pickCollection(ctx context.Context, name string, d rag.Driver, dc map[string]string, q ragstore.Question) (string, error) {
	names, err := r.conv.ListCollections(ctx, name, d.Name, dc)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", fmt.Errorf("there are no collections to attach to (driver %s): fill one first, or build a RAG from documents with .rag %s", d.Name, name)
	}
	r.println("Collections:")
	for i, n := range names {
		r.printf("  %d. %s\n", i+1, n)
	}
	def := q.Default
	if len(names) == 1 {
		def = names[0]
	}
	ans, err := r.question(q.Prompt, def)
	if err != nil || ans == "" {
		return "", err
	}
	if i, err := strconv.Atoi(ans); err == nil {
		if i < 1 || i > len(names) {
			return "", fmt.Errorf("no collection number %d: choose 1 to %d", i, len(names))
		}
		return names[i-1], nil
	}
	if !slices.Contains(names, ans) {
		return "", fmt.Errorf("no collection %q: choose one of %s", ans, strings.Join(names, ", "))
	}
	return ans, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// question asks a question with a default answer, shown in brackets.
func (r *REPL) question(q, def string) (string, error) {
	prompt := q
	if def != "" {
		prompt += " [" + def + "]"
	}
	ans, err := r.line(prompt + ": ")
	if err != nil {
		return "", err
	}
	if ans = strings.TrimSpace(ans); ans == "" {
		return def, nil
	}
	return ans, nil
}

// defaultEmbeddingModel is rag_embedding_model, else the first embedding
// model any client offers.
func (r *REPL) defaultEmbeddingModel() string {
	if m := r.conv.Config().String("rag_embedding_model"); m != "" {
		return m
	}
	return r.conv.FirstEmbeddingModel()
}

// checkRAGName refuses a name that is not a plain file name under rags/.
func checkRAGName(name string) error {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("invalid RAG name %q: a RAG name is a file name without / or \\ and not starting with a dot", name)
	}
	return nil
}

// ragWizard asks how to build a new RAG: the embedding model, chunking,
// the driver (one of the installed store plugins that can hold what the
// kernel indexes) and the driver's own settings, as its plugin asks them,
// then the documents.
func (r *REPL) ragWizard(ctx context.Context, name, path string) (*rag.File, error) {
	cfg := r.conv.Config()
	ask := r.question
	m, err := ask("Embedding model", r.defaultEmbeddingModel())
	if err != nil {
		return nil, err
	}
	if m == "" {
		return nil, errors.New("no embedding model: name one as client:model (coyote --list-models lists chat models; embedding models are in the catalog or your client's models: with type: embedding)")
	}
	sizeDef := "1500"
	if n, ok := cfg.Int("rag_chunk_size"); ok && n > 0 {
		sizeDef = strconv.FormatInt(n, 10)
	}
	sizeText, err := ask("Chunk size", sizeDef)
	if err != nil {
		return nil, err
	}
	size, err := strconv.Atoi(sizeText)
	if err != nil || size < 1 {
		return nil, fmt.Errorf("chunk size %q: want a whole number of at least 1", sizeText)
	}
	overDef := size / 20
	if n, ok := cfg.Int("rag_chunk_overlap"); ok && n >= 0 && int(n) < size {
		overDef = int(n)
	}
	overText, err := ask("Chunk overlap", strconv.Itoa(overDef))
	if err != nil {
		return nil, err
	}
	overlap, err := strconv.Atoi(overText)
	if err != nil || overlap < 0 || overlap >= size {
		return nil, fmt.Errorf("chunk overlap %q: want a whole number below the chunk size", overText)
	}
	installed, err := r.conv.RAGDrivers()
	if err != nil {
		return nil, err
	}
	def := r.conv.DefaultRAGDriver()
	choices := []string{def}
	for _, n := range installed {
		if n != def {
			choices = append(choices, n)
		}
	}
	driver, err := ask("Driver ("+strings.Join(choices, ", ")+")", def)
	if err != nil {
		return nil, err
	}
	d, store, err := r.conv.RAGDriver(ctx, driver)
	if err != nil {
		return nil, err
	}
	if !d.Owned {
		return nil, fmt.Errorf("the %s driver only attaches to an external collection: use .rag attach %s", driver, name)
	}
	setup, err := r.conv.RAGSetup(ctx, d, store, name, false)
	if err != nil {
		return nil, err
	}
	dc, _, err := r.askDriverConfig(ctx, name, d, setup)
	if err != nil {
		return nil, err
	}
	extractor, hops, err := r.askExtractor()
	if err != nil {
		return nil, err
	}
	docs, err := ask("Documents (files, directories, globs, URLs; separate them with ;)", "")
	if err != nil {
		return nil, err
	}
	paths := r.documentPaths(docs, ";")
	if len(paths) == 0 {
		return nil, errors.New("a RAG needs documents: give files, directories, globs or URLs, separated by ;")
	}
	topK, _ := cfg.Int("rag_top_k")
	return &rag.File{
		Path: path, Driver: driver, DriverConfig: dc, EmbeddingModel: m, ChunkSize: size, ChunkOverlap: overlap, TopK: int(max(topK, 1)),
		RerankerModel: cfg.String("rag_reranker_model"), ExtractorModel: extractor, ExtractorPrompt: cfg.String("rag_extractor_prompt"),
		GraphHops: hops, DocumentPaths: paths,
	}, nil
}

// askExtractor asks for the optional extractor model of graph RAG
// (rag_extractor_model, when set, is the default; "none" or an empty
// answer skips it) and, with one, how many hops a query expands
// (rag_graph_hops).
func (r *REPL) askExtractor() (string, *int, error) {
	cfg := r.conv.Config()
	hopsDef, ok := cfg.Int("rag_graph_hops")
	if !ok {
		hopsDef = 1
	}
	hops := int(hopsDef)
	m, err := r.question("Extractor model for graph RAG (a chat model that finds entities and relationships while indexing; none to skip)", cfg.String("rag_extractor_model"))
	if err != nil {
		return "", nil, err
	}
	if m == "" || strings.EqualFold(m, "none") {
		return "", &hops, nil
	}
	text, err := r.question("Graph hops (how far a question's entities expand; 0 = only them)", strconv.Itoa(hops))
	if err != nil {
		return "", nil, err
	}
	if hops, err = strconv.Atoi(text); err != nil || hops < 0 {
		return "", nil, fmt.Errorf("graph hops %q: want a whole number, 0 or more", text)
	}
	return m, &hops, nil
}

// documentPaths are the document paths that text lists, separated by sep,
// made absolute against the working directory (rag.AbsDocumentPaths).
func (r *REPL) documentPaths(text, sep string) []string {
	var paths []string
	for _, d := range strings.Split(text, sep) {
		if d = strings.TrimSpace(d); d != "" {
			paths = append(paths, d)
		}
	}
	return rag.AbsDocumentPaths(paths, "", r.conv.Config().StringMap("document_loaders"))
}

// indexProgress shows indexing on a terminal, and report says what was
// indexed.
func (r *REPL) indexProgress() (progress func(rag.Progress), done func()) {
	tty := r.o.IO.IsStdoutTTY()
	return func(p rag.Progress) {
			if tty {
				fmt.Fprintf(r.o.IO.Out, "\r\x1b[2KIndexing: %s", p)
			}
		}, func() {
			if tty {
				fmt.Fprint(r.o.IO.Out, "\r\x1b[2K")
			}
		}
}

func (r *REPL) reportIndexed(name string, plan *rag.Plan, full bool) {
	if plan == nil {
		return
	}
	if note := plan.Completed(name); note != "" {
		r.println(note)
	}
	if full {
		r.printf("RAG %s: %d files indexed.\n", name, len(plan.Added))
	} else {
		r.printf("RAG %s: %d files indexed, %d removed, %d unchanged.\n", name, len(plan.Added), len(plan.Removed), len(plan.Unchanged))
	}
	if note := plan.GraphNote(name); note != "" {
		r.println(note)
	}
}

func (r *REPL) cmdRebuildRAG(c *call) error {
	rg := r.conv.RAG
	if rg.File.Attached {
		return fmt.Errorf("RAG %s is attached to an external collection, and Coyote does not own its documents: it cannot rebuild it", rg.Name)
	}
	r.printf("Rebuilding RAG %s: every document is read and embedded again.\n", rg.Name)
	start := time.Now()
	return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
		f, err := rag.LoadSettings(rg.File.Path)
		if err != nil {
			return err
		}
		if err := r.build(ctx, f, rg.Name, true); err != nil {
			return err
		}
		r.printf("Done in %.1fs.\n", time.Since(start).Seconds())
		return nil
	})
}

// build indexes f's documents (all of them when full, else the changed
// ones) and makes it the active RAG (convo.State.IndexRAG), with a progress
// line on a terminal.
func (r *REPL) build(ctx context.Context, f *rag.File, name string, full bool) error {
	progress, done := r.indexProgress()
	plan, err := r.conv.IndexRAG(ctx, f, name, full, progress)
	done()
	if err == nil {
		r.reportIndexed(name, plan, full)
	}
	return err
}

func (r *REPL) cmdSourcesRAG(*call) error {
	if len(r.conv.LastSources) == 0 {
		r.println("No sources yet: ask a question first.")
		return nil
	}
	for _, s := range r.conv.LastSources {
		r.println(s)
	}
	return nil
}

func (r *REPL) cmdInfoRAG(c *call) error {
	rg := r.conv.RAG
	stats, err := rg.Store.Stats(c.ctx, &ragstore.StatsRequest{Store: rg.Name})
	if err != nil {
		stats = nil
	}
	if _, err := rg.LoadGraph(c.ctx); err != nil {
		return err
	}
	_, err = fmt.Fprint(r.out, rg.Describe(stats))
	return err
}

func (r *REPL) cmdExitRAG(*call) error {
	r.conv.UseRAG(nil)
	return nil
}

func (r *REPL) cmdEditRAGDocs(c *call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	rg := r.conv.RAG
	if rg.File.Attached {
		return fmt.Errorf("RAG %s is attached to an external collection, and Coyote does not own its documents: there are none to edit", rg.Name)
	}
	edited, err := r.editText(strings.Join(rg.File.DocumentPaths, "\n")+"\n", ".txt")
	if err != nil {
		return err
	}
	paths := r.documentPaths(edited, "\n")
	return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
		f, err := rag.LoadSettings(rg.File.Path)
		if err != nil {
			return err
		}
		f.DocumentPaths = paths
		return r.build(ctx, f, rg.Name, false)
	})
}

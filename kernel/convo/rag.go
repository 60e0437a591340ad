package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// RAGPath is the file of the RAG named name.
func (s *State) RAGPath(name string) string {
	return filepath.Join(s.d.Paths.RagsDir, name+".yaml")
}

// OpenRAG opens a RAG's file and its store (read-write to index it) and
// binds its embedding and reranker models. It does not make it the
// conversation's: see UseRAG.
//
// Opened read-only, a store that differs from the RAG's file (an indexing
// run did not finish: it was killed, or failed half way) is said so in one
// line, and completed: the store is reopened read-write for the time it
// takes to embed what it lacks (rag.RAG.Resume), then read-only again.
// When it cannot be completed now (another coyote holds the RAG, the
// embeddings fail), the line says so and the RAG answers from what it
// holds. Opened read-write, it is not checked: the rag.RAG.Index that
// follows checks and completes it under the RAG's indexing lock, and its
// plan says what it completed (rag.Plan.Completed).
func (s *State) OpenRAG(ctx context.Context, f *rag.File, name string, mode ragstore.Mode) (*rag.RAG, error) {
	check := checkAndComplete
	if mode == ragstore.ReadWrite {
		check = checkNone
	}
	return s.openRAG(ctx, f, name, mode, check)
}

// ReopenRAG opens a RAG read-only after an indexing run of this process.
// When the run finished (indexed), the store holds what the file lists
// and is not checked again. When it failed or was interrupted, a store
// left incomplete is said so, not completed (the user has just stopped,
// or seen fail, the work that would complete it); the next OpenRAG
// completes it.
func (s *State) ReopenRAG(ctx context.Context, f *rag.File, name string, indexed bool) (*rag.RAG, error) {
	check := checkAndSay
	if indexed {
		check = checkNone
	}
	return s.openRAG(ctx, f, name, ragstore.ReadOnly, check)
}

// ragCheck is what openRAG does about a store that differs from the RAG's
// file.
type ragCheck int

const (
	// checkAndComplete says so and completes the store (a read-only open).
	checkAndComplete ragCheck = iota
	// checkAndSay only says so (after this process's indexing failed).
	checkAndSay
	// checkNone compares nothing: the caller is about to index, which
	// compares under the indexing lock, or has just indexed.
	checkNone
)

func (s *State) openRAG(ctx context.Context, f *rag.File, name string, mode ragstore.Mode, check ragCheck) (*rag.RAG, error) {
	d, store, err := s.RAGDriver(ctx, f.Driver)
	if err != nil {
		return nil, fmt.Errorf("RAG %s: %w", name, err)
	}
	if err := f.Validate(d); err != nil {
		return nil, err
	}
	// Resolved once: each secret is a read and decryption of the vault.
	cfg, err := s.resolveDriverConfig(name, f.DriverConfig)
	if err != nil {
		return nil, err
	}
	if err := checkDriverConfig(ctx, d, store, name, f, cfg); err != nil {
		return nil, err
	}
	r := &rag.RAG{Name: name, File: f, Input: s.InputOptions(), DefaultBatch: 64}
	dim := 0
	if f.EmbeddingModel != "" {
		conn, model, err := s.ragModel(ctx, name, "embedding_model", f.EmbeddingModel)
		if err != nil {
			return nil, err
		}
		r.Embed = func(ctx context.Context, texts []string, inputType string) ([][]float32, error) {
			return conn.Embed(ctx, model, texts, inputType)
		}
		if mode == ragstore.ReadWrite {
			probe, err := r.Embed(ctx, []string{"dimension probe"}, provider.InputDocument)
			if err != nil {
				return nil, fmt.Errorf("RAG %s: embed with %s: %w", name, f.EmbeddingModel, err)
			}
			if len(probe) == 1 {
				dim = len(probe[0])
			}
		}
	} else if !f.Attached {
		return nil, fmt.Errorf("RAG %s has no embedding_model: set one (client:model of an embedding model) in %s", name, f.Path)
	}
	if f.RerankerModel != "" {
		conn, model, err := s.ragModel(ctx, name, "reranker_model", f.RerankerModel)
		if err != nil {
			return nil, err
		}
		r.Rerank = func(ctx context.Context, query string, docs []string, topN int) ([]int, error) {
			res, err := conn.Rerank(ctx, model, query, docs, topN)
			if err != nil {
				return nil, err
			}
			order := make([]int, len(res))
			for i, x := range res {
				order[i] = x.Index
			}
			return order, nil
		}
	}
	if f.ExtractorModel != "" && mode == ragstore.ReadWrite && !f.Attached {
		conn, model, err := s.ragModel(ctx, name, "extractor_model", f.ExtractorModel)
		if err != nil {
			return nil, err
		}
		r.Extract = extractor(conn, model)
	}
	req := ragstore.OpenRequest{Store: name, Path: f.Path, DriverConfig: cfg, Dimension: dim, Mode: mode, Attached: f.Attached}
	resp, err := store.Open(ctx, &req)
	if err != nil {
		return nil, fmt.Errorf("open RAG %s: %w", name, err)
	}
	r.Store = store
	if slices.Contains(resp.Capabilities, ragstore.CapKeywordSearch) {
		r.Keyword = store
	}
	if f.Attached {
		return r, nil
	}
	if d.ListFiles {
		r.Lister = store
	}
	if d.Graph {
		r.GraphStore = store
	}
	if check == checkNone {
		return r, nil
	}
	if err := s.checkRAG(ctx, r, req, check == checkAndComplete); err != nil {
		CloseRAG(r)
		return nil, err
	}
	return r, nil
}

// extractor is the chat of a RAG's extractor_model: one user message, at
// temperature 0, the answer's text.
func extractor(conn *llm.Conn, model models.Model) rag.Extractor {
	return func(ctx context.Context, prompt string) (string, error) {
		zero := 0.0
		var b strings.Builder
		req := &provider.ChatRequest{Messages: []provider.Message{provider.TextMessage(provider.RoleUser, prompt)}, Temperature: &zero}
		err := conn.Chat(ctx, model, req, func(ev *provider.ChatEvent) error {
			b.WriteString(ev.Text)
			return nil
		})
		return b.String(), err
	}
}

// checkRAG compares a RAG's store, opened read-only, with its file and,
// when they differ, says so in one line and completes the store (when
// complete; see OpenRAG).
func (s *State) checkRAG(ctx context.Context, r *rag.RAG, req ragstore.OpenRequest, complete bool) error {
	gap, err := r.CheckStore(ctx)
	switch {
	case err != nil:
		return err
	case gap.Empty():
		return nil
	}
	incomplete := fmt.Sprintf("RAG %s is incomplete (an indexing run did not finish): %s", r.Name, gap)
	leftOut := "answers leave out what it lacks until it is completed"
	if !complete {
		s.d.Warn(incomplete + "; " + leftOut + " (.rebuild rag, or open it again)")
		return nil
	}
	lock, err := rag.LockIndexing(r.Name, r.File.Path)
	if err != nil {
		var busy *rag.BusyError
		if errors.As(err, &busy) {
			s.d.Warn(fmt.Sprintf("RAG %s is incomplete: %s; %s is indexing it, and answers leave out what it lacks until it has finished", r.Name, gap, busy.Holder()))
		} else {
			s.d.Warn(cannotComplete(incomplete, r.Name, err))
		}
		return nil
	}
	defer lock.Unlock()
	// Read-write only for the time it takes: DuckDB's writer locks every
	// other coyote out of the RAG.
	rw := req
	rw.Mode = ragstore.ReadWrite
	if _, err := r.Store.Open(ctx, &rw); err != nil {
		if ctx.Err() != nil {
			return err
		}
		if _, err := r.Store.Open(ctx, &req); err != nil {
			return fmt.Errorf("open RAG %s: %w", r.Name, err)
		}
		s.d.Warn(cannotComplete(incomplete, r.Name, err))
		return nil
	}
	s.d.Warn(incomplete + "; resuming")
	resumeErr := r.Resume(ctx, gap, nil)
	if _, err := r.Store.Open(context.WithoutCancel(ctx), &req); err != nil {
		return fmt.Errorf("open RAG %s: %w", r.Name, err)
	}
	switch {
	case resumeErr != nil && ctx.Err() != nil:
		return resumeErr
	case resumeErr != nil:
		s.d.Warn(fmt.Sprintf("could not complete RAG %s: %v; %s", r.Name, resumeErr, leftOut))
	}
	return nil
}

// cannotComplete is the line for a RAG that is incomplete (the start of
// the line) and that cannot be completed now, because of why: what that
// leaves out and what completes it. Another coyote that has the store open
// (sdk.ErrUnavailable: DuckDB admits no writer beside a reader) is to be
// closed first.
func cannotComplete(incomplete, name string, why error) string {
	fix := "fix that"
	if errors.Is(why, sdk.ErrUnavailable) {
		fix = "close the other coyote using it"
	}
	return fmt.Sprintf("%s; it cannot be completed now (%v): answers leave out what it lacks until it is completed: %s and open the RAG again, or run `coyote --rag %s --rebuild-rag`", incomplete, why, fix, name)
}

// ragModel resolves the model id of a RAG's setting key (embedding_model,
// reranker_model) and connects to its client.
func (s *State) ragModel(ctx context.Context, name, key, id string) (*llm.Conn, models.Model, error) {
	t, err := llm.Resolve(s.d.Config, id)
	if err != nil {
		return nil, models.Model{}, fmt.Errorf("RAG %s: %s: %w", name, key, err)
	}
	conn, err := s.conn(ctx, t)
	if err != nil {
		return nil, models.Model{}, err
	}
	return conn, t.Model, nil
}

// resolveDriverConfig resolves the {{SECRET}}s of a RAG's driver_config
// from the vault.
func (s *State) resolveDriverConfig(name string, dc map[string]string) (map[string]any, error) {
	cfg := map[string]any{}
	for k, v := range dc {
		if names := vault.Placeholders(v); len(names) > 0 {
			if s.d.Secret == nil {
				return nil, fmt.Errorf("RAG %s: driver_config %s names the secret %s, and there is no vault: create it with coyote --add-secret %s", name, k, names[0], names[0])
			}
			resolved, err := vault.Interpolate(v, s.d.Secret)
			if err != nil {
				return nil, fmt.Errorf("RAG %s: driver_config %s: %w", name, k, err)
			}
			v = resolved
		}
		cfg[k] = v
	}
	return cfg, nil
}

// HasSecret reports whether the vault holds a secret.
func (s *State) HasSecret(name string) bool {
	if s.d.Secret == nil {
		return false
	}
	_, err := s.d.Secret(name)
	return err == nil
}

// ListCollections lists the collections on the server that a driver's
// driver_config names (secrets resolved), for the attach wizard.
func (s *State) ListCollections(ctx context.Context, name, driver string, dc map[string]string) ([]string, error) {
	store, err := s.ragStore(name, driver)
	if err != nil {
		return nil, err
	}
	cfg, err := s.resolveDriverConfig(name, dc)
	if err != nil {
		return nil, err
	}
	resp, err := store.ListCollections(ctx, &ragstore.ListCollectionsRequest{DriverConfig: cfg})
	if err != nil {
		return nil, err
	}
	return resp.Names, nil
}

// DropRAG removes what a RAG's store keeps outside the RAG's yaml (the
// DuckDB file beside it, an owned Qdrant collection; an attached RAG's
// collection is never touched), for .delete rag, which removes the yaml
// afterwards, so that a delete that fails half-way can be retried. The
// RAG must not be open (.exit rag first). A yaml that cannot be read, or
// whose driver has no plugin, is refused with what to do: the store's
// data cannot be found without them.
func (s *State) DropRAG(ctx context.Context, name string) error {
	return s.DropRAGAt(ctx, name, s.RAGPath(name))
}

// DropRAGAt is DropRAG for the RAG named name whose file is path (an
// agent's agents/<name>/rag.yaml).
func (s *State) DropRAGAt(ctx context.Context, name, path string) error {
	f, err := rag.LoadSettings(path)
	if err != nil {
		return fmt.Errorf("cannot delete RAG %s: %w; fix it, or remove %s by hand", name, err, path)
	}
	store, err := s.ragStore(name, f.Driver)
	if err != nil {
		return fmt.Errorf("cannot delete RAG %s: %w; install the plugin, or remove %s by hand", name, err, path)
	}
	cfg, err := s.resolveDriverConfig(name, f.DriverConfig)
	switch {
	case err != nil && f.Attached:
		// Its collection is someone else's and is never dropped: without
		// its secret there is nothing to ask the plugin.
		return nil
	case err != nil:
		return fmt.Errorf("cannot delete RAG %s: %w; add the secret, or remove %s by hand", name, err, path)
	}
	err = store.Drop(ctx, &ragstore.DropRequest{Store: name, Path: f.Path, DriverConfig: cfg, Attached: f.Attached})
	if err != nil {
		return fmt.Errorf("delete RAG %s: %w", name, err)
	}
	return nil
}

// ragStore is the store plugin of a RAG's driver (not started yet).
func (s *State) ragStore(name, driver string) (*plugins.RagStore, error) {
	if s.d.Host == nil {
		return nil, errors.New("no plugin host")
	}
	host, err := s.d.Host()
	if err != nil {
		return nil, err
	}
	store, err := host.RagStore(driver)
	var nf *plugins.NotFoundError
	if errors.As(err, &nf) {
		// The error names the driver; the caller names the RAG.
		installed, _ := s.RAGDrivers()
		return nil, &rag.UnknownDriverError{Driver: driver, Installed: installed}
	}
	if err != nil && name != "" {
		return nil, fmt.Errorf("RAG %s uses driver %q: %w", name, driver, err)
	}
	return store, err
}

// UseRAG makes r the conversation's RAG (nil: none): questions are
// augmented with its chunks, and the model is offered rag__query. The RAG
// it replaces is closed, unless r is the same RAG reopened: a plugin names
// its stores by RAG, so opening r replaced the old store already, and
// closing the old one would close r's.
func (s *State) UseRAG(r *rag.RAG) {
	if old := s.RAG; old != nil && old != r && !s.ragBorrowed && (r == nil || r.Name != old.Name || r.Store != old.Store) {
		CloseRAG(old)
	}
	s.RAG, s.ragBorrowed = r, false
	if s.Tools == nil {
		s.Tools = tools.NewRegistry()
	}
	s.Tools.Remove(ragFunctionPrefix)
	if r != nil {
		s.Tools.Add(s.ragQueryFunc())
	}
}

// CloseRAG closes the store of a RAG that OpenRAG opened and that is
// given up (UseRAG closes the one it replaces). Its error is dropped: no
// caller has anything left to do about it.
func CloseRAG(r *rag.RAG) {
	_ = r.Store.Close(context.Background(), &ragstore.CloseRequest{Store: r.Name})
}

const ragFunctionPrefix = "rag__"

// ragQueryFunc is rag__query: the model searches the active RAG itself.
func (s *State) ragQueryFunc() *tools.Func {
	return &tools.Func{
		Name:        "rag__query",
		Description: "Search the active knowledge base (RAG) for passages relevant to a query. Returns the passages' text and sources.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to search for."},"top_k":{"type":"integer","description":"How many passages (default: the RAG's top_k)."}},"required":["query"]}`),
		Source:      "rag",
		Builtin:     true,
		Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Query string `json:"query"`
				TopK  int    `json:"top_k"`
			}
			if err := json.Unmarshal(raw, &a); err != nil || a.Query == "" {
				return "", errors.New("rag__query needs a query")
			}
			r := s.RAG
			if r == nil {
				return "", errors.New("no RAG is active")
			}
			chunks, err := r.Search(ctx, a.Query, a.TopK)
			if err != nil {
				return "", err
			}
			type out struct {
				Text   string `json:"text"`
				Source string `json:"source"`
			}
			res := struct {
				RAG    string `json:"rag_name"`
				Count  int    `json:"count"`
				Chunks []out  `json:"chunks"`
			}{RAG: r.Name, Count: len(chunks), Chunks: []out{}}
			for _, c := range chunks {
				res.Chunks = append(res.Chunks, out{Text: c.Text, Source: c.Source})
			}
			b, err := json.Marshal(res)
			return string(b), err
		},
	}
}

// Augment puts the active RAG's best chunks for the input's text around
// it with rag_template, as the original does for every question while a
// RAG is active. The sources are kept for `.sources rag`.
func (s *State) Augment(ctx context.Context, parts []provider.Part) ([]provider.Part, error) {
	if s.RAG == nil {
		return parts, nil
	}
	text := ""
	idx := -1
	for i, p := range parts {
		if p.Text != "" {
			text, idx = p.Text, i
		}
	}
	if idx < 0 {
		return parts, nil
	}
	chunks, err := s.RAG.Search(ctx, text, 0)
	if err != nil {
		return nil, fmt.Errorf("search RAG %s: %w", s.RAG.Name, err)
	}
	s.LastSources = rag.SourceLines(chunks)
	if len(chunks) == 0 {
		return parts, nil
	}
	out := slices.Clone(parts)
	out[idx].Text = rag.Render(s.d.Config.String("rag_template"), chunks, text)
	return out, nil
}

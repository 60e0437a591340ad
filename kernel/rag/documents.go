package rag

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/input"
)

// Source is a document read for indexing: a stable path (absolute for a
// local file; a URL, `command` or loader:resource as written), its text,
// and the hex sha256 of the text.
type Source struct {
	Path string
	Text string
	Hash string
}

// NewSource makes a Source, hashing text.
func NewSource(path, text string) Source {
	sum := sha256.Sum256([]byte(text))
	return Source{Path: path, Text: text, Hash: hex.EncodeToString(sum[:])}
}

// LoadSources reads a RAG's document_paths through kernel/input: files,
// directories (recursively, hidden and binary files skipped), globs,
// http(s) URLs, `commands`, and loader:resource for a document_loaders
// entry (a loader may print a JSON list of {path, contents}, one document
// each). Images are skipped; a document reached twice is read once.
// Relative paths resolve against opts.Dir (the current directory when
// empty). It holds every document: indexing walks them (WalkSources).
func LoadSources(ctx context.Context, paths []string, opts input.Options) ([]Source, error) {
	var out []Source
	err := WalkSources(ctx, paths, opts, func(s Source) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WalkSources reads the documents LoadSources reads, in the same order,
// and gives each to fn as soon as it is read (a site crawl's pages come
// once the crawl ends). An error from fn stops the walk and is returned
// as it is.
func WalkSources(ctx context.Context, paths []string, opts input.Options, fn func(Source) error) error {
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	}
	seen := map[string]bool{}
	add := func(s Source) error {
		if seen[s.Path] {
			return nil
		}
		seen[s.Path] = true
		return fn(s)
	}
	for _, p := range paths {
		if isURL(p) && strings.HasSuffix(p, "**") {
			pages, err := CrawlSite(ctx, opts.HTTP, p)
			if err != nil {
				return fmt.Errorf("document %s: %w", p, err)
			}
			for _, s := range pages {
				if err := add(s); err != nil {
					return err
				}
			}
			continue
		}
		loader := isLoaderSource(p, opts.Loaders)
		stop := false // fn failed: its error is not the document's
		err := input.Walk(ctx, []string{p}, opts, func(d input.Document) error {
			if d.ImageURL != "" {
				return nil
			}
			err := func() error {
				if loader {
					if items, ok := loaderItems(d.Text); ok {
						for _, it := range items {
							if err := add(NewSource(it.Path, it.Contents)); err != nil {
								return err
							}
						}
						return nil
					}
					return add(NewSource(p, d.Text))
				}
				return add(NewSource(stablePath(d.Name, dir), d.Text))
			}()
			stop = err != nil
			return err
		})
		if err != nil && stop {
			return err
		}
		if err != nil {
			if inner := errors.Unwrap(err); inner != nil {
				err = inner // input.Walk names the source as "-f <source>"
			}
			return fmt.Errorf("document %s: %w", p, err)
		}
	}
	return nil
}

// AbsDocumentPaths makes the local paths among document paths absolute
// (against dir, the current directory when empty; "~/" against the home
// directory), so a RAG re-syncs the same files from any directory. URLs,
// `commands` and loader:resource forms are kept as written.
func AbsDocumentPaths(paths []string, dir string, loaders map[string]string) []string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if isURL(p) || isCommand(p) || isLoaderSource(p, loaders) || p == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				out[i] = filepath.Join(home, rest)
				continue
			}
		}
		out[i] = stablePath(p, dir)
	}
	return out
}

func stablePath(name, dir string) string {
	if isURL(name) || isCommand(name) {
		return name
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return filepath.Clean(name)
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

func isCommand(s string) bool {
	return len(s) > 2 && strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`")
}

// isLoaderSource reports whether kernel/input reads src through a
// document_loaders command named by its prefix (loader:resource) or by
// its URL scheme.
func isLoaderSource(src string, loaders map[string]string) bool {
	if isCommand(src) {
		return false
	}
	// A URL's name is its scheme; one letter is a Windows drive.
	name, _, ok := strings.Cut(src, ":")
	_, known := loaders[name]
	return ok && known && len(name) > 1
}

type loaderItem struct {
	Path     string `json:"path"`
	Contents string `json:"contents"`
}

// loaderItems reads a loader's output as a JSON list of {path, contents};
// ok is false when it is not one.
func loaderItems(text string) ([]loaderItem, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "[") {
		return nil, false
	}
	var items []loaderItem
	if err := json.Unmarshal([]byte(t), &items); err != nil {
		return nil, false
	}
	for _, it := range items {
		if it.Path == "" {
			return nil, false
		}
	}
	return items, true
}

// Package input owns turning what the user points at with -f/--file (and
// the REPL's .file) into message parts: files, directories, globs, URLs,
// the output of a `command`, documents converted by a loader command from
// document_loaders, and images as data URLs. It reads files, fetches URLs
// and runs the commands the user named; it knows nothing about models.
package input

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// Options control how sources are read.
type Options struct {
	// Loaders maps a file extension (pdf) or a protocol (jina) to a
	// command run by sh, with the path or URL as $1 (see loader.go).
	Loaders map[string]string
	// Secret resolves the {{NAME}} placeholders of loader commands; nil
	// when no vault is available.
	Secret func(name string) (string, error)
	// Dir resolves relative paths; "" is the current directory.
	Dir string
	// HTTP fetches URLs; nil means a client with a 30 s timeout.
	HTTP *http.Client
	// MaxFileSize skips bigger files in directories and globs (a file
	// named directly is always read); 0 means 1 MiB.
	MaxFileSize int64
}

// Document is one thing that was read: text under a name, or an image.
type Document struct {
	// Name is the path, URL or command the text came from.
	Name string
	Text string
	// ImageURL is set instead of Text for images (a data: URL).
	ImageURL string
}

// imageTypes are the extensions sent as images.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

// Load reads every source, in order. A source is a file, a directory
// (read recursively, hidden entries and binary files skipped), a glob
// (`*`, `?`, `[…]`, and `**` for any depth), an http(s) URL, a command in
// backticks (`git diff`), or loader:resource for a document_loaders entry.
func Load(ctx context.Context, sources []string, opts Options) ([]Document, error) {
	var docs []Document
	err := Walk(ctx, sources, opts, func(d Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// Walk reads the sources as Load does and gives each document to fn as
// soon as it is read, so that a caller that handles them one at a time
// (RAG indexing) never holds a whole directory's text. An error from fn
// stops the walk and is returned as it is.
func Walk(ctx context.Context, sources []string, opts Options, fn func(Document) error) error {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 1 << 20
	}
	for _, src := range sources {
		stop := false // fn failed: its error is not the source's
		err := load(ctx, src, opts, func(d Document) error {
			if err := fn(d); err != nil {
				stop = true
				return err
			}
			return nil
		})
		if err != nil && stop {
			return err
		}
		if err != nil {
			return fmt.Errorf("-f %s: %w", src, err)
		}
	}
	return nil
}

func load(ctx context.Context, src string, opts Options, yield func(Document) error) error {
	all := func(docs []Document, err error) error {
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := yield(d); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case len(src) > 2 && strings.HasPrefix(src, "`") && strings.HasSuffix(src, "`"):
		cmd := src[1 : len(src)-1]
		out, err := runShell(ctx, cmd, opts.Dir)
		if err != nil {
			return err
		}
		return yield(Document{Name: "`" + cmd + "`", Text: out})
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		if cmd, ok := opts.Loaders[urlScheme(src)]; ok {
			return all(loaderDoc(ctx, cmd, src, opts))
		}
		return all(fetch(ctx, src, opts))
	}
	if name, res, ok := strings.Cut(src, ":"); ok && len(name) > 1 {
		if cmd, known := opts.Loaders[name]; known {
			return all(loaderDoc(ctx, cmd, res, opts))
		}
	}
	path := src
	if !filepath.IsAbs(path) && opts.Dir != "" {
		path = filepath.Join(opts.Dir, path)
	}
	if strings.ContainsAny(src, "*?[") {
		return glob(ctx, path, src, opts, yield)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return dir(ctx, path, src, opts, yield)
	}
	d, err := file(ctx, path, src, opts, false)
	if err != nil {
		return err
	}
	return yield(d)
}

// file reads one file; skipBig skips files over the size limit and binary
// files (for directories and globs) instead of failing.
func file(ctx context.Context, path, name string, opts Options, skipBig bool) (Document, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if cmd, ok := opts.Loaders[strings.TrimPrefix(ext, ".")]; ok && ext != "" {
		docs, err := loaderDoc(ctx, cmd, path, opts)
		if err != nil {
			return Document{}, err
		}
		docs[0].Name = name
		return docs[0], nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Document{}, err
	}
	if typ, ok := imageTypes[ext]; ok {
		return Document{Name: name, ImageURL: "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(data)}, nil
	}
	if skipBig && (int64(len(data)) > opts.MaxFileSize || isBinary(data)) {
		return Document{}, errSkip
	}
	if isBinary(data) {
		return Document{}, fmt.Errorf("%s is a binary file; add a document_loaders entry for %q to read it", name, strings.TrimPrefix(ext, "."))
	}
	return Document{Name: name, Text: string(data)}, nil
}

var errSkip = fmt.Errorf("skipped")

// dir reads a directory recursively, in path order.
func dir(ctx context.Context, root, name string, opts Options, yield func(Document) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		doc, err := file(ctx, path, filepath.Join(name, rel), opts, true)
		if err == errSkip {
			return nil
		}
		if err != nil {
			return err
		}
		return yield(doc)
	})
}

// glob reads the files matching pattern; `**` matches any number of
// directories.
func glob(ctx context.Context, pattern, name string, opts Options, yield func(Document) error) error {
	root := globRoot(pattern)
	if _, err := os.Stat(root); err != nil {
		return fmt.Errorf("no file matches (%s does not exist)", root)
	}
	var matches []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && matchGlob(pattern, path) {
			matches = append(matches, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(matches) == 0 {
		return fmt.Errorf("no file matches")
	}
	sort.Strings(matches)
	for _, m := range matches {
		shown := m
		if !filepath.IsAbs(name) && opts.Dir != "" {
			if rel, err := filepath.Rel(opts.Dir, m); err == nil {
				shown = rel
			}
		}
		doc, err := file(ctx, m, shown, opts, true)
		if err == errSkip {
			continue
		}
		if err != nil {
			return err
		}
		if err := yield(doc); err != nil {
			return err
		}
	}
	return nil
}

// globRoot is the longest leading directory of pattern without a wildcard.
func globRoot(pattern string) string {
	parts := strings.Split(filepath.ToSlash(pattern), "/")
	var root []string
	for _, p := range parts {
		if strings.ContainsAny(p, "*?[") {
			break
		}
		root = append(root, p)
	}
	r := strings.Join(root, "/")
	if r == "" {
		if strings.HasPrefix(pattern, "/") {
			return "/"
		}
		return "."
	}
	return filepath.FromSlash(r)
}

// matchGlob matches path against pattern segment by segment; a `**`
// segment matches zero or more segments.
func matchGlob(pattern, path string) bool {
	pp := strings.Split(filepath.ToSlash(filepath.Clean(pattern)), "/")
	sp := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	var match func(p, s []string) bool
	match = func(p, s []string) bool {
		for len(p) > 0 {
			if p[0] == "**" {
				for i := 0; i <= len(s); i++ {
					if match(p[1:], s[i:]) {
						return true
					}
				}
				return false
			}
			if len(s) == 0 {
				return false
			}
			if ok, _ := filepath.Match(p[0], s[0]); !ok {
				return false
			}
			p, s = p[1:], s[1:]
		}
		return len(s) == 0
	}
	return match(pp, sp)
}

// fetch downloads a URL: text as text, images as an image.
func fetch(ctx context.Context, url string, opts Options) ([]Document, error) {
	client := opts.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "coyote")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, err
	}
	typ, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if strings.HasPrefix(typ, "image/") {
		return []Document{{Name: url, ImageURL: "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(data)}}, nil
	}
	if isBinary(data) {
		return nil, fmt.Errorf("%s is not text (%s); add a document_loaders entry to read it", url, typ)
	}
	return []Document{{Name: url, Text: string(data)}}, nil
}

func runShell(ctx context.Context, command, dir string) (string, error) {
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "sh"
	}
	c := exec.CommandContext(ctx, shell, "-c", command)
	c.Dir = dir
	out, err := output(c)
	return string(out), err
}

// output runs c and returns what it wrote to its standard output. When c
// fails, the error carries the first line of its standard error, which is
// where a shell or a tool says what went wrong.
func output(c *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%v: %s", err, firstLine(msg))
		}
		return nil, err
	}
	return out, nil
}

func urlScheme(u string) string {
	s, _, _ := strings.Cut(u, ":")
	return s
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// isBinary reports whether data looks like a binary file: a NUL byte, or
// not UTF-8, in its first 8 KiB.
func isBinary(data []byte) bool {
	head := data[:min(len(data), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// A multi-byte character may be cut at the end of head.
	for i := 0; i < 4 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}

// Parts makes message parts of documents followed by the user's text:
// each text document under a header naming it, images as image parts.
func Parts(docs []Document, text string) []provider.Part {
	var parts []provider.Part
	var b strings.Builder
	for _, d := range docs {
		if d.ImageURL != "" {
			parts = append(parts, provider.Part{ImageURL: d.ImageURL})
			continue
		}
		fmt.Fprintf(&b, "==> %s <==\n%s", d.Name, d.Text)
		if !strings.HasSuffix(d.Text, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	b.WriteString(text)
	if s := strings.TrimRight(b.String(), "\n"); s != "" {
		parts = append([]provider.Part{{Text: s}}, parts...)
	}
	return parts
}

package rag

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
)

// Crawl limits: a site is read breadth first, a few pages at a time, up to
// MaxCrawlPages pages.
const (
	MaxCrawlPages  = 1000
	crawlWorkers   = 4
	maxCrawlPage   = 8 << 20
	crawlUserAgent = "coyote (RAG crawler)"
)

// CrawlSite reads the pages of a site for a RAG: start is a document path
// ending in "**" (https://example.com/docs/**). Starting from the URL
// before the "**", it follows links that stay on the same host and under
// the same path, each page once (query and fragment ignored), breadth
// first, and returns every HTML page's text and every plain-text page as
// it is, by URL, in the order found. Pages that fail are skipped; the
// start page failing is an error.
func CrawlSite(ctx context.Context, client *http.Client, start string) ([]Source, error) {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	root, err := url.Parse(strings.TrimSuffix(start, "**"))
	if err != nil || root.Host == "" {
		return nil, fmt.Errorf("%s is not a URL to crawl: write https://host/path/**", start)
	}
	root.RawQuery, root.Fragment = "", ""
	prefix := root.Path
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		prefix = prefix[:i+1]
	} else {
		prefix = "/"
	}
	within := func(u *url.URL) bool {
		return (u.Scheme == "http" || u.Scheme == "https") && u.Host == root.Host && strings.HasPrefix(u.Path, prefix)
	}

	type page struct {
		url   string
		text  string
		links []string
		err   error
	}
	seen := map[string]bool{root.String(): true}
	queue := []string{root.String()} // found and not fetched yet, breadth first
	var out []Source
	for len(queue) > 0 && len(out) < MaxCrawlPages {
		// No more pages are fetched than could still be kept.
		batch := queue[:min(len(queue), MaxCrawlPages-len(out))]
		queue = queue[len(batch):]
		pages := make([]page, len(batch))
		var wg sync.WaitGroup
		sem := make(chan struct{}, crawlWorkers)
		for i, u := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				text, links, err := crawlPage(ctx, client, u)
				pages[i] = page{url: u, text: text, links: links, err: err}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, p := range pages {
			if p.err != nil {
				if p.url == root.String() {
					return nil, p.err
				}
				continue
			}
			if strings.TrimSpace(p.text) != "" {
				out = append(out, NewSource(p.url, p.text))
			}
			base, _ := url.Parse(p.url)
			for _, l := range p.links {
				u, err := base.Parse(l)
				if err != nil {
					continue
				}
				u.RawQuery, u.Fragment = "", ""
				if !within(u) || seen[u.String()] {
					continue
				}
				seen[u.String()] = true
				queue = append(queue, u.String())
			}
		}
	}
	return out, nil
}

// crawlPage fetches one page: an HTML page's text and links, or a
// plain-text page's text. Other types are skipped (no text).
func crawlPage(ctx context.Context, client *http.Client, u string) (text string, links []string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("User-Agent", crawlUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", nil, fmt.Errorf("%s answered %s", u, resp.Status)
	}
	body := io.LimitReader(resp.Body, maxCrawlPage)
	typ, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case typ == "text/html" || typ == "application/xhtml+xml":
		text, links = htmlText(body)
		return text, links, nil
	case strings.HasPrefix(typ, "text/"):
		b, err := io.ReadAll(body)
		return string(b), nil, err
	}
	return "", nil, nil
}

// htmlText is the readable text of an HTML page, one line per block, and
// the targets of its links. Scripts, styles and the head are left out.
func htmlText(r io.Reader) (string, []string) {
	z := html.NewTokenizer(r)
	var b strings.Builder
	var links []string
	skip := 0 // depth inside elements whose text is not content
	newline := func() {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String()) + "\n", links
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if tag == "a" && hasAttr {
				for {
					k, v, more := z.TagAttr()
					if string(k) == "href" {
						links = append(links, string(v))
					}
					if !more {
						break
					}
				}
			}
			if skippedTags[tag] {
				skip++
			}
			if blockTags[tag] {
				newline()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if skippedTags[tag] && skip > 0 {
				skip--
			}
			if blockTags[tag] {
				newline()
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := strings.Join(strings.Fields(string(z.Text())), " ")
			if t == "" {
				continue
			}
			if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, " ") {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
	}
}

var skippedTags = map[string]bool{"script": true, "style": true, "head": true, "noscript": true, "template": true, "svg": true}

var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true, "pre": true, "blockquote": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "tr": true, "table": true,
	"section": true, "article": true, "header": true, "footer": true, "nav": true, "main": true, "hr": true, "dt": true, "dd": true,
}

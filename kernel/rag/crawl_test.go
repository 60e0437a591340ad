package rag

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/kernel/input"
)

// site serves a small documentation site with links inside and outside
// /docs/, a cycle, a broken link, a plain-text page and an image.
func site(t *testing.T) (*httptest.Server, *sync.Map) {
	t.Helper()
	hits := &sync.Map{}
	pages := map[string]string{
		"/docs/":             `<html><head><title>T</title><script>var x = "hidden";</script></head><body><h1>Guide</h1><p>Start <a href="intro.html">here</a>.</p><a href="/docs/api/ref.html?v=2#top">API</a><a href="/blog/post.html">blog</a><a href="https://elsewhere.example/docs/">out</a><a href="missing.html">broken</a><a href="notes.txt">notes</a><a href="logo.png">logo</a></body></html>`,
		"/docs/intro.html":   `<p>Coyotes howl at dusk.</p><a href="/docs/">back</a><a href="api/ref.html">api</a>`,
		"/docs/api/ref.html": `<ul><li>call()</li><li>stop()</li></ul><style>.x{}</style>`,
		"/blog/post.html":    `<p>not documentation</p>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := hits.LoadOrStore(r.URL.Path, new(int))
		*(n.(*int))++
		switch {
		case r.URL.Path == "/docs/notes.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "plain notes")
		case r.URL.Path == "/docs/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte{0x89, 'P', 'N', 'G'})
		case pages[r.URL.Path] != "":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, pages[r.URL.Path])
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func TestCrawlSiteStaysUnderThePathAndReadsEachPageOnce(t *testing.T) {
	srv, hits := site(t)
	got, err := CrawlSite(context.Background(), srv.Client(), srv.URL+"/docs/**")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	text := map[string]string{}
	for _, s := range got {
		p := strings.TrimPrefix(s.Path, srv.URL)
		paths = append(paths, p)
		text[p] = s.Text
	}
	want := []string{"/docs/", "/docs/api/ref.html", "/docs/notes.txt", "/docs/intro.html"}
	slices.Sort(paths)
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Fatalf("pages %v, want %v", paths, want)
	}
	for _, tc := range []struct{ page, has, hasNot string }{
		{"/docs/", "Guide\nStart here .", "hidden"},
		{"/docs/intro.html", "Coyotes howl at dusk.", ""},
		{"/docs/api/ref.html", "call()\nstop()", ".x{}"},
		{"/docs/notes.txt", "plain notes", ""},
	} {
		if !strings.Contains(text[tc.page], tc.has) || tc.hasNot != "" && strings.Contains(text[tc.page], tc.hasNot) {
			t.Errorf("%s: text %q, want %q without %q", tc.page, text[tc.page], tc.has, tc.hasNot)
		}
	}
	for _, p := range []string{"/docs/", "/docs/intro.html", "/docs/api/ref.html"} {
		if n, _ := hits.Load(p); n == nil || *(n.(*int)) != 1 {
			t.Errorf("%s fetched %v times, want once", p, n)
		}
	}
	if _, ok := hits.Load("/blog/post.html"); ok {
		t.Error("the crawler left /docs/")
	}
}

func TestCrawlSiteFailsWhenTheStartPageDoes(t *testing.T) {
	srv, _ := site(t)
	_, err := CrawlSite(context.Background(), srv.Client(), srv.URL+"/nothing/**")
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadSourcesCrawlsURLsEndingInStars(t *testing.T) {
	srv, _ := site(t)
	got, err := LoadSources(context.Background(), []string{srv.URL + "/docs/api/ref.html**"}, input.Options{HTTP: srv.Client(), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != srv.URL+"/docs/api/ref.html" || !strings.Contains(got[0].Text, "call()") {
		var ps []string
		for _, s := range got {
			ps = append(ps, s.Path)
		}
		t.Fatalf("sources %v", ps)
	}
}

// A site bigger than MaxCrawlPages is read up to the limit, breadth
// first, without fetching pages that could not be kept.
func TestCrawlSiteStopsFetchingAtTheLimit(t *testing.T) {
	const links = MaxCrawlPages + 500
	var mu sync.Mutex
	fetched := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetched++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path != "/docs/" {
			fmt.Fprintf(w, "<p>page %s</p>", r.URL.Path)
			return
		}
		for i := range links {
			fmt.Fprintf(w, `<a href="p%d.html">%d</a>`, i, i)
		}
	}))
	t.Cleanup(srv.Close)
	got, err := CrawlSite(context.Background(), srv.Client(), srv.URL+"/docs/**")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxCrawlPages || got[0].Path != srv.URL+"/docs/" || got[1].Path != srv.URL+"/docs/p0.html" ||
		got[MaxCrawlPages-1].Path != fmt.Sprintf("%s/docs/p%d.html", srv.URL, MaxCrawlPages-2) {
		t.Errorf("%d pages, first %s, %s, last %s", len(got), got[0].Path, got[1].Path, got[len(got)-1].Path)
	}
	if fetched != MaxCrawlPages {
		t.Errorf("fetched %d pages to keep %d", fetched, MaxCrawlPages)
	}
}

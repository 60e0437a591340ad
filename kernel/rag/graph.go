package rag

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// MaxGraphNodes bounds a RAG's knowledge graph, as the original's: past
// it, the best-connected nodes are kept (Graph.Cap). A query's expansion
// visits at most as many.
const MaxGraphNodes = 500

// seedScore is the score of a node a query reaches without sharing a word
// with it (a keyword hit's entities), and the least a named node scores.
const seedScore = 0.5

// Entity is a node of a knowledge graph: a named thing the extractor found
// in the RAG's chunks.
type Entity struct {
	Name string `json:"name"`
	// Type is upper case: PERSON, ORGANIZATION, CONCEPT, …, OTHER.
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// Relation is a directed edge between two nodes (indexes in Graph.Nodes).
type Relation struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Type string `json:"type"`
	// Weight is in [0, 1]; a query's score decays by it along the edge.
	Weight float64 `json:"weight"`
}

// Graph is a RAG's knowledge graph: the entities and relationships its
// extractor model found in the chunks, and which chunks name which
// entities. Chunks are named by their ids ("<file id>-<index>").
type Graph struct {
	Nodes []Entity
	Edges []Relation
	// Chunks maps a chunk id to the nodes extracted from it.
	Chunks map[string][]int

	// Built by index on first use and dropped by every change.
	byName     map[string]int // lower-case name → node
	adj        [][]int        // node → its edges (both directions)
	nodeChunks [][]string     // node → its chunks, in id order
	words      map[string][]int
	phrases    []int // nodes whose name has a space
}

// Extraction is what the extractor model returns for one chunk, as JSON.
type Extraction struct {
	Entities []struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description"`
	} `json:"entities"`
	Relationships []struct {
		From   string   `json:"from"`
		To     string   `json:"to"`
		Type   string   `json:"type"`
		Weight *float64 `json:"weight"`
	} `json:"relationships"`
}

// NodeCount and EdgeCount are the graph's size (0 for a nil graph).
func (g *Graph) NodeCount() int {
	if g == nil {
		return 0
	}
	return len(g.Nodes)
}

// EdgeCount is the number of relationships.
func (g *Graph) EdgeCount() int {
	if g == nil {
		return 0
	}
	return len(g.Edges)
}

func (g *Graph) changed() {
	g.byName, g.adj, g.nodeChunks, g.words, g.phrases = nil, nil, nil, nil, nil
}

func (g *Graph) names() map[string]int {
	if g.byName == nil {
		g.byName = make(map[string]int, len(g.Nodes))
		for i, n := range g.Nodes {
			key := strings.ToLower(n.Name)
			if _, dup := g.byName[key]; !dup {
				g.byName[key] = i
			}
		}
	}
	return g.byName
}

// Merge adds what the extractor found in the chunk id to the graph:
// entities are one node per name (letter case aside), a later mention
// filling a missing description or an OTHER type; relationships between
// entities of the graph are added once per (from, to, type), weight 1
// when unset, kept within [0, 1]. Relationships naming unknown entities
// are dropped.
func (g *Graph) Merge(id string, x *Extraction) {
	if g.Chunks == nil {
		g.Chunks = map[string][]int{}
	}
	names := g.names()
	var nodes []int
	for _, e := range x.Entities {
		name := strings.TrimSpace(e.Name)
		if name == "" {
			continue
		}
		typ := strings.ToUpper(strings.TrimSpace(e.Type))
		if typ == "" {
			typ = "OTHER"
		}
		key := strings.ToLower(name)
		n, ok := names[key]
		if ok {
			if g.Nodes[n].Type == "OTHER" && typ != "OTHER" {
				g.Nodes[n].Type = typ
			}
			if g.Nodes[n].Description == "" {
				g.Nodes[n].Description = e.Description
			}
		} else {
			n = len(g.Nodes)
			g.Nodes = append(g.Nodes, Entity{Name: name, Type: typ, Description: e.Description})
			names[key] = n
		}
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	for _, r := range x.Relationships {
		from, ok1 := names[strings.ToLower(strings.TrimSpace(r.From))]
		to, ok2 := names[strings.ToLower(strings.TrimSpace(r.To))]
		if !ok1 || !ok2 {
			continue
		}
		w := 1.0
		if r.Weight != nil {
			w = min(max(*r.Weight, 0), 1)
		}
		if !slices.ContainsFunc(g.Edges, func(e Relation) bool { return e.From == from && e.To == to && e.Type == r.Type }) {
			g.Edges = append(g.Edges, Relation{From: from, To: to, Type: r.Type, Weight: w})
		}
	}
	for _, n := range nodes {
		if !slices.Contains(g.Chunks[id], n) {
			g.Chunks[id] = append(g.Chunks[id], n)
		}
	}
	byName := g.byName
	g.changed()
	g.byName = byName
}

// RemoveFiles drops the chunks of the files (ids as ragstore.Chunk.FileID
// names them), then the entities no chunk names any more, with their
// relationships.
func (g *Graph) RemoveFiles(files []string) {
	if len(files) == 0 || len(g.Chunks) == 0 {
		return
	}
	drop := make(map[string]bool, len(files))
	for _, f := range files {
		drop[f] = true
	}
	for id := range g.Chunks {
		if f, _, ok := strings.Cut(id, "-"); ok && drop[f] {
			delete(g.Chunks, id)
		}
	}
	used := make([]bool, len(g.Nodes))
	for _, ns := range g.Chunks {
		for _, n := range ns {
			if n >= 0 && n < len(used) {
				used[n] = true
			}
		}
	}
	g.keep(used)
}

// Cap keeps at most limit nodes: the best connected (most relationships,
// then named by most chunks, then the oldest), with the relationships
// between them. It reports whether it dropped any.
func (g *Graph) Cap(limit int) bool {
	if len(g.Nodes) <= limit {
		return false
	}
	degree := make([]int, len(g.Nodes))
	for _, e := range g.Edges {
		degree[e.From]++
		degree[e.To]++
	}
	mentions := make([]int, len(g.Nodes))
	for _, ns := range g.Chunks {
		for _, n := range ns {
			mentions[n]++
		}
	}
	order := make([]int, len(g.Nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(degree[b], degree[a]); c != 0 {
			return c
		}
		return cmp.Compare(mentions[b], mentions[a])
	})
	used := make([]bool, len(g.Nodes))
	for _, n := range order[:max(limit, 0)] {
		used[n] = true
	}
	g.keep(used)
	return true
}

// keep drops the nodes not used, renumbering the others in order.
func (g *Graph) keep(used []bool) {
	renum := make([]int, len(g.Nodes))
	nodes := g.Nodes[:0:0]
	for i, n := range g.Nodes {
		renum[i] = -1
		if used[i] {
			renum[i] = len(nodes)
			nodes = append(nodes, n)
		}
	}
	if len(nodes) == len(g.Nodes) {
		return
	}
	edges := g.Edges[:0:0]
	for _, e := range g.Edges {
		if renum[e.From] >= 0 && renum[e.To] >= 0 {
			e.From, e.To = renum[e.From], renum[e.To]
			edges = append(edges, e)
		}
	}
	for id, ns := range g.Chunks {
		out := ns[:0]
		for _, n := range ns {
			if n >= 0 && n < len(renum) && renum[n] >= 0 {
				out = append(out, renum[n])
			}
		}
		if len(out) == 0 {
			delete(g.Chunks, id)
		} else {
			g.Chunks[id] = out
		}
	}
	g.Nodes, g.Edges = nodes, edges
	g.changed()
}

// index builds what Search reads.
func (g *Graph) index() {
	if g.adj != nil {
		return
	}
	g.names()
	g.adj = make([][]int, len(g.Nodes))
	for i, e := range g.Edges {
		g.adj[e.From] = append(g.adj[e.From], i)
		if e.To != e.From {
			g.adj[e.To] = append(g.adj[e.To], i)
		}
	}
	g.nodeChunks = make([][]string, len(g.Nodes))
	for id, ns := range g.Chunks {
		for _, n := range ns {
			if n >= 0 && n < len(g.Nodes) {
				g.nodeChunks[n] = append(g.nodeChunks[n], id)
			}
		}
	}
	for _, cs := range g.nodeChunks {
		slices.SortFunc(cs, compareChunkIDs)
	}
	g.words = map[string][]int{}
	g.phrases = nil
	for key, n := range g.byName {
		if strings.Contains(key, " ") {
			g.phrases = append(g.phrases, n)
		} else {
			g.words[key] = append(g.words[key], n)
		}
	}
	slices.Sort(g.phrases)
}

func compareChunkIDs(a, b string) int {
	fa, ia, okA := rank.ParseChunkID(a)
	fb, ib, okB := rank.ParseChunkID(b)
	if okA && okB {
		if c := cmp.Compare(fa, fb); c != 0 {
			return c
		}
		return cmp.Compare(ia, ib)
	}
	return strings.Compare(a, b)
}

// Search is the graph leg of a query: the nodes the question names (a
// one-word name as a whole word of it, a longer one as a phrase in it)
// seed the search, scored by the share of the question's words their name
// and description hold (at least 0.5); without any, the entities of the
// keyword leg's best chunks (keywordHits, best first) seed it at 0.5. The
// seeds expand hops steps along relationships either way, a neighbour
// scoring its parent's score times the edge's weight, over at most
// MaxGraphNodes nodes. It returns the chunks of the reached nodes, best
// node first, at most topK.
func (g *Graph) Search(query string, hops, topK int, keywordHits []string) []string {
	if g == nil || len(g.Nodes) == 0 || topK <= 0 {
		return nil
	}
	g.index()
	q := strings.ToLower(query)
	tokens := strings.Fields(q)
	var seeds []scoredNode
	seen := map[int]bool{}
	seed := func(n int, s float64) {
		if !seen[n] {
			seen[n] = true
			seeds = append(seeds, scoredNode{n, s})
		}
	}
	for _, t := range tokens {
		for _, n := range g.words[strings.TrimFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })] {
			seed(n, max(g.overlap(n, tokens), seedScore))
		}
	}
	for _, n := range g.phrases {
		if strings.Contains(q, strings.ToLower(g.Nodes[n].Name)) {
			seed(n, max(g.overlap(n, tokens), seedScore))
		}
	}
	if len(seeds) == 0 {
	hits:
		for _, id := range keywordHits {
			for _, n := range g.Chunks[id] {
				seed(n, seedScore)
				if len(seeds) >= topK {
					break hits
				}
			}
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	scores := g.expand(seeds, hops)
	var out []string
	picked := map[string]bool{}
	for _, sn := range scores {
		for _, id := range g.nodeChunks[sn.node] {
			if !picked[id] {
				picked[id] = true
				out = append(out, id)
				if len(out) >= topK {
					return out
				}
			}
		}
	}
	return out
}

type scoredNode struct {
	node  int
	score float64
}

// overlap is the share of the question's words in a node's name and
// description.
func (g *Graph) overlap(n int, tokens []string) float64 {
	if len(tokens) == 0 {
		return 0
	}
	text := strings.ToLower(g.Nodes[n].Name + " " + g.Nodes[n].Description)
	hit := 0
	for _, t := range tokens {
		if strings.Contains(text, t) {
			hit++
		}
	}
	return float64(hit) / float64(len(tokens))
}

// expand walks hops steps from the seeds, the best-scored nodes of each
// step first, and returns every reached node with its best score, best
// first (ties in the order reached).
func (g *Graph) expand(seeds []scoredNode, hops int) []scoredNode {
	best := make(map[int]int, len(seeds)) // node → index in reached
	reached := slices.Clone(seeds)
	for i, s := range reached {
		best[s.node] = i
	}
	frontier := slices.Clone(seeds)
	byScore := func(a, b scoredNode) int { return cmp.Compare(b.score, a.score) }
walk:
	for range hops {
		if len(reached) >= MaxGraphNodes {
			break
		}
		slices.SortStableFunc(frontier, byScore)
		var next []scoredNode
		for _, f := range frontier {
			for _, ei := range g.adj[f.node] {
				e := g.Edges[ei]
				nb := e.To
				if nb == f.node {
					nb = e.From
				}
				s := e.Weight * f.score
				if i, ok := best[nb]; ok {
					reached[i].score = max(reached[i].score, s)
				} else {
					best[nb] = len(reached)
					reached = append(reached, scoredNode{nb, s})
					next = append(next, scoredNode{nb, s})
				}
				if len(reached) >= MaxGraphNodes {
					break walk
				}
			}
		}
		if frontier = next; len(frontier) == 0 {
			break
		}
	}
	slices.SortStableFunc(reached, byScore)
	return reached
}

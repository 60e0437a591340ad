package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func extraction(t *testing.T, js string) *Extraction {
	t.Helper()
	x, err := ParseExtraction(js)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestGraphMergeDeduplicatesAndLinks(t *testing.T) {
	g := &Graph{}
	g.Merge("0-0", extraction(t, `{"entities":[{"name":"Python","type":"other"},{"name":"python","type":"technology"},{"name":"Guido","type":"person"}],
		"relationships":[{"from":"guido","to":"PYTHON","type":"created","weight":3},{"from":"Guido","to":"Nobody","type":"knows"}]}`))
	g.Merge("1-0", extraction(t, "```json\n{\"entities\":[{\"name\":\"PYTHON\",\"type\":\"TECHNOLOGY\",\"description\":\"a language\"}],\"relationships\":[{\"from\":\"Guido\",\"to\":\"Python\",\"type\":\"created\"}]}\n```"))
	if g.NodeCount() != 2 {
		t.Fatalf("nodes %+v, want Python and Guido once each", g.Nodes)
	}
	py := g.Nodes[0]
	if py.Type != "TECHNOLOGY" || py.Description != "a language" {
		t.Errorf("Python is %+v: a later mention fills the type and description", py)
	}
	if len(g.Edges) != 1 || g.Edges[0].Weight != 1 || g.Edges[0].From != 1 || g.Edges[0].To != 0 {
		t.Errorf("edges %+v: one created edge, weight clamped to 1, none to an unknown entity", g.Edges)
	}
	if !slices.Equal(g.Chunks["0-0"], []int{0, 1}) || !slices.Equal(g.Chunks["1-0"], []int{0}) {
		t.Errorf("chunks %v", g.Chunks)
	}
}

func TestGraphRemoveFilesDropsWhatOnlyTheyNamed(t *testing.T) {
	g := &Graph{}
	g.Merge("0-0", extraction(t, `{"entities":[{"name":"A"},{"name":"B"}],"relationships":[{"from":"A","to":"B","type":"r"}]}`))
	g.Merge("1-0", extraction(t, `{"entities":[{"name":"B"},{"name":"C"}],"relationships":[{"from":"B","to":"C","type":"r"}]}`))
	g.Merge("12-3", extraction(t, `{"entities":[{"name":"D"}]}`))
	g.RemoveFiles([]string{"0", "12"})
	var names []string
	for _, n := range g.Nodes {
		names = append(names, n.Name)
	}
	if !slices.Equal(names, []string{"B", "C"}) || len(g.Edges) != 1 || g.Edges[0] != (Relation{From: 0, To: 1, Type: "r", Weight: 1}) {
		t.Fatalf("after removing files 0 and 12: nodes %v edges %+v", names, g.Edges)
	}
	if len(g.Chunks) != 1 || !slices.Equal(g.Chunks["1-0"], []int{0, 1}) {
		t.Fatalf("chunks %v", g.Chunks)
	}
}

func TestGraphCapKeepsTheBestConnected(t *testing.T) {
	g := &Graph{}
	// hub is linked to every spoke; lone nodes have no edge.
	var ents, rels []string
	for i := range 5 {
		ents = append(ents, fmt.Sprintf(`{"name":"spoke%d"}`, i), fmt.Sprintf(`{"name":"lone%d"}`, i))
		rels = append(rels, fmt.Sprintf(`{"from":"hub","to":"spoke%d","type":"r"}`, i))
	}
	ents = append(ents, `{"name":"hub"}`)
	g.Merge("0-0", extraction(t, `{"entities":[`+strings.Join(ents, ",")+`],"relationships":[`+strings.Join(rels, ",")+`]}`))
	if !g.Cap(6) {
		t.Fatal("Cap(6) of 11 nodes dropped none")
	}
	var names []string
	for _, n := range g.Nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"hub", "spoke0", "spoke1", "spoke2", "spoke3", "spoke4"}) || len(g.Edges) != 5 {
		t.Fatalf("kept %v with %d edges", names, len(g.Edges))
	}
	if g.Cap(6) {
		t.Fatal("a graph within its cap was capped")
	}
}

func TestGraphSearch(t *testing.T) {
	g := &Graph{}
	g.Merge("0-0", extraction(t, `{"entities":[{"name":"Ada Lovelace","type":"PERSON"},{"name":"Analytical Engine"}],"relationships":[{"from":"Ada Lovelace","to":"Analytical Engine","type":"wrote_about","weight":0.8}]}`))
	g.Merge("1-0", extraction(t, `{"entities":[{"name":"Analytical Engine"},{"name":"Babbage"}],"relationships":[{"from":"Babbage","to":"Analytical Engine","type":"designed"}]}`))
	g.Merge("2-0", extraction(t, `{"entities":[{"name":"Go"},{"name":"Django"}]}`))
	for _, tt := range []struct {
		name, query string
		hops        int
		keyword     []string
		want        []string
	}{
		{"a phrase seeds, one hop reaches its neighbour's chunks", "What did Ada Lovelace write?", 1, nil, []string{"0-0", "1-0"}},
		{"zero hops: the seed's chunks only", "Who was Babbage?", 0, nil, []string{"1-0"}},
		{"a one-word name matches whole words only", "tell me about django", 1, nil, []string{"2-0"}},
		{"words inside others do not match", "going gogo", 1, nil, nil},
		{"without a named entity, the keyword hits seed", "engines of the past", 0, []string{"1-0"}, []string{"0-0", "1-0"}},
		{"punctuation around a name is ignored", "babbage?", 1, nil, []string{"0-0", "1-0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := g.Search(tt.query, tt.hops, 5, tt.keyword)
			slices.SortFunc(got, compareChunkIDs)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Search(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	if got := g.Search("Babbage", 1, 1, nil); len(got) != 1 {
		t.Fatalf("topK 1 gave %v", got)
	}
}

// originalGraph is a knowledge_graph as the original writes it: node 1 is
// a hole left by a removed node, and chunk keys are file<<32|index.
const originalGraph = `driver: yaml
embedding_model: fake:embed
chunk_size: 100
chunk_overlap: 0
top_k: 3
extractor_model: fake:gpt-4o-mini
graph_hops: 2
files: {}
knowledge_graph:
  graph:
    nodes:
    - name: Marie Curie
      entity_type: PERSON
      description: a physicist
    - name: Radium
      entity_type: CONCEPT
      description: null
    node_holes:
    - 1
    edge_property: Directed
    edges:
    - - 0
      - 2
      - relation_type: discovered
        weight: 0.5
    - null
  entity_index:
    marie curie: 0
    radium: 2
  document_entities:
    0: [0]
    4294967298: [0, 2]
`

func TestOriginalKnowledgeGraphLoadsAndRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.yaml")
	f, err := Parse(path, []byte(originalGraph))
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.Graph()
	if err != nil {
		t.Fatal(err)
	}
	want := &Graph{
		Nodes:  []Entity{{Name: "Marie Curie", Type: "PERSON", Description: "a physicist"}, {Name: "Radium", Type: "CONCEPT"}},
		Edges:  []Relation{{From: 0, To: 1, Type: "discovered", Weight: 0.5}},
		Chunks: map[string][]int{"0-0": {0}, "1-2": {0, 1}},
	}
	check := func(g *Graph) {
		t.Helper()
		if !slices.Equal(g.Nodes, want.Nodes) || !slices.Equal(g.Edges, want.Edges) || fmt.Sprint(g.Chunks) != fmt.Sprint(want.Chunks) {
			t.Fatalf("graph %+v, want %+v", g, want)
		}
	}
	check(g)
	if f.Hops() != 2 {
		t.Errorf("graph_hops %d", f.Hops())
	}
	if got := g.Search("what did marie curie find?", f.Hops(), 3, nil); !slices.Equal(got, []string{"0-0", "1-2"}) {
		t.Errorf("search %v", got)
	}
	// Written back (as the original's layout) and read again: the same.
	f.SetGraph(g)
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, s := range []string{"entity_index:", "marie curie: 0", "4294967298: [0, 1]", "edge_property: Directed", "relation_type: discovered", "weight: 0.5", "entity_type: PERSON"} {
		if !strings.Contains(string(data), s) {
			t.Errorf("the saved file lacks %q:\n%s", s, data)
		}
	}
	f2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := f2.Graph()
	if err != nil {
		t.Fatal(err)
	}
	check(g2)
	// And through the store's encoding.
	b, err := MarshalGraph(g2)
	if err != nil {
		t.Fatal(err)
	}
	g3, err := UnmarshalGraph(b)
	if err != nil {
		t.Fatal(err)
	}
	check(g3)
}

func TestBadKnowledgeGraphSaysWhere(t *testing.T) {
	bad := strings.Replace(originalGraph, "    - - 0\n      - 2\n", "    - - 0\n      - 7\n", 1)
	f, err := Parse("kb.yaml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Graph()
	var fe *FileError
	if !errors.As(err, &fe) || fe.Field != "knowledge_graph.graph.edges[0]" || fe.Line == 0 {
		t.Fatalf("error %v, want one naming knowledge_graph.graph.edges[0] and its line", err)
	}
}

func TestExtractionRetriesMalformedOnceAndSkipsBadChunks(t *testing.T) {
	var calls atomic.Int64
	var flaky atomic.Int64
	r := &RAG{Name: "kb", File: &File{ExtractorModel: "m", ExtractorPrompt: "no placeholder"}}
	r.Extract = func(_ context.Context, prompt string) (string, error) {
		calls.Add(1)
		switch {
		case !strings.Contains(prompt, "Passage:"):
			return "", errors.New("the built-in prompt was not used")
		case strings.Contains(prompt, "always bad"):
			return "sorry, I cannot", nil
		case strings.Contains(prompt, "fails"):
			return "", errors.New("model down")
		case strings.Contains(prompt, "flaky") && flaky.Add(1) == 1:
			return `{"entities": [`, nil
		}
		return `{"entities":[{"name":"X"}]}`, nil
	}
	chunks := []ragstore.Chunk{{ID: "0-0", Text: "good"}, {ID: "0-1", Text: "always bad"}, {ID: "0-2", Text: "fails"}, {ID: "0-3", Text: "flaky"}}
	var last int
	res, err := r.extractAll(context.Background(), chunks, func(done, _ int) { last = max(last, done) })
	if err != nil {
		t.Fatal(err)
	}
	if res.skipped != 2 || res.found[0] == nil || res.found[1] != nil || res.found[2] != nil || res.found[3] == nil || last != 4 {
		t.Fatalf("skipped %d, found %v, progress %d", res.skipped, res.found, last)
	}
	// Each malformed answer was asked again once; the failing call not.
	if n := calls.Load(); n != 6 {
		t.Fatalf("%d extractor calls, want 6 (one retry of each malformed answer only)", n)
	}
	if res.firstErr == nil || !strings.Contains(res.firstErr.Error(), "0-1") && !strings.Contains(res.firstErr.Error(), "0-2") {
		t.Fatalf("first error %v", res.firstErr)
	}
}

package rag

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/yamlerr"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// The knowledge_graph section of a RAG file is in the original's layout,
// so that a RAG built by either program loads in the other:
//
//	knowledge_graph:
//	  graph:                 # the nodes and edges
//	    nodes: [{name, entity_type, description}]
//	    node_holes: [index]  # slots left empty by removed nodes
//	    edge_property: Directed
//	    edges: [[from, to, {relation_type, weight}] or null]
//	  entity_index: {lower-case name: index}
//	  document_entities: {chunk key: [index]}
//
// Indexes count the holes; a chunk key is the chunk's file id times 2³²
// plus its index in the file.

// Graph returns the RAG file's knowledge graph (knowledge_graph), nil
// when it has none.
func (f *File) Graph() (*Graph, error) {
	if f.knowledgeGraph == nil {
		return nil, nil
	}
	d := &decoder{f: f}
	return d.graph(f.knowledgeGraph)
}

// SetGraph makes g the file's knowledge_graph (nil or empty: none), for
// the next Save.
func (f *File) SetGraph(g *Graph) {
	if g.NodeCount() == 0 && len(g.chunksOrNil()) == 0 {
		f.knowledgeGraph = nil
		return
	}
	f.knowledgeGraph = g.yamlNode()
}

func (g *Graph) chunksOrNil() map[string][]int {
	if g == nil {
		return nil
	}
	return g.Chunks
}

// HasGraph reports whether the file has a knowledge_graph section.
func (f *File) HasGraph() bool { return f.knowledgeGraph != nil }

func (d *decoder) graph(n *yaml.Node) (*Graph, error) {
	const field = "knowledge_graph"
	if n.Kind != yaml.MappingNode {
		return nil, d.fail(n, field, "must be a mapping with graph, entity_index and document_entities, not %s", yamlerr.Describe(n))
	}
	g := &Graph{Chunks: map[string][]int{}}
	var graphNode, docs *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "graph":
			graphNode = n.Content[i+1]
		case "document_entities":
			docs = n.Content[i+1]
		}
	}
	slot := map[int]int{} // the original's index → node
	if graphNode != nil && !isNull(graphNode) {
		if graphNode.Kind != yaml.MappingNode {
			return nil, d.fail(graphNode, field+".graph", "must be a mapping with nodes and edges, not %s", yamlerr.Describe(graphNode))
		}
		var nodes, holes, edges *yaml.Node
		for i := 0; i+1 < len(graphNode.Content); i += 2 {
			switch graphNode.Content[i].Value {
			case "nodes":
				nodes = graphNode.Content[i+1]
			case "node_holes":
				holes = graphNode.Content[i+1]
			case "edges":
				edges = graphNode.Content[i+1]
			}
		}
		hole := map[int]bool{}
		if holes != nil && holes.Kind == yaml.SequenceNode {
			for _, h := range holes.Content {
				v, err := d.count(h, field+".graph.node_holes")
				if err != nil {
					return nil, err
				}
				hole[v] = true
			}
		}
		if nodes != nil && nodes.Kind == yaml.SequenceNode {
			next := 0
			for i, e := range nodes.Content {
				for hole[next] {
					next++
				}
				ent, err := d.entity(e, fmt.Sprintf("%s.graph.nodes[%d]", field, i))
				if err != nil {
					return nil, err
				}
				slot[next] = len(g.Nodes)
				g.Nodes = append(g.Nodes, ent)
				next++
			}
		}
		if edges != nil && edges.Kind == yaml.SequenceNode {
			for i, e := range edges.Content {
				if isNull(e) {
					continue
				}
				where := fmt.Sprintf("%s.graph.edges[%d]", field, i)
				if e.Kind != yaml.SequenceNode || len(e.Content) != 3 {
					return nil, d.fail(e, where, "must be [from, to, {relation_type, weight}], not %s", yamlerr.Describe(e))
				}
				from, err := d.count(e.Content[0], where)
				if err != nil {
					return nil, err
				}
				to, err := d.count(e.Content[1], where)
				if err != nil {
					return nil, err
				}
				fn, ok1 := slot[from]
				tn, ok2 := slot[to]
				if !ok1 || !ok2 {
					return nil, d.fail(e, where, "names node %d or %d, which the graph does not have", from, to)
				}
				rel := Relation{From: fn, To: tn, Weight: 1}
				if m := resolve(e.Content[2]); m.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(m.Content); j += 2 {
						v := resolve(m.Content[j+1])
						switch m.Content[j].Value {
						case "relation_type":
							rel.Type = v.Value
						case "weight":
							w, err := strconv.ParseFloat(v.Value, 64)
							if err != nil {
								return nil, d.fail(v, where+".weight", "must be a number, not %s", yamlerr.Describe(v))
							}
							rel.Weight = min(max(w, 0), 1)
						}
					}
				}
				g.Edges = append(g.Edges, rel)
			}
		}
	}
	if docs != nil && docs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(docs.Content); i += 2 {
			k, v := docs.Content[i], resolve(docs.Content[i+1])
			key, err := strconv.ParseUint(k.Value, 10, 64)
			if err != nil {
				return nil, d.fail(k, field+".document_entities", "a chunk key must be a whole number, not %s", yamlerr.Describe(k))
			}
			id := rank.ChunkID(int(key>>32), int(key&(1<<32-1)))
			if v.Kind != yaml.SequenceNode {
				continue
			}
			for _, e := range v.Content {
				raw, err := d.count(e, field+".document_entities")
				if err != nil {
					return nil, err
				}
				if n, ok := slot[raw]; ok && !slices.Contains(g.Chunks[id], n) {
					g.Chunks[id] = append(g.Chunks[id], n)
				}
			}
		}
	}
	return g, nil
}

func (d *decoder) entity(n *yaml.Node, where string) (Entity, error) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return Entity{}, d.fail(n, where, "must be a mapping with name, entity_type and description, not %s", yamlerr.Describe(n))
	}
	var e Entity
	var err error
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "name":
			e.Name, err = d.str(n.Content[i+1], where+".name")
		case "entity_type":
			e.Type, err = d.str(n.Content[i+1], where+".entity_type")
		case "description":
			e.Description, err = d.str(n.Content[i+1], where+".description")
		}
		if err != nil {
			return Entity{}, err
		}
	}
	return e, nil
}

// yamlNode is the graph in the original's layout.
func (g *Graph) yamlNode() *yaml.Node {
	mapping := func(kv ...any) *yaml.Node {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := 0; i+1 < len(kv); i += 2 {
			m.Content = append(m.Content, strNode(kv[i].(string)), kv[i+1].(*yaml.Node))
		}
		return m
	}
	seq := func() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} }
	nodes := seq()
	for _, n := range g.Nodes {
		nodes.Content = append(nodes.Content, mapping("name", strNode(n.Name), "entity_type", strNode(n.Type), "description", optStrNode(n.Description)))
	}
	edges := seq()
	for _, e := range g.Edges {
		wv := strconv.FormatFloat(e.Weight, 'f', -1, 64)
		if !strings.ContainsAny(wv, ".e") {
			wv += ".0"
		}
		w := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: wv}
		t := seq()
		t.Style = yaml.FlowStyle
		t.Content = []*yaml.Node{intNode(e.From), intNode(e.To), mapping("relation_type", strNode(e.Type), "weight", w)}
		edges.Content = append(edges.Content, t)
	}
	index := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	seen := map[string]bool{}
	for i, n := range g.Nodes {
		key := strings.ToLower(n.Name)
		if !seen[key] {
			seen[key] = true
			index.Content = append(index.Content, strNode(key), intNode(i))
		}
	}
	docs := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	ids := make([]string, 0, len(g.Chunks))
	for id := range g.Chunks {
		if _, _, ok := rank.ParseChunkID(id); ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return compareChunkIDs(ids[i], ids[j]) < 0 })
	for _, id := range ids {
		f, i, _ := rank.ParseChunkID(id)
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(uint64(f)<<32|uint64(i), 10)}
		list := seq()
		list.Style = yaml.FlowStyle
		for _, n := range g.Chunks[id] {
			list.Content = append(list.Content, intNode(n))
		}
		docs.Content = append(docs.Content, key, list)
	}
	holes := seq()
	holes.Style = yaml.FlowStyle
	return mapping(
		"graph", mapping("nodes", nodes, "node_holes", holes, "edge_property", strNode("Directed"), "edges", edges),
		"entity_index", index,
		"document_entities", docs,
	)
}

// graphJSON is how a store that keeps the graph holds it: opaque bytes to
// the store, this layout to the kernel.
type graphJSON struct {
	Nodes []Entity         `json:"nodes"`
	Edges []Relation       `json:"edges"`
	Chunk map[string][]int `json:"chunks"`
}

// MarshalGraph encodes a graph for a store that keeps it
// (ragstore.CapGraph).
func MarshalGraph(g *Graph) ([]byte, error) {
	if g == nil {
		g = &Graph{}
	}
	return json.Marshal(graphJSON{Nodes: g.Nodes, Edges: g.Edges, Chunk: g.Chunks})
}

// UnmarshalGraph decodes what MarshalGraph made; empty data is no graph.
func UnmarshalGraph(data []byte) (*Graph, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var j graphJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("the knowledge graph the store holds is not readable: %w", err)
	}
	g := &Graph{Nodes: j.Nodes, Edges: j.Edges, Chunks: j.Chunk}
	if g.Chunks == nil {
		g.Chunks = map[string][]int{}
	}
	n := len(g.Nodes)
	valid := func(i int) bool { return i >= 0 && i < n }
	g.Edges = slices.DeleteFunc(g.Edges, func(e Relation) bool { return !valid(e.From) || !valid(e.To) })
	for id, ns := range g.Chunks {
		g.Chunks[id] = slices.DeleteFunc(ns, func(i int) bool { return !valid(i) })
	}
	return g, nil
}

package rag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// Extractor asks the RAG's extractor model (a chat model) one prompt and
// returns its answer's text.
type Extractor func(ctx context.Context, prompt string) (string, error)

// PlaceholderChunk is where an extractor_prompt takes the chunk's text.
const PlaceholderChunk = "__CHUNK__"

// DefaultExtractorPrompt is the extraction prompt of a RAG whose
// extractor_prompt is unset (or lacks __CHUNK__).
const DefaultExtractorPrompt = `You build a knowledge graph from a document, one passage at a time.
List the named things the passage below mentions (people, organizations,
places, products, technologies, concepts, events) and how the passage says
they relate to each other.

Answer with one JSON object and nothing else, no code fence:
{"entities": [{"name": "…", "type": "PERSON|ORGANIZATION|LOCATION|TECHNOLOGY|CONCEPT|EVENT|OTHER", "description": "one short sentence"}],
 "relationships": [{"from": "entity name", "to": "entity name", "type": "short_verb_phrase", "weight": 1.0}]}

- Spell each name as the passage does, and use the same spelling in relationships.
- weight is how clearly the passage states the relationship, from 0.0 to 1.0.
- Leave out what the passage does not say or clearly imply.

Passage:
__CHUNK__`

// ExtractConcurrency is how many extraction calls are in flight at once
// while a RAG is indexed: each is mostly waiting for the model.
var ExtractConcurrency = 8

// ExtractorPromptOrDefault is the prompt the file's extractor uses: its
// extractor_prompt when that has __CHUNK__, else the built-in one.
func (f *File) ExtractorPromptOrDefault() string {
	if strings.Contains(f.ExtractorPrompt, PlaceholderChunk) {
		return f.ExtractorPrompt
	}
	return DefaultExtractorPrompt
}

// Hops is the file's graph_hops, 1 when unset.
func (f *File) Hops() int {
	if f.GraphHops == nil {
		return 1
	}
	return *f.GraphHops
}

// ParseExtraction reads an extractor's answer: a JSON object with entities
// and relationships, possibly in a ``` fence or with words around it.
func ParseExtraction(reply string) (*Extraction, error) {
	text := strings.TrimSpace(reply)
	if strings.HasPrefix(text, "```") {
		if nl := strings.IndexByte(text, '\n'); nl >= 0 {
			text = text[nl+1:]
		}
		if end := strings.LastIndex(text, "```"); end >= 0 {
			text = text[:end]
		}
	}
	start, end := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if start < 0 || end < start {
		return nil, errors.New("the answer holds no JSON object")
	}
	var x Extraction
	if err := json.Unmarshal([]byte(text[start:end+1]), &x); err != nil {
		return nil, fmt.Errorf("the answer is not the JSON asked for: %w", err)
	}
	return &x, nil
}

// extractResult is what extraction made of a batch of chunks.
type extractResult struct {
	// found[i] is chunk i's extraction, nil when it was skipped.
	found   []*Extraction
	skipped int
	// firstErr is why the first skipped chunk was skipped.
	firstErr error
}

// extractAll sends each chunk to the extractor, ExtractConcurrency at a
// time. An answer that is not the JSON asked for is asked once more; a
// chunk whose extraction still fails is skipped (counted, not an error),
// so that one bad chunk never stops indexing. Only cancelling ctx stops
// it. progress is told of every finished chunk.
func (r *RAG) extractAll(ctx context.Context, chunks []ragstore.Chunk, progress func(done, skipped int)) (*extractResult, error) {
	res := &extractResult{found: make([]*Extraction, len(chunks))}
	prompt := r.File.ExtractorPromptOrDefault()
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(min(ExtractConcurrency, len(chunks)), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				x, err := r.extractOne(ctx, strings.ReplaceAll(prompt, PlaceholderChunk, chunks[i].Text))
				mu.Lock()
				done++
				if err != nil {
					res.skipped++
					if res.firstErr == nil {
						res.firstErr = fmt.Errorf("chunk %s of %s: %w", chunks[i].ID, chunks[i].Metadata["source"], err)
					}
				}
				res.found[i] = x
				if progress != nil {
					progress(done, res.skipped)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range chunks {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// extractOne asks the extractor about one chunk, twice when the first
// answer is not the JSON asked for.
func (r *RAG) extractOne(ctx context.Context, prompt string) (*Extraction, error) {
	var err error
	for range 2 {
		var reply string
		if reply, err = r.Extract(ctx, prompt); err != nil {
			return nil, err
		}
		var x *Extraction
		if x, err = ParseExtraction(reply); err == nil {
			return x, nil
		}
	}
	return nil, err
}

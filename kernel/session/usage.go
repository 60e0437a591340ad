package session

import (
	"errors"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"
)

// usageKey is the key of an assistant message that records what its turn
// used. The original ignores keys it does not know in a message, so its
// loader still reads a file that has them.
const usageKey = "usage"

// Usage is what one turn used: the tokens of every model call it made
// (a turn with tool calls makes several) and their price.
type Usage struct {
	// Model is the model id (client:model) the turn asked.
	Model string
	// InputTokens and OutputTokens count every token; CachedTokens is the
	// part of the input read from the provider's cache, ReasoningTokens
	// the part of the output spent thinking.
	InputTokens, OutputTokens, CachedTokens, ReasoningTokens int64
	// ContextTokens is the last call's input and output: how much of the
	// model's window the conversation filled at the end of the turn.
	ContextTokens int64
	// Cost is the price in USD, from the catalog's prices; nil when the
	// model has no known price.
	Cost *float64
}

// RecordUsage records what the last turn used, on its last message (the
// reply Append or Checkpoint just recorded).
func (s *Session) RecordUsage(u Usage) error {
	n := len(s.messages)
	if n == 0 || s.messages[n-1].role != "assistant" {
		return errors.New("record usage: the session's last message is no reply")
	}
	// Entries are shared with forks: change a copy, in a new array.
	e := s.messages[n-1]
	e.extra = append(withoutKey(e.extra, usageKey), field{usageKey, usageNode(u)})
	s.messages = append(s.messages[:n-1:n-1], e)
	s.dirty = true
	return nil
}

// ReplaceLastUsage replaces the usage the last turn recorded, wherever
// its reply now is (a compression may have moved it out of the live
// messages): the calls made after a turn for the session (its title, a
// summary) are added to that turn's usage this way.
func (s *Session) ReplaceLastUsage(u Usage) error {
	for _, list := range []*[]entry{&s.messages, &s.compressed} {
		l := *list
		for i := len(l) - 1; i >= 0; i-- {
			if !slices.ContainsFunc(l[i].extra, func(f field) bool { return f.key == usageKey }) {
				continue
			}
			// Entries are shared with forks: change a copy, in a new array.
			e := l[i]
			e.extra = append(withoutKey(e.extra, usageKey), field{usageKey, usageNode(u)})
			*list = slices.Concat(l[:i:i], []entry{e}, l[i+1:])
			s.dirty = true
			return nil
		}
	}
	return errors.New("replace usage: no turn recorded its usage")
}

// Usage returns what each turn recorded, oldest first, those compression
// summarised included.
func (s *Session) Usage() []Usage {
	var out []Usage
	for _, list := range [][]entry{s.compressed, s.messages} {
		for i := range list {
			for _, f := range list[i].extra {
				if f.key == usageKey {
					if u, ok := usageOf(f.val); ok {
						out = append(out, u)
					}
				}
			}
		}
	}
	return out
}

// LastUsage is the usage the last message recorded, if the last message
// is a reply that recorded one (nothing was said since).
func (s *Session) LastUsage() (Usage, bool) {
	n := len(s.messages)
	if n == 0 {
		return Usage{}, false
	}
	for _, f := range s.messages[n-1].extra {
		if f.key == usageKey {
			return usageOf(f.val)
		}
	}
	return Usage{}, false
}

func withoutKey(fs []field, key string) []field {
	out := make([]field, 0, len(fs)+1)
	for _, f := range fs {
		if f.key != key {
			out = append(out, f)
		}
	}
	return out
}

func usageNode(u Usage) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k, tag, v string) {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v})
	}
	if u.Model != "" {
		add("model", "!!str", u.Model)
	}
	for _, kv := range []struct {
		k string
		v int64
	}{{"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens}, {"cached_tokens", u.CachedTokens},
		{"reasoning_tokens", u.ReasoningTokens}, {"context_tokens", u.ContextTokens}} {
		add(kv.k, "!!int", strconv.FormatInt(kv.v, 10))
	}
	if u.Cost != nil {
		add("cost", "!!float", strconv.FormatFloat(*u.Cost, 'f', -1, 64))
	}
	return n
}

// usageOf reads a usage mapping; a value it cannot read (edited by hand
// into something else) is skipped.
func usageOf(n *yaml.Node) (Usage, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		return Usage{}, false
	}
	var u Usage
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		num := func() int64 { x, _ := strconv.ParseInt(v.Value, 10, 64); return x }
		switch k {
		case "model":
			u.Model = v.Value
		case "input_tokens":
			u.InputTokens = num()
		case "output_tokens":
			u.OutputTokens = num()
		case "cached_tokens":
			u.CachedTokens = num()
		case "reasoning_tokens":
			u.ReasoningTokens = num()
		case "context_tokens":
			u.ContextTokens = num()
		case "cost":
			if c, err := strconv.ParseFloat(v.Value, 64); err == nil && c >= 0 {
				u.Cost = &c
			}
		}
	}
	return u, true
}

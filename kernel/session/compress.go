package session

import (
	"slices"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// DefaultSummarizationPrompt asks the model for the summary that replaces
// a long conversation (config key summarization_prompt).
const DefaultSummarizationPrompt = `Write a summary of our conversation so far that can stand in for it from now on. ` +
	`Keep everything a later answer may depend on: what I am trying to achieve, the facts and decisions we settled, ` +
	`names, numbers, file paths, commands and code that matter, what was tried and how it turned out, and the questions still open. ` +
	`Drop greetings, repetition and anything already superseded. Write compact notes, not a letter.`

// DefaultSummaryContextPrompt introduces the summary in the rebuilt system
// message (config key summary_context_prompt). The summary follows it
// directly.
const DefaultSummaryContextPrompt = "The earlier part of this conversation was condensed into the notes below. " +
	"Treat them as what was said before, and go on from there.\n\n"

// Token estimate. Sessions are compressed by an estimate, not by the
// model's tokenizer, which the kernel does not have: about four bytes of
// UTF-8 text per token (English prose runs near 4 characters per token;
// text in other scripts has more bytes per character and usually more
// tokens per character too), plus a few tokens per message for its role
// and framing, and a flat amount per image, whatever the size of its data.
const (
	bytesPerToken      = 4
	tokensPerMessage   = 4
	tokensPerImage     = 1000
	tokensPerToolRound = 8
)

// Tokens estimates the size of the visible conversation in tokens.
func (s *Session) Tokens() int { return estimateTokens(s.messages) }

func estimateTokens(entries []entry) int {
	bytes, tokens := 0, 0
	thinking := func(blocks []thinkingBlock) {
		for _, b := range blocks {
			bytes += len(b.thinking) + len(b.data)
		}
	}
	for i := range entries {
		e := &entries[i]
		tokens += tokensPerMessage
		bytes += len(e.text)
		thinking(e.thinking)
		for _, p := range e.parts {
			if p.typ == "image_url" {
				tokens += tokensPerImage
			}
			bytes += len(p.text)
		}
		if e.calls != nil {
			bytes += len(e.calls.text)
			for _, r := range e.calls.results {
				tokens += tokensPerToolRound
				bytes += len(r.call.name) + len(r.call.id) + len(r.call.argsText) + len(r.outputText)
				if r.text != nil {
					bytes += len(*r.text)
				}
				thinking(r.thinking)
			}
		}
	}
	return tokens + (bytes+bytesPerToken-1)/bytesPerToken
}

// NeedsCompression reports whether the visible conversation is over the
// compression threshold: the session's compression_threshold when it sets
// one, else threshold (the global setting). A threshold below 1 turns
// compression off.
func (s *Session) NeedsCompression(threshold int64) bool {
	if s.settings.CompressionThreshold != nil {
		threshold = *s.settings.CompressionThreshold
	}
	return threshold >= 1 && int64(s.Tokens()) > threshold
}

// SummaryRequest is what to send the model to summarize the session: the
// conversation, then summarizationPrompt (DefaultSummarizationPrompt when
// empty) as a message of the user's. The kernel sends it with the
// session's usual tools and model.
func (s *Session) SummaryRequest(summarizationPrompt string) []provider.Message {
	if summarizationPrompt == "" {
		summarizationPrompt = DefaultSummarizationPrompt
	}
	return append(s.Messages(), provider.TextMessage(provider.RoleUser, summarizationPrompt))
}

// Compress replaces the conversation with its summary (`.compress
// session`, and automatically past the threshold). All but the last
// keepLast messages move to compressed_messages; the conversation becomes
// one system message, the old system prompt, a blank line,
// summaryContextPrompt (DefaultSummaryContextPrompt when empty) and the
// summary, and then the open items of the todo list, followed by the kept
// messages. The todo list itself is kept as it is.
func (s *Session) Compress(summary string, keepLast int, summaryContextPrompt string) {
	if summaryContextPrompt == "" {
		summaryContextPrompt = DefaultSummaryContextPrompt
	}
	prompt := summaryContextPrompt + summary
	if open := s.todos.RenderOpen(); open != "" {
		prompt += "\n\n" + openTodosPrompt + open
	}
	if len(s.messages) > 0 && s.messages[0].role == provider.RoleSystem {
		if system := entryText(&s.messages[0]); system != "" {
			prompt = system + "\n\n" + prompt
		}
	}
	cut := len(s.messages)
	if keepLast > 0 && keepLast < len(s.messages) {
		cut = len(s.messages) - keepLast
	}
	kept := s.messages[cut:]
	s.compressed = slices.Concat(s.compressed, s.messages[:cut])
	s.messages = append([]entry{{role: provider.RoleSystem, text: prompt}}, kept...)
	s.dirty = true
	s.base.rewrote = true
}

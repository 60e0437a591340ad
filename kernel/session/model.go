package session

import "gopkg.in/yaml.v3"

// The file model: a session's messages as its file holds them. A Session
// keeps its history in this form and converts to the kernel's messages on
// demand, so that what it cannot map (fields a newer or older program
// wrote, content parts of unknown types) is written back unchanged.
//
// Entries are never changed once made: a fork shares them with its parent.

// field is a mapping key this package does not know, with its value as
// read.
type field struct {
	key string
	val *yaml.Node
}

// contentKind is the form of a message's content.
type contentKind uint8

const (
	textContent  contentKind = iota // a string
	partsContent                    // a list of text and image parts
	callsContent                    // tool calls and their results
)

// entry is one message of a session file: {role, content}.
type entry struct {
	role  string
	kind  contentKind
	text  string
	parts []part
	calls *toolCalls
	// thinking is the reasoning of an assistant message without tool
	// calls. The original has no place for it; it is kept under the
	// message's own `thinking` key, which the original ignores.
	thinking []thinkingBlock
	extra    []field
}

// part is one item of a list content.
type part struct {
	typ      string // "text", "image_url", or a type this package does not know
	text     string
	url      string
	urlExtra []field    // unknown keys inside image_url
	raw      *yaml.Node // the whole item, for a type this package does not know
	extra    []field
}

// toolCalls is the content of an entry that records tool calls: every
// round of one turn, each call with its result.
type toolCalls struct {
	results []toolResult
	// text is the first round's narration.
	text string
	// sequence says the results span several rounds (always true in files
	// this package writes).
	sequence bool
	extra    []field
}

// toolResult is one call and its output. The first result of each round
// after the first carries that round's narration (text) and the round's
// thinking blocks.
type toolResult struct {
	call toolCall
	// output is the result as a JSON value; outputText is its message text.
	output     *yaml.Node
	outputText string
	text       *string
	thinking   []thinkingBlock
	// isError is written as `is_error: true`, a key the original ignores,
	// so that an error result stays one.
	isError bool
	extra   []field
}

type toolCall struct {
	name string
	// args is the arguments as a JSON value; argsText is its message text.
	args     *yaml.Node
	argsText string
	id       string // "" is written as null
	// signature is the provider's opaque data for the call (Gemini's thought
	// signature), written as thought_signature.
	signature string
	extra     []field
}

// thinkingBlock is {type: thinking, thinking, signature} or
// {type: redacted_thinking, data}, the API's own shape.
type thinkingBlock struct {
	typ       string
	thinking  string
	signature string
	data      string
	raw       *yaml.Node // a block of a type this package does not know
	extra     []field
}

const (
	typeThinking = "thinking"
	typeRedacted = "redacted_thinking"
)

// dataURL is one entry of data_urls: an image's hash and the file it came
// from, so that the REPL can show the path instead of the data.
type dataURL struct {
	sha, path string
}

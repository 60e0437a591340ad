package session

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// benchWords make up the benchmark's texts: prose, code, and the
// characters that make YAML quote (colons, hashes, quotes, brackets).
var benchWords = strings.Fields(`the a session model reply tool file line value error return func main() ` +
	`if err != nil { } [x] key: "quoted" 'single' #hash - * 42 3.14 true null ` +
	"`code` path/to/file.go émoji→ 日本語 x:y a,b")

// benchText is a text of about n bytes, with line breaks now and then.
func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(benchWords[r.IntN(len(benchWords))])
		switch r.IntN(14) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("\n\n")
		default:
			b.WriteString(" ")
		}
	}
	return strings.TrimSpace(b.String())
}

// benchMessages is a conversation of n session messages (file entries):
// a long system prompt, then turns of mixed lengths; one turn in six
// calls one to three tools (thinking, narration, JSON and text outputs).
func benchMessages(n int) []provider.Message {
	r := rand.New(rand.NewPCG(1, 2))
	msgs := []provider.Message{provider.TextMessage(provider.RoleSystem, benchText(r, 1500))}
	entries := 1
	for turn := 0; entries < n; turn++ {
		msgs = append(msgs, provider.TextMessage(provider.RoleUser, benchText(r, 20+r.IntN(800))))
		entries++
		if entries == n {
			break
		}
		if turn%6 == 5 && entries+2 <= n {
			asst := provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Reasoning: &provider.Reasoning{Text: benchText(r, 200+r.IntN(600)), Signature: "EqQBCkgIARABGAIiQL" + fmt.Sprint(turn)}},
				{Text: benchText(r, 50+r.IntN(150))},
			}}
			tool := provider.Message{Role: provider.RoleTool}
			for k := 0; k < 1+r.IntN(3); k++ {
				id := fmt.Sprintf("toolu_%d_%d", turn, k)
				asst.Parts = append(asst.Parts, provider.Part{ToolCall: &provider.ToolCall{
					ID: id, Name: "fs_cat", Arguments: fmt.Sprintf(`{"path":"src/file%d.go","lines":%d}`, k, r.IntN(500)),
				}})
				out := benchText(r, 100+r.IntN(3000))
				if k%2 == 1 {
					out = fmt.Sprintf(`{"status":"ok","bytes":%d,"text":%q}`, r.IntN(1e6), benchText(r, 200))
				}
				tool.Parts = append(tool.Parts, provider.Part{ToolResult: &provider.ToolResult{CallID: id, Name: "fs_cat", Content: out}})
			}
			msgs = append(msgs, asst, tool)
			entries++
		}
		msgs = append(msgs, provider.TextMessage(provider.RoleAssistant, benchText(r, 20+r.IntN(2500))))
		entries++
	}
	return msgs
}

func benchSession(b *testing.B) (*Store, *Session) {
	st := &Store{Dir: b.TempDir()}
	s, err := st.New("bench", Settings{Model: "openai:gpt-4o"})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Append(benchMessages(1000)...); err != nil {
		b.Fatal(err)
	}
	if len(s.messages) != 1000 {
		b.Fatalf("%d messages, want 1000", len(s.messages))
	}
	if err := s.Save(); err != nil {
		b.Fatal(err)
	}
	return st, s
}

// BenchmarkLoad1000 reads a session of 1,000 messages from its file.
func BenchmarkLoad1000(b *testing.B) {
	st, s := benchSession(b)
	b.SetBytes(int64(len(s.Encode())))
	for b.Loop() {
		if _, err := st.Load("bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSave1000 writes a session of 1,000 messages to its file
// (atomically, synced).
func BenchmarkSave1000(b *testing.B) {
	_, s := benchSession(b)
	b.SetBytes(int64(len(s.Encode())))
	for b.Loop() {
		if err := s.Save(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode1000 is BenchmarkSave1000 without the file system.
func BenchmarkEncode1000(b *testing.B) {
	_, s := benchSession(b)
	b.SetBytes(int64(len(s.Encode())))
	for b.Loop() {
		s.Encode()
	}
}

// BenchmarkDecode1000 is BenchmarkLoad1000 without the file system.
func BenchmarkDecode1000(b *testing.B) {
	_, s := benchSession(b)
	data := s.Encode()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := decode("bench.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessages1000 converts 1,000 messages for a request.
func BenchmarkMessages1000(b *testing.B) {
	_, s := benchSession(b)
	for b.Loop() {
		s.Messages()
	}
}

// Command fakellm runs one of Coyote's fake LLM servers (package
// internal/fakellm) for manual runs and benchmarks: the OpenAI API (chat
// completions, embeddings, /rerank; the default), the Anthropic Messages API
// (-api anthropic) or the Gemini API (-api gemini). It prints the base URL
// as the only line on stdout, logs to stderr, and serves until SIGINT or
// SIGTERM:
//
//	go run ./cmd/fakellm -chunks 2000 -delay 0
//	go run ./cmd/fakellm -text "Hi there" -delay 50ms -api-key sk-test
//	go run ./cmd/fakellm -status 429
//	go run ./cmd/fakellm -embed-dims 1024
//	go run ./cmd/fakellm -api anthropic -reasoning "Thinking it over."
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

const defaultText = "Coyote asked, and the fake server answers: this reply is streamed " +
	"word by word so that you can watch the client render it."

func main() {
	log.SetFlags(0)
	log.SetPrefix("fakellm: ")
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	text := flag.String("text", defaultText, "text of every reply")
	chunks := flag.Int("chunks", 0, "content deltas per reply (0: one per word)")
	delay := flag.Duration("delay", 20*time.Millisecond, "pause between chunks")
	reasoning := flag.String("reasoning", "", "reasoning sent before the text")
	apiKey := flag.String("api-key", "", "require this bearer key")
	status := flag.Int("status", 0, "answer every chat request with this HTTP error status (>= 400)")
	embedDims := flag.Int("embed-dims", fakellm.DefaultEmbedDims, "length of the vectors of an embeddings request that does not ask for one")
	verbose := flag.Bool("v", false, "log every request")
	api := flag.String("api", "openai", "which API to fake: openai, anthropic or gemini")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *status != 0 && *status < 400 {
		return fmt.Errorf("-status must be 400 or more, not %d", *status)
	}
	if *embedDims < 1 || *embedDims > 1<<16 {
		return fmt.Errorf("-embed-dims must be between 1 and 65536, not %d", *embedDims)
	}

	reply := fakellm.Reply{Text: *text, Chunks: *chunks, Delay: *delay, Reasoning: *reasoning, Status: *status}
	respond := func(r *fakellm.ChatRequest) fakellm.Reply {
		if *verbose {
			log.Printf("chat: model %q, %d messages, stream %v", r.Model, len(r.Messages), r.Stream)
		}
		return reply
	}
	var handler http.Handler
	path, what := "/v1", "the OpenAI API (chat, embeddings, rerank)"
	switch *api {
	case "openai":
		handler = openAI(*apiKey, *embedDims, *verbose, respond)
	case "anthropic":
		handler = (&fakellm.Anthropic{APIKey: *apiKey, Respond: respond}).Handler()
		what = "the Anthropic Messages API"
	case "gemini":
		handler = (&fakellm.Gemini{APIKey: *apiKey, EmbedDims: *embedDims, Respond: respond}).Handler()
		path, what = "/v1beta", "the Gemini API (chat, embeddings)"
	default:
		return fmt.Errorf("-api must be openai, anthropic or gemini, not %q", *api)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Streams in progress end with the server.
	streams, cancelStreams := context.WithCancel(context.Background())
	defer cancelStreams()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return streams },
		ErrorLog:          log.Default(),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	fmt.Printf("http://%s%s\n", ln.Addr(), path)
	log.Printf("serving %s on %s (Ctrl-C stops)", what, ln.Addr())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Print("shutting down")
	cancelStreams()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openAI is the fake OpenAI API with logging of embeddings and reranking.
func openAI(key string, dims int, verbose bool, respond func(*fakellm.ChatRequest) fakellm.Reply) http.Handler {
	f := &fakellm.OpenAI{
		APIKey:    key,
		EmbedDims: dims,
		Respond:   respond,
		RespondEmbed: func(r *fakellm.EmbedCall) fakellm.Reply {
			if verbose {
				log.Printf("embeddings: model %q, %d inputs", r.Model, len(r.Inputs))
			}
			return fakellm.Reply{}
		},
		RespondRerank: func(r *fakellm.RerankCall) fakellm.Reply {
			if verbose {
				log.Printf("rerank: model %q, %d documents, top %d", r.Model, len(r.Documents), r.TopN)
			}
			return fakellm.Reply{}
		},
	}
	return f.Handler()
}

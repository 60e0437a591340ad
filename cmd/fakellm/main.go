// Command fakellm runs Coyote's fake OpenAI-compatible server (package
// internal/fakellm) for manual runs and benchmarks: chat completions,
// embeddings and /rerank. It prints the base URL, ending in /v1, as the
// only line on stdout, logs to stderr, and serves until SIGINT or SIGTERM:
//
//	go run ./cmd/fakellm -chunks 2000 -delay 0
//	go run ./cmd/fakellm -text "Hi there" -delay 50ms -api-key sk-test
//	go run ./cmd/fakellm -status 429
//	go run ./cmd/fakellm -embed-dims 1024
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
	f := &fakellm.OpenAI{
		APIKey:    *apiKey,
		EmbedDims: *embedDims,
		Respond: func(r *fakellm.ChatRequest) fakellm.Reply {
			if *verbose {
				log.Printf("chat: model %q, %d messages, stream %v", r.Model, len(r.Messages), r.Stream)
			}
			return reply
		},
		RespondEmbed: func(r *fakellm.EmbedCall) fakellm.Reply {
			if *verbose {
				log.Printf("embeddings: model %q, %d inputs", r.Model, len(r.Inputs))
			}
			return fakellm.Reply{}
		},
		RespondRerank: func(r *fakellm.RerankCall) fakellm.Reply {
			if *verbose {
				log.Printf("rerank: model %q, %d documents, top %d", r.Model, len(r.Documents), r.TopN)
			}
			return fakellm.Reply{}
		},
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
		Handler:           f.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return streams },
		ErrorLog:          log.Default(),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	fmt.Printf("http://%s/v1\n", ln.Addr())
	log.Printf("serving the OpenAI API (chat, embeddings, rerank) on %s (Ctrl-C stops)", ln.Addr())

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

// Command acmefake serves the fake Acme API on a loopback port for
// end-to-end tests: it prints its URL on the first line of standard
// output, answers every chat with the reply of ACMEFAKE_TEXT (or echoes
// the question, with the system prompt, when unset), and stops when its
// standard input closes.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"example.com/coyote-thirdparty/acme/acmefake"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fake := &acmefake.Server{APIKey: os.Getenv("ACMEFAKE_KEY"), Respond: func(r *acmefake.Request) acmefake.Reply {
		if text := os.Getenv("ACMEFAKE_TEXT"); text != "" {
			return acmefake.Reply{Text: text}
		}
		var all []string
		for _, m := range r.Messages {
			all = append(all, m.Content)
		}
		return acmefake.Reply{Text: "acme heard: " + strings.Join(all, " | ")}
	}}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	_ = http.Serve(ln, fake)
}

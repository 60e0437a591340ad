// Package sdk is the public toolkit for writing Coyote plugins.
//
// Coyote is a small kernel (the coyote binary) plus plugins: separate
// programs that the kernel starts when it first needs them and talks to over
// gRPC on a local socket. LLM providers, RAG stores, the MCP bridge and the
// sandbox launcher are all plugins, and a third party can ship one as a
// single binary without touching the kernel.
//
// # Writing a plugin
//
// A plugin implements the interface of its kind (for an LLM provider,
// [github.com/coyote-cli/coyote/sdk/provider.Provider]) and hands it to
// [Serve] from its main function:
//
//	func main() {
//		sdk.Serve(sdk.Info{Name: "echo", Version: "0.1.0"}, provider.Plugin(&echo{}))
//	}
//
// Build it as coyote-<kind>-<name> (for example coyote-provider-echo) and
// put it in a plugin directory (see `coyote plugins`). The kernel discovers
// it by file name alone and launches it lazily.
//
// # What Serve does for you
//
//   - The handshake with the kernel (go-plugin, protocol [ProtocolVersion]).
//     Running the binary by hand prints a short explanation instead.
//   - Logging: [Logger] writes structured lines to stderr, which the kernel
//     copies into its log file. Never write to stdout: before the handshake it
//     breaks the protocol, after it the output is discarded.
//   - The Describe call, from [Info] plus what each served kind reports.
//   - Errors: return (or wrap with %w) one of the sentinels in this package,
//     such as [ErrUnauthenticated]; the kernel sees the same sentinel with
//     errors.Is on its side of the wire.
//   - Exiting when the kernel goes away, even if it was killed.
//
// Plugins never read standard input: it belongs to the kernel.
//
// # Packages
//
// The contracts: provider (LLM providers), ragstore (RAG stores), mcpbridge
// (the MCP bridge). The building blocks Coyote's own plugins use, public so
// that a third party's get them too: httpkit (an HTTP API's client,
// errors with Retry-After, server-sent events), jsonscan (fast embedding
// decoding), fsx (crash-safe file writes), redact (known secrets hidden
// in errors and logs), ragstore/rank (the kernel's tokenizer, BM25 and
// chunk id order), ragstore/vecindex (exact in-memory vector search) and
// ragstore/ragfile (a RAG file's sections).
// docs/plugins.md in Coyote's repository walks through writing a provider
// and a store.
//
// # Testing
//
// Package [github.com/coyote-cli/coyote/sdk/plugintest] serves an
// implementation over real gRPC inside one test process. The conformance
// suites, provider/providertest and ragstore/storetest, check what the
// kernel relies on; Coyote's own plugins pass them, and yours should.
package sdk

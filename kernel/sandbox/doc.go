// Package sandbox is the kernel's side of running Coyote inside a
// sandbox (the launcher plugin, coyote-sandbox, does the sandboxing):
//
//   - Proxy, outside: the credential-injecting proxy. The Coyote inside
//     holds a random placeholder instead of each key and sends its
//     provider requests to a route of this proxy; the proxy puts the real
//     key where the placeholder is (whatever header or query parameter
//     the provider uses) and forwards the request to the real API. It
//     listens on a Unix socket that the launcher makes visible inside.
//   - Forward, inside: a loopback HTTP proxy that carries the routed
//     requests to that socket (a sandbox without the network has only its
//     own loopback), which the inside kernel names in HTTP_PROXY for its
//     plugins.
//   - Seed: the copy of the configuration directory that may go inside:
//     never vault.yml or .env, and config.yaml without api_key values.
//
// It must not know any provider: a route is a client's name, its base
// URL and its key; where the key goes is the provider plugin's business.
package sandbox

// Package testplugins holds plugins that exist only for the end-to-end
// tests: a provider whose behaviour the prompt selects (including
// crashing and dying of SIGABRT), one speaking a future protocol version,
// one that prints noise before its handshake, one whose handshake names a
// socket nobody listens on (deadsocket), one built from the first provider
// contract without the SDK (oldprovider), and shell scripts that start a
// child without exec and never answer (scripts/); and an MCP server (not a
// plugin, a server the MCP bridge runs) that can be told to crash. They
// are never installed.
package testplugins

// Package testplugins holds plugin binaries that exist only for the
// end-to-end tests: a provider whose behaviour the prompt selects
// (including crashing), one speaking a future protocol version, and one
// that prints noise before its handshake; and an MCP server (not a
// plugin, a server the MCP bridge runs) that can be told to crash. They
// are never installed.
package testplugins

// Command coyote-mcp is Coyote's MCP bridge: the one plugin process that
// owns every MCP server connection, so that a misbehaving server or
// transport can crash only this process, never the REPL (the kernel
// restarts it and replays the configuration). It serves the contract of
// sdk/mcpbridge; the work is in package bridge.
//
// Servers come from the kernel's Configure (mcp.json, secrets resolved);
// nothing starts until Tools or Call needs a server. A started server is
// reused, kept across a Configure that leaves its config unchanged, and
// started again on the next use after it ends. Transports are stdio (the
// server in its own process group with a minimal environment, its stderr
// in the log; on stop stdin is closed, then the group gets SIGTERM and,
// 500 ms later, SIGKILL), streamable HTTP and legacy SSE (with the
// static headers of mcp.json). Tool lists are cached per running server
// and re-read after notifications/tools/list_changed.
package main

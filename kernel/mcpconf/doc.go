// Package mcpconf owns the MCP server files: the user's
// <functions dir>/mcp.json and the workspace's (.coyote/mcp.json,
// .coyote/.mcp.json or ./.mcp.json, the first that exists). It reads them
// strictly (unknown fields are errors naming the file, the line and the
// field), checks each server, merges the two scopes (a workspace server
// hides the user server of the same name), replaces {{SECRET}}
// placeholders with vault values, and writes a file back atomically,
// keeping the servers it did not change as they were written.
//
// A workspace file whose servers run a command or name a secret is
// pending until its caller decides (DecideWorkspace, after asking the
// trust gate with Set.Subject): until then, and when refused, its servers
// are not Active and hide nothing (kernel/trust).
//
// It must not touch anything else: it starts no server and no plugin, it
// never prompts, and it never opens the vault itself (Resolve is given a
// lookup function). Secret values never appear in its errors.
//
// # The file
//
//	{
//	  "mcpServers": {
//	    "fs": {
//	      "type": "stdio",
//	      "command": "npx",
//	      "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
//	      "env": {"DEBUG": false, "LEVEL": 2, "TOKEN": "{{FS_TOKEN}}"},
//	      "cwd": "/tmp"
//	    },
//	    "notion": {
//	      "type": "http",
//	      "url": "https://mcp.notion.com/mcp",
//	      "headers": {"Authorization": "Bearer {{NOTION_TOKEN}}"},
//	      "oauth": {"clientId": "…", "clientSecret": "{{NOTION_SECRET}}", "callbackPort": 8765, "redirectHost": "localhost"}
//	    }
//	  }
//	}
//
// "type" is stdio, http (streamable HTTP) or sse (legacy SSE). When it is
// left out, a server with a "command" is stdio and one with a "url" is
// http. A stdio server needs "command" and takes no "url", "headers" or
// "oauth"; an http or sse server needs an http(s) "url" and takes no
// "command", "args", "env" or "cwd". Server names are letters, digits,
// "-" and "_". Env values may be strings, true/false or whole numbers;
// they are kept as written when the file is saved again.
//
// Saving is atomic and private (0600), under the file's lock: changes made
// by another coyote since the file was read are kept (File.Save).
package mcpconf

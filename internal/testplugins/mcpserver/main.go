// Command mcpserver is an MCP server over stdio for the end-to-end tests:
// its tool "pid" answers with the server's process id, and its tool
// "crash" makes it die in the middle of the call, with a last line on
// stderr, as a buggy server would.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crashLine is the server's last words on stderr before "crash" ends it.
const crashLine = "fatal: the test asked me to crash"

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "crashy", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "pid", Description: "Tell the server's process id."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(os.Getpid())}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "End the server at once, without answering."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, crashLine)
			os.Exit(3)
			return nil, nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/internal/mcptest"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// mcpBench measures the MCP bridge through the kernel's client and the
// real coyote-mcp binary, with the real npm servers: the time from first
// use to a server's tools being listed (plugin start, server start, MCP
// handshake, tools/list), and what a tool call through the bridge costs
// over the same call made directly with the go-sdk client.
func mcpBench(bin string, runs int) ([]row, error) {
	fsNode, fsArgs, err := mcptest.Command(mcptest.Filesystem)
	if err != nil {
		return nil, err
	}
	evNode, evArgs, err := mcptest.Command(mcptest.Everything)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "coyote-bench-mcp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	dirs := []string{filepath.Join(bin, "plugins")}
	fs := mcpbridge.ServerConfig{Name: "fs", Type: "stdio", Command: fsNode, Args: append(fsArgs, dir)}
	every := mcpbridge.ServerConfig{Name: "every", Type: "stdio", Command: evNode, Args: evArgs}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// 1. First use: a fresh host each time, so the plugin starts too.
	var firstErr error
	firstUse := func() time.Duration {
		h := plugins.New(plugins.Options{Dirs: dirs})
		defer h.Close()
		m, err := h.MCP()
		if err == nil {
			err = m.Configure(ctx, &mcpbridge.ConfigureRequest{Servers: []mcpbridge.ServerConfig{fs}})
		}
		start := time.Now()
		var resp *mcpbridge.ToolsResponse
		if err == nil {
			resp, err = m.Tools(ctx, &mcpbridge.ToolsRequest{Servers: []string{"fs"}})
		}
		d := time.Since(start)
		if err == nil && (resp.Servers[0].Error != "" || len(resp.Servers[0].Tools) == 0) {
			err = fmt.Errorf("server-filesystem listed no tools: %s", resp.Servers[0].Error)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return d
	}
	// The same with the go-sdk client alone: the server's own start.
	directFirst := func() time.Duration {
		start := time.Now()
		session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: exec.Command(fs.Command, fs.Args...), TerminateDuration: 100 * time.Millisecond}, nil)
		if err == nil {
			_, err = session.ListTools(ctx, nil)
			d := time.Since(start)
			_ = session.Close()
			if err == nil {
				return d
			}
		}
		if firstErr == nil {
			firstErr = err
		}
		return time.Since(start)
	}
	n := min(runs, 10)
	first := median(n, firstUse)
	firstDirect := median(n, directFirst)
	if firstErr != nil {
		return nil, fmt.Errorf("mcp first use: %w", firstErr)
	}

	// 2. Warm calls of server-everything's echo, through the bridge and
	// directly, in the same run.
	h := plugins.New(plugins.Options{Dirs: dirs})
	defer h.Close()
	m, err := h.MCP()
	if err != nil {
		return nil, err
	}
	if err := m.Configure(ctx, &mcpbridge.ConfigureRequest{Servers: []mcpbridge.ServerConfig{every}}); err != nil {
		return nil, err
	}
	args := []byte(`{"message":"bench"}`)
	var callErr error
	viaBridge := func() time.Duration {
		start := time.Now()
		r, err := m.Call(ctx, &mcpbridge.CallRequest{Server: "every", Tool: "echo", Arguments: args})
		d := time.Since(start)
		if err == nil && !strings.Contains(r.Text, "bench") {
			err = fmt.Errorf("echo answered %q", r.Text)
		}
		if err != nil && callErr == nil {
			callErr = err
		}
		return d
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(evNode, evArgs...), TerminateDuration: 100 * time.Millisecond}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to server-everything directly: %w", err)
	}
	defer session.Close()
	direct := func() time.Duration {
		start := time.Now()
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench"}})
		d := time.Since(start)
		if err != nil && callErr == nil {
			callErr = err
		}
		return d
	}
	calls := max(runs*10, 100)
	// Interleave the two so that machine noise hits both alike.
	var bridgeT, directT time.Duration
	for range 3 {
		bridgeT += median(calls/3, viaBridge)
		directT += median(calls/3, direct)
	}
	bridgeT /= 3
	directT /= 3
	if callErr != nil {
		return nil, fmt.Errorf("mcp calls: %w", callErr)
	}
	over := bridgeT - directT
	return []row{
		{fmt.Sprintf("mcp: first use until a stdio server's tools are listed (server-filesystem, plugin start included; median of %d)", n), ms(first), "report",
			"go-sdk client alone, connect + list: " + ms(firstDirect), "measured"},
		{"mcp: tool call round trip through the bridge (server-everything echo, warm)", ms(bridgeT), "", "direct go-sdk call " + ms(directT), "measured"},
		{"mcp: bridge overhead per call over a direct go-sdk call", ms(over), "≤ 2 ms", "bridge " + ms(bridgeT) + " − direct " + ms(directT),
			withinTarget(over, 2*time.Millisecond)},
	}, nil
}

// Command deadsocket is a test plugin that completes the go-plugin
// handshake but names a socket nobody listens on, as a plugin whose gRPC
// server failed to come up would. It then stays alive until the kernel
// goes (its lifeline on fd 3 reads EOF), so the kernel cannot learn
// anything from its exit.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/coyote-cli/coyote/sdk"
)

func main() {
	if os.Getenv(sdk.Handshake.MagicCookieKey) != sdk.Handshake.MagicCookieValue {
		fmt.Fprintln(os.Stderr, "deadsocket is a Coyote test plugin")
		os.Exit(1)
	}
	dir := os.Getenv("PLUGIN_UNIX_SOCKET_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	fmt.Printf("1|%d|unix|%s|grpc\n", sdk.ProtocolVersion, filepath.Join(dir, "nobody-listens-here"))
	fd, err := strconv.Atoi(os.Getenv(sdk.EnvLifelineFD))
	if err != nil {
		select {} // no lifeline: wait to be killed
	}
	_, _ = io.Copy(io.Discard, os.NewFile(uintptr(fd), "lifeline"))
}

// Command coyote is the Coyote LLM command-line tool. All of it lives in
// package kernel.
package main

import (
	"os"

	"github.com/coyote-cli/coyote/kernel"
)

func main() { os.Exit(kernel.Main()) }

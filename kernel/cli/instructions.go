package cli

import (
	"fmt"
	"os"

	"github.com/coyote-cli/coyote/kernel/instructions"
)

// runInitInstructions writes a COYOTE.md to fill in, in the working
// directory (--init-instructions); an existing file is never replaced.
func runInitInstructions(f *Factory) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	p, err := instructions.Init(cwd)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "Wrote %s: write your project's rules in it; Coyote adds it to the system prompt here and below.\n", p)
	return nil
}

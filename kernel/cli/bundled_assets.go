package cli

import (
	"fmt"

	"github.com/coyote-cli/coyote/kernel/bundlemark"
)

// ensureBundled installs the bundled files (tools, agents, macros,
// skills) that are missing, as the original does on every run, at most
// once a process. When nothing changed since the last install it costs a
// read of the marker and a stat of each directory (kernel/bundlemark); a
// new binary, or a directory deleted or moved, installs again. A file the
// user deleted from a directory stays deleted until then, or until
// coyote --install brings it back. A failure is a warning: the run goes on
// without the missing files.
func ensureBundled(f *Factory) {
	f.bundledOnce.Do(func() {
		p, err := f.Paths()
		if err != nil {
			return
		}
		if _, err := bundlemark.Ensure(bundlemark.Marker(p), bundlemark.Coyote(p)); err != nil {
			fmt.Fprintln(f.IO.ErrOut, "warning: "+err.Error())
		}
	})
}

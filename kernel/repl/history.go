package repl

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// historyLimit is how many lines the input history keeps.
const historyLimit = 1000

// prepareHistory makes the history file private before the line editor
// opens it: the history holds prompts, so the file is 0600 in a 0700
// folder, including a file and folder an older version made 0644 and
// 0755. The line editor would create a missing file 0666 (less the
// umask), so it is created here; and since it rewrites an over-long file
// through a temporary file of its own, made the same way, the file is
// cut to its last historyLimit lines here first.
func prepareHistory(path string, limit int) error {
	if err := fsx.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	_ = fsx.MakePrivate(path + ".tmp") // the editor's, left by a crash
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = fsx.CreateNew(path, nil, fsx.PrivateFileMode)
		return err
	}
	if err != nil {
		return err
	}
	if n := bytes.Count(data, []byte{'\n'}); n > limit {
		cut := 0
		for range n - limit {
			cut += bytes.IndexByte(data[cut:], '\n') + 1
		}
		return fsx.WritePrivate(path, data[cut:])
	}
	return fsx.MakePrivate(path)
}

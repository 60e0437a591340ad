package plugins

import (
	"context"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
)

// Report is what `coyote plugins` shows of one plugin.
type Report struct {
	Found
	// Desc is what the plugin said about itself, when it could be started.
	Desc *sdk.Description
	// Err says why it could not be started or described.
	Err error
}

// Inspect starts each found plugin (in parallel), asks it to describe
// itself and stops it again; a plugin already running (in use by this
// kernel) is asked as it runs and left running. A plugin that fails is
// reported with its error; Inspect itself never fails. checks, when not
// nil, are found's checks against the lock (CheckLock): a plugin they
// refuse is reported with the error its start would give, without
// checking it again.
func (h *Host) Inspect(ctx context.Context, found []Found, checks []LockCheck) []Report {
	reports := make([]Report, len(found))
	var wg sync.WaitGroup
	for i, f := range found {
		reports[i].Found = f
		if f.AliasOf != "" {
			continue // the same binary is described under its own name
		}
		if checks != nil {
			if err := h.refusal(checks[i]); err != nil {
				reports[i].Err = err
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pl := h.Plugin(f)
			if proc := pl.live(); proc != nil {
				reports[i].Desc = proc.Description()
				return
			}
			defer pl.stop()
			reports[i].Err = pl.Call(ctx, func(proc *Process) error {
				reports[i].Desc = proc.Description()
				return nil
			})
		}()
	}
	wg.Wait()
	for i := range reports {
		for _, r := range reports {
			if reports[i].AliasOf != "" && r.Binary == reports[i].AliasOf {
				reports[i].Desc, reports[i].Err = r.Desc, r.Err
			}
		}
	}
	return reports
}

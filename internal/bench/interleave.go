package main

import (
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"
)

// modelTimings runs a one-shot "hi" through each of models, the models
// taken in turn within every round so that a change of load lands on all
// of them alike, against fakes whose replies have chunks chunks. It
// returns per model the median first byte of a 20-chunk reply, and the
// median whole run of a 1-chunk and of a 2,000-chunk reply (per-chunk
// cost: (many − one) / 1999).
func modelTimings(coyote string, env, models []string, runs int, chunks *atomic.Int64) (ttfb, one, many map[string]time.Duration, err error) {
	times := func(n, replyChunks int, pick func(first, all time.Duration) time.Duration) (map[string]time.Duration, error) {
		chunks.Store(int64(replyChunks))
		got := map[string][]time.Duration{}
		for i := 0; i <= n; i++ {
			for _, m := range models {
				c := exec.Command(coyote, "-m", m, "hi")
				c.Env = env
				var stderr strings.Builder
				c.Stderr = &stderr
				first, all, err := firstByte(c)
				if err != nil {
					return nil, fmt.Errorf("%s: %v: %s", m, err, stderr.String())
				}
				if i > 0 { // the first round warms the page cache
					got[m] = append(got[m], pick(first, all))
				}
			}
		}
		out := map[string]time.Duration{}
		for m, ds := range got {
			out[m] = medianOf(ds)
		}
		return out, nil
	}
	if ttfb, err = times(runs, 20, func(first, _ time.Duration) time.Duration { return first }); err != nil {
		return
	}
	if one, err = times(max(runs/3, 5), 1, func(_, all time.Duration) time.Duration { return all }); err != nil {
		return
	}
	many, err = times(max(runs/3, 5), 2000, func(_, all time.Duration) time.Duration { return all })
	return
}

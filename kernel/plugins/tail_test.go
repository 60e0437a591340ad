package plugins

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestTailKeepsTheLastBytesWhateverTheWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, max := range []int{1, 7, 64, 1000} {
		tl := newTail(max)
		var all bytes.Buffer
		for i := 0; i < 500; i++ {
			p := make([]byte, r.IntN(3*max+2))
			for j := range p {
				p[j] = byte('a' + r.IntN(26))
			}
			if n, err := tl.Write(p); n != len(p) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			all.Write(p)
			want := all.Bytes()
			if len(want) > max {
				want = want[len(want)-max:]
			}
			if got, cut := tl.bytes(); !bytes.Equal(got, want) || cut != (all.Len() > max) {
				t.Fatalf("max %d after %d bytes: kept %q (cut %v), want %q", max, all.Len(), got, cut, want)
			}
		}
	}
}

func TestCrashReasonIsThePanicOrTheSignal(t *testing.T) {
	registers := "rax    0x0\nrbx    0x0\nrip    0x4d3941\nrflags 0x246\ncs     0x33\nfs     0x0\ngs     0x0\n"
	stack := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString("goroutine 7 [select]:\nruntime.gopark(0x1, 0x2)\n\t/usr/local/go/src/runtime/proc.go:462 +0xce\ncreated by main.main in goroutine 1\n\t/src/main.go:12 +0x2a\n\n")
		}
		return b.String()
	}
	tests := []struct {
		name, stderr, want string
	}{
		{"panic", "{\"@level\":\"info\"}\npanic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:9 +0x1\nexit status 2\n", "panic: boom"},
		{"fatal error", "fatal error: concurrent map writes\n" + stack(2), "fatal error: concurrent map writes"},
		{"SIGABRT with registers", "SIGABRT: abort\nPC=0x4d3941 m=0 sigcode=0\n\n" + stack(3) + registers, "SIGABRT: abort"},
		// The report is far longer than the kept tail: the header is still known.
		{"SIGSEGV, long report", "SIGSEGV: segmentation violation\nPC=0x1 m=0 sigcode=1\n" + stack(500) + registers, "SIGSEGV: segmentation violation"},
		{"a plain last line", "starting\nfatal: cannot read my settings\n", "fatal: cannot read my settings"},
		{"JSON logs only", "{\"@level\":\"info\",\"@message\":\"serving\"}\n", ""},
		{"registers without a header", "something went wrong\n" + registers, "something went wrong"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := newTail(8 << 10)
			// Line by line, as go-plugin copies a plugin's stderr.
			for _, l := range strings.SplitAfter(tt.stderr, "\n") {
				body, nl := strings.CutSuffix(l, "\n")
				_, _ = tl.Write([]byte(body))
				if nl {
					_, _ = tl.Write([]byte("\n"))
				}
			}
			if got := tl.reason(); got != tt.want {
				t.Fatalf("reason = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAnOldCrashHeaderDoesNotExplainALaterExit(t *testing.T) {
	tl := newTail(8 << 10)
	_, _ = tl.Write([]byte("panic: recovered long ago\n"))
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for i := 0; i < crashWindow/len(line)+1; i++ {
		_, _ = tl.Write(line)
	}
	_, _ = tl.Write([]byte("the real last words\n"))
	if got := tl.reason(); got != "the real last words" {
		t.Fatalf("reason = %q", got)
	}
}

func TestPluginOutputIsReadNoFasterThanTheRate(t *testing.T) {
	var clock time.Time = time.Unix(0, 0)
	var slept time.Duration
	th := throttle{rate: outputRate, burst: outputBurst,
		now:   func() time.Time { return clock },
		sleep: func(d time.Duration) { slept += d; clock = clock.Add(d) },
	}
	total := 0
	for total < 10*outputRate+outputBurst {
		th.take(outputChunk)
		total += outputChunk
	}
	// The burst is free; every further byte costs 1/outputRate seconds.
	want := time.Duration(float64(total-outputBurst) / outputRate * float64(time.Second))
	if d := slept - want; d < -time.Millisecond || d > time.Millisecond {
		t.Fatalf("reading %d bytes waited %s, want %s", total, slept, want)
	}
	// A quiet plugin gets its burst back.
	clock = clock.Add(time.Hour)
	slept = 0
	th.take(outputBurst)
	if slept != 0 {
		t.Fatalf("after a quiet hour a burst waited %s", slept)
	}
}

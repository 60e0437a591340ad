package session

import (
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// TestFailedSaveLeavesTheFileWhole: a save that fails part-way through
// writing (here the file size limit stops the write after 4 KiB) leaves
// the previous file as it was, and no temporary file behind. The save runs
// in a child process, which the size limit would otherwise also bind.
func TestFailedSaveLeavesTheFileWhole(t *testing.T) {
	if dir := os.Getenv("SESSION_TEST_PARTIAL_WRITE"); dir != "" {
		signal.Ignore(syscall.SIGXFSZ) // get EFBIG instead of being killed
		s, err := (&Store{Dir: dir}).Load("work")
		if err != nil {
			os.Exit(2)
		}
		_ = s.Append(exchange("big", strings.Repeat("x", 1<<20))...)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
			os.Exit(2)
		}
		if err := s.Save(); err == nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	st := &Store{Dir: t.TempDir()}
	s, _ := st.New("work", Settings{Model: "a:b"})
	_ = s.Append(exchange("small", "answer")...)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())

	cmd := exec.Command(os.Args[0], "-test.run=^TestFailedSaveLeavesTheFileWhole$")
	cmd.Env = append(os.Environ(), "SESSION_TEST_PARTIAL_WRITE="+st.Dir)
	out, err := cmd.CombinedOutput()
	switch code := cmd.ProcessState.ExitCode(); code {
	case 0:
	case 3:
		t.Fatalf("the save succeeded despite the size limit")
	default:
		t.Fatalf("child failed (%v, exit %d): %s", err, code, out)
	}
	after, _ := os.ReadFile(s.Path())
	if string(after) != string(before) {
		t.Errorf("the session file changed (%d bytes, was %d)", len(after), len(before))
	}
	entries, _ := os.ReadDir(st.Dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != ".work.yaml.lock" {
		t.Errorf("files left in the sessions directory: %q (only the session and its lock file should be)", names)
	}
	if _, err := st.Load("work"); err != nil {
		t.Errorf("the session no longer loads: %v", err)
	}
}

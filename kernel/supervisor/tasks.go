package supervisor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Task is one item of the task queue agents share: created by one agent,
// done by another (or the same), possibly waiting on others.
type Task struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	BlockedBy   []string `json:"blocked_by,omitempty"`
	// State is "ready", "blocked", "done" or "failed"; Waiting lists the
	// blockers not done yet.
	State   string   `json:"state"`
	Waiting []string `json:"waiting_on,omitempty"`
	Result  string   `json:"result,omitempty"`
	Creator string   `json:"created_by,omitempty"`
}

type taskQueue struct {
	next  int
	tasks []*Task
}

func (q *taskQueue) get(id string) *Task {
	for _, t := range q.tasks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// refresh sets the state of the tasks that are not ended: blocked while
// a blocker is not done.
func (q *taskQueue) refresh() {
	for _, t := range q.tasks {
		if t.State == "done" || t.State == "failed" {
			continue
		}
		t.Waiting = nil
		for _, b := range t.BlockedBy {
			if bt := q.get(b); bt == nil || bt.State != "done" {
				t.Waiting = append(t.Waiting, b)
			}
		}
		t.State = "ready"
		if len(t.Waiting) > 0 {
			t.State = "blocked"
		}
	}
}

// CreateTask adds a task; blockedBy must name tasks that exist.
func (s *Supervisor) CreateTask(creator, title, description string, blockedBy []string) (Task, error) {
	if strings.TrimSpace(title) == "" {
		return Task{}, fmt.Errorf("a task needs a title")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range blockedBy {
		if s.tasks.get(b) == nil {
			return Task{}, fmt.Errorf("blocked_by names %q, which is no task (agent__task_list lists them)", b)
		}
	}
	s.tasks.next++
	t := &Task{ID: "task_" + strconv.Itoa(s.tasks.next), Title: title, Description: description, BlockedBy: slices.Clone(blockedBy), Creator: creator}
	s.tasks.tasks = append(s.tasks.tasks, t)
	s.tasks.refresh()
	return *t, nil
}

// Tasks lists the tasks, in the order created.
func (s *Supervisor) Tasks() []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tasks.refresh()
	out := make([]Task, len(s.tasks.tasks))
	for i, t := range s.tasks.tasks {
		out[i] = *t
	}
	return out
}

// EndTask marks a task done (ok) or failed, with its result or reason. A
// task still blocked cannot be done.
func (s *Supervisor) EndTask(id string, ok bool, result string) (Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tasks.refresh()
	t := s.tasks.get(id)
	switch {
	case t == nil:
		return Task{}, fmt.Errorf("there is no task %q (agent__task_list lists them)", id)
	case t.State == "done" || t.State == "failed":
		return *t, fmt.Errorf("task %s is %s already", id, t.State)
	case ok && t.State == "blocked":
		return *t, fmt.Errorf("task %s waits on %s: finish those first", id, strings.Join(t.Waiting, ", "))
	}
	t.State, t.Result = "failed", result
	if ok {
		t.State = "done"
	}
	s.tasks.refresh()
	return *t, nil
}

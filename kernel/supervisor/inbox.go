package supervisor

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Root is the id of the root agent, the one the user talks to.
const Root = "root"

// Message is one message between agents.
type Message struct {
	From string    `json:"from"`
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// Send puts a message in to's inbox: "parent" is the sender's parent.
func (s *Supervisor) Send(from, to, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("the message is empty")
	}
	if to == "parent" {
		to = Root
		if c, err := s.Get(from); err == nil && c.Parent != "" {
			to = c.Parent
		}
	}
	if to != Root {
		if _, err := s.Get(to); err != nil {
			return "", err
		}
	}
	s.mu.Lock()
	s.inboxes[to] = append(s.inboxes[to], Message{From: displayID(from), Text: text, At: time.Now()})
	s.mu.Unlock()
	return to, nil
}

func displayID(id string) string {
	if id == "" {
		return Root
	}
	return id
}

// Inbox takes the messages waiting for id.
func (s *Supervisor) Inbox(id string) []Message {
	id = displayID(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := s.inboxes[id]
	delete(s.inboxes, id)
	return msgs
}

// Escalation is a question a child puts to the user, answered by the
// user at the root's terminal or by the parent agent
// (agent__reply_escalation).
type Escalation struct {
	ID       string
	From     string
	Question string
	Options  []string
	answer   chan string
}

// ErrNoAnswer is an escalation nobody answered within its timeout.
var ErrNoAnswer = fmt.Errorf("no answer")

// Escalate posts a question of child from to its parent's inbox and waits
// for agent__reply_escalation's answer, at most timeout (0: no limit).
func (s *Supervisor) Escalate(ctx context.Context, from, question string, options []string, timeout time.Duration) (string, error) {
	s.mu.Lock()
	id := "esc_" + strconv.Itoa(len(s.escOrder)+1)
	e := &Escalation{ID: id, From: from, Question: question, Options: options, answer: make(chan string, 1)}
	s.escal[id] = e
	s.escOrder = append(s.escOrder, id)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.escal, id)
		s.mu.Unlock()
	}()
	text := fmt.Sprintf("Escalation %s: %s asks the user: %s", id, from, question)
	if len(options) > 0 {
		text += " (options: " + strings.Join(options, " | ") + ")"
	}
	text += ". Answer it with agent__reply_escalation."
	if _, err := s.Send(from, "parent", text); err != nil {
		return "", err
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case a := <-e.answer:
		return a, nil
	case <-timer:
		return "", ErrNoAnswer
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Reply answers escalation id.
func (s *Supervisor) Reply(id, answer string) error {
	s.mu.Lock()
	e, ok := s.escal[id]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("there is no open escalation %q (it was answered, timed out, or never asked)", id)
	}
	select {
	case e.answer <- answer:
		return nil
	default:
		return fmt.Errorf("escalation %s was answered already", id)
	}
}

package cli

import (
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/session"
)

// applyCmdPrelude applies cmd_prelude to a one-shot run that names no
// role, session, agent, RAG or macro, as the original does: "role:NAME"
// uses that role, "session:NAME" that session (with the role it was
// started with), and "SESSION:ROLE" that session, with ROLE when the
// session is new or empty.
func applyCmdPrelude(st *convo.State, prelude string) error {
	prelude = strings.TrimSpace(prelude)
	if prelude == "" {
		return nil
	}
	kind, name, ok := strings.Cut(prelude, ":")
	if !ok || kind == "" || name == "" {
		return fmt.Errorf("cmd_prelude %q: want role:NAME, session:NAME or SESSION:ROLE", prelude)
	}
	var err error
	switch kind {
	case "role":
		if st.Role, err = st.LoadRole(name); err != nil {
			return fmt.Errorf("cmd_prelude %q: %w", prelude, err)
		}
		return nil
	case "session":
		sess, err := st.OpenSession(name)
		if err != nil {
			return fmt.Errorf("cmd_prelude %q: %w", prelude, err)
		}
		if rn := sess.Settings().RoleName; rn != nil {
			if st.Role, err = st.LoadRole(*rn); err != nil {
				return fmt.Errorf("cmd_prelude %q: the session's role: %w", prelude, err)
			}
		}
		return nil
	}
	sess, err := st.OpenSession(kind)
	if err != nil {
		return fmt.Errorf("cmd_prelude %q: %w", prelude, err)
	}
	if !sess.IsEmpty() {
		// A session under way keeps the role it was started with.
		if rn := sess.Settings().RoleName; rn != nil {
			if st.Role, err = st.LoadRole(*rn); err != nil {
				return fmt.Errorf("cmd_prelude %q: the session's role: %w", prelude, err)
			}
		}
		return nil
	}
	if st.Role, err = st.LoadRole(name); err != nil {
		return fmt.Errorf("cmd_prelude %q: %w", prelude, err)
	}
	sess.Update(func(s *session.Settings) { s.RoleName = &name })
	return nil
}

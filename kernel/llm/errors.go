package llm

import (
	"errors"
	"fmt"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/sdk"
)

// Explain adds to a provider's error what the user can do about it: where
// the client's key came from, how to see the models, to wait. model is the
// model the request was for, if any.
func (c *Conn) Explain(err error, model string) error {
	if err == nil {
		return nil
	}
	cl := c.Client
	switch {
	case errors.Is(err, sdk.ErrUnauthenticated), errors.Is(err, sdk.ErrPermissionDenied):
		hint := fmt.Sprintf("no API key is set for client %q: set %s_API_KEY or api_key in config.yaml", cl.Name, config.EnvPrefix(cl.Name))
		switch {
		case cl.Token != nil:
			hint = fmt.Sprintf("client %q logs in with OAuth; log in again with coyote --authenticate %s", cl.Name, cl.Name)
		case cl.KeySource != "":
			hint = fmt.Sprintf("the API key of client %q comes from %s; check it", cl.Name, cl.KeySource)
		}
		return fmt.Errorf("%w (%s)", err, hint)
	case errors.Is(err, sdk.ErrNotFound) && model != "":
		return fmt.Errorf("%w (model %s:%s; run `coyote --list-models` to see the known models)", err, cl.Name, model)
	case errors.Is(err, sdk.ErrRateLimited):
		return fmt.Errorf("%w (wait a moment and try again)", err)
	case errors.Is(err, sdk.ErrUnsupported):
		return fmt.Errorf("%w (client %q, type %s)", err, cl.Name, cl.Type)
	}
	return err
}

package plugins

import (
	"context"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// sandboxKind declares the sandbox launcher, coyote-sandbox. It keeps no
// setup: every request carries all it needs, so a restarted process
// answers the next one as the last did.
var sandboxKind = Declare(&Kind[sandbox.Launcher, struct{}]{
	Name:      sdk.KindSandbox,
	Noun:      "the sandbox launcher",
	Singleton: true,
	Plugin:    sandbox.Plugin(nil),
	Replay:    func(context.Context, sandbox.Launcher, string, struct{}) error { return nil },
})

// Sandbox is the kernel's supervised handle on the sandbox launcher
// plugin. It implements sandbox.Launcher; each call starts the plugin if
// it is not running.
type Sandbox struct {
	h *Handle[sandbox.Launcher, struct{}]
}

// Sandbox returns the handle of the sandbox launcher, without starting it.
func (h *Host) Sandbox() (*Sandbox, error) {
	hd, err := handleOf(h, sandboxKind, "")
	if err != nil {
		return nil, err
	}
	return typedHandle(hd, func(hd *Handle[sandbox.Launcher, struct{}]) *Sandbox { return &Sandbox{h: hd} }), nil
}

// Plugin is the supervised plugin behind the handle.
func (s *Sandbox) Plugin() *Plugin { return s.h.Plugin() }

// Backends lists the launcher's backends and their availability.
func (s *Sandbox) Backends(ctx context.Context, req *sandbox.BackendsRequest) (resp *sandbox.BackendsResponse, err error) {
	err = s.h.Call(ctx, func(_ *Process, c sandbox.Launcher) error {
		resp, err = c.Backends(ctx, req)
		return err
	})
	return resp, err
}

// Prepare readies an environment.
func (s *Sandbox) Prepare(ctx context.Context, req *sandbox.PrepareRequest) (resp *sandbox.PrepareResponse, err error) {
	err = s.h.Call(ctx, func(_ *Process, c sandbox.Launcher) error {
		resp, err = c.Prepare(ctx, req)
		return err
	})
	return resp, err
}

// Command returns the process that runs a command inside.
func (s *Sandbox) Command(ctx context.Context, req *sandbox.CommandRequest) (resp *sandbox.CommandResponse, err error) {
	err = s.h.Call(ctx, func(_ *Process, c sandbox.Launcher) error {
		resp, err = c.Command(ctx, req)
		return err
	})
	return resp, err
}

// List lists environments.
func (s *Sandbox) List(ctx context.Context, req *sandbox.ListRequest) (resp *sandbox.ListResponse, err error) {
	err = s.h.Call(ctx, func(_ *Process, c sandbox.Launcher) error {
		resp, err = c.List(ctx, req)
		return err
	})
	return resp, err
}

// Remove deletes an environment.
func (s *Sandbox) Remove(ctx context.Context, req *sandbox.RemoveRequest) (resp *sandbox.RemoveResponse, err error) {
	err = s.h.Call(ctx, func(_ *Process, c sandbox.Launcher) error {
		resp, err = c.Remove(ctx, req)
		return err
	})
	return resp, err
}

var _ sandbox.Launcher = (*Sandbox)(nil)

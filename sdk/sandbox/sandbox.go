// Package sandbox is the contract between the Coyote kernel and the
// sandbox launcher plugin, coyote-sandbox: the process that knows how to
// run Coyote (or one tool call) where it cannot touch what it should not.
//
// A launcher has one or more backends (bubblewrap, Docker, Podman,
// Docker's sbx sandboxes, or a third party's). For each it reports whether
// it is available on this machine and, when not, why (Backends). It
// prepares a named environment for a workspace, reusing it or, when asked
// for a fresh one, starting from nothing (Prepare); it lists and removes
// environments (List, Remove).
//
// Running a command is split on purpose: Command returns the exact process
// (argv and environment) that runs the command inside the environment, and
// the kernel starts that process itself. The command's stdio is then the
// user's own terminal (a real pty when there is one, with its window size,
// job control and Ctrl-C), not a copy relayed over gRPC, and the process
// is the kernel's child, so the kernel's process hygiene (its own process
// group, death with the parent) covers it: a killed kernel leaves no
// sandbox running. The exit code is the process's.
//
// A backend declares what it can honour as capabilities (the Cap
// constants): bind mounts and hidden paths, network on or off, how
// credentials reach the inside (a Unix socket made visible inside, or the
// backend's own secret store), and whether it can wrap one host command
// (a tool call) with the host's programs visible read-only. The kernel
// asks for no more than a backend declares.
//
// A plugin implements [Launcher] and serves it:
//
//	sdk.Serve(sdk.Info{Name: "sandbox", Version: "0.1.0"}, sandbox.Plugin(launcher))
package sandbox

import (
	"context"
	"fmt"
	"strings"
)

// Launcher is implemented by sandbox launcher plugins, and by the kernel's
// client for them.
type Launcher interface {
	// Backends lists every backend, in the plugin's order of preference.
	Backends(ctx context.Context, req *BackendsRequest) (*BackendsResponse, error)
	// Prepare makes the named environment ready: created when missing,
	// reused otherwise, or removed and created again when Fresh. An empty
	// Backend picks the first available; none available is an
	// sdk.ErrUnavailable naming each backend and why.
	Prepare(ctx context.Context, req *PrepareRequest) (*PrepareResponse, error)
	// Command returns the process that runs req.Argv inside the
	// environment. The kernel starts it with the user's stdio.
	Command(ctx context.Context, req *CommandRequest) (*CommandResponse, error)
	// List lists environments.
	List(ctx context.Context, req *ListRequest) (*ListResponse, error)
	// Remove deletes one environment; a missing one is sdk.ErrNotFound.
	Remove(ctx context.Context, req *RemoveRequest) (*RemoveResponse, error)
}

// Capabilities of a backend, reported in Backend.Capabilities.
const (
	// CapBind: Mounts with ModeRW and ModeRO are honoured.
	CapBind = "bind"
	// CapHide: Mounts with ModeHide are honoured (the path is empty
	// inside).
	CapHide = "hide"
	// CapNetworkOff: a command can run with no network at all.
	CapNetworkOff = "network_off"
	// CapCredentialSocket: a Unix socket of the kernel's can be mounted
	// inside, so the kernel's credential proxy reaches it.
	CapCredentialSocket = "credential_socket"
	// CapCredentialStore: the backend keeps Secrets in its own store and
	// injects them itself (Docker's sbx proxy).
	CapCredentialStore = "credential_store"
	// CapWrap: Command with Ephemeral runs a host program (the host's root
	// visible read-only), which is what a sandboxed tool call needs.
	CapWrap = "wrap"
	// CapHome: the environment has a private home that persists between
	// runs (PrepareResponse.Home).
	CapHome = "home"
)

// Mount modes.
const (
	ModeRW   = "rw"
	ModeRO   = "ro"
	ModeHide = "hide"
)

// Backend is one way of sandboxing.
type Backend struct {
	Name      string
	Available bool
	// Reason says why the backend is unavailable ("bwrap is not
	// installed", "the Docker daemon is not running"), in a few words.
	Reason       string
	Capabilities []string
}

// Has reports whether the backend declares capability c.
func (b Backend) Has(c string) bool {
	for _, x := range b.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// BackendsRequest asks for the backends.
type BackendsRequest struct{}

// BackendsResponse lists the backends in order of preference.
type BackendsResponse struct {
	Backends []Backend
}

// Unavailable is the one-line error for a machine where no backend (or
// not the wanted one) can run: each backend with its reason.
func Unavailable(bs []Backend) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("%s: %s", b.Name, b.Reason))
	}
	return "no sandbox backend is available here: " + strings.Join(parts, "; ")
}

// Mount makes a host path visible inside, or hides one.
type Mount struct {
	// Source is the host path (empty for ModeHide).
	Source string
	// Target is the path inside.
	Target string
	// Mode is ModeRW, ModeRO or ModeHide.
	Mode string
}

// Secret is a value a backend with CapCredentialStore keeps in its own
// store and injects for requests to Hosts.
type Secret struct {
	Name  string
	Value string
	Hosts []string
}

// String hides the value.
func (s Secret) String() string { return fmt.Sprintf("secret %q (hosts %v)", s.Name, s.Hosts) }

// GoString is String, so that %#v cannot print the value either.
func (s Secret) GoString() string { return s.String() }

// PrepareRequest asks for an environment.
type PrepareRequest struct {
	// Backend is the backend to use; empty picks the first available.
	Backend string
	// Name is the environment's name (already sanitised by the kernel).
	Name string
	// Workspace is the host directory the environment works in.
	Workspace string
	// StateDir is where the plugin keeps what it owns on the host (private
	// homes, generated kits), one directory per backend and name below it.
	StateDir string
	// Fresh removes whatever the environment had and starts again.
	Fresh bool
	// ConfigSeed is a directory the kernel prepared with the part of the
	// user's configuration directory that may go inside (never the vault,
	// never a key); it is copied to the private home's config directory.
	ConfigSeed string
	// OAuthDir holds OAuth tokens to copy in ("" for none: --fresh).
	OAuthDir string
	// Options are backend settings from the configuration ("image").
	Options map[string]string
	// Mixins are extra kit files the backend may apply (sbx-mixin.yaml).
	Mixins []string
	// Secrets are for a backend with CapCredentialStore only.
	Secrets []Secret
}

// PrepareResponse says what was prepared.
type PrepareResponse struct {
	// Backend is the backend that was used (the one picked when the
	// request named none).
	Backend string
	Name    string
	// Created is true when the environment did not exist before.
	Created bool
	// Home is the host path of the private home, for a backend with
	// CapHome.
	Home string
	// Notes are things the user should know, one line each.
	Notes []string
}

// CommandRequest asks for the process that runs a command inside.
type CommandRequest struct {
	Backend   string
	Name      string
	Workspace string
	StateDir  string
	// Argv is the command to run inside.
	Argv []string
	// Env is its whole environment ("K=V"); nothing else is inherited.
	Env []string
	// Dir is its working directory inside ("" is the workspace).
	Dir string
	// Network gives the command the network.
	Network bool
	// Mounts are extra paths to show or hide, applied after the
	// backend's own (so a hidden path can hold a mounted one).
	Mounts []Mount
	// TTY is true when the kernel's stdin is a terminal.
	TTY     bool
	Options map[string]string
	// Ephemeral runs the command in a throw-away environment made for it
	// alone (a tool call), with the host's programs read-only and the
	// workspace writable; Name is ignored. Needs CapWrap.
	Ephemeral bool
}

// CommandResponse is the process the kernel starts.
type CommandResponse struct {
	Argv []string
	// Env is the environment of the launching process itself.
	Env []string
}

// ListRequest asks for environments: of one backend, or of all when
// Backend is empty.
type ListRequest struct {
	Backend  string
	StateDir string
}

// Environment is one prepared environment.
type Environment struct {
	Backend   string
	Name      string
	Workspace string
	// Detail is a short description ("created 2025-01-02").
	Detail string
}

// ListResponse lists environments.
type ListResponse struct {
	Environments []Environment
}

// RemoveRequest names the environment to remove.
type RemoveRequest struct {
	Backend  string
	Name     string
	StateDir string
}

// RemoveResponse says whether something was removed.
type RemoveResponse struct {
	Removed bool
}

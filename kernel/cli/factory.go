// Package cli owns the command line: the cobra root command and its flags,
// the run function of each command, and the one place where errors become a
// message and an exit code. Commands get what they need (streams, paths,
// config, the plugin host) from a Factory, lazily, so that `coyote
// --version` loads no config and starts no plugin.
package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/logging"
	"github.com/coyote-cli/coyote/kernel/mcp"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/oauth"
	"github.com/coyote-cli/coyote/kernel/plugins"
	ksandbox "github.com/coyote-cli/coyote/kernel/sandbox"
	"github.com/coyote-cli/coyote/kernel/trust"
	"github.com/coyote-cli/coyote/kernel/vault"
)

// Factory provides commands with their dependencies, each built on first
// use.
type Factory struct {
	IO *iostreams.IOStreams
	// Env reads the environment (os.Getenv in the real program).
	Env config.Env
	// Environ is the whole environment, of which plugins get a filtered part.
	Environ []string

	pathsOnce sync.Once
	// bundledOnce runs ensureBundled once a process.
	bundledOnce sync.Once
	paths       config.Paths
	pathsErr    error

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error

	logOnce sync.Once
	log     hclog.Logger

	hostMu sync.Mutex
	host   *plugins.Host

	stdinOnce sync.Once
	stdinBuf  *bufio.Reader

	intMu sync.Mutex
	onInt func()

	vaultOnce sync.Once
	vault     *vault.Vault
	vaultPW   string
	vaultErr  error

	providerOnce sync.Once
	provider     *providerConfig
	remote       *remoteStore
	providerErr  error

	mcpOnce sync.Once
	mcp     *mcp.Manager

	// logins are the OAuth logins of the auth: oauth clients, by name.
	loginMu sync.Mutex
	logins  map[string]*oauth.Login

	// headless: no one to ask (--headless, --acp-server): the user__*
	// questions answer that a human is needed. logStderr sends the log
	// to stderr (--acp-server). observe, when set, is given each
	// conversation a command line starts (--output-format json follows
	// its turn).
	headless  bool
	logStderr bool
	observe   func(*convo.State)

	trustOnce sync.Once
	trust     *trust.Gate
	trustAll  bool // --trust-workspace

	// toolSandbox is --tool-sandbox's backend ("" : tool_sandbox decides).
	toolSandbox string
	// forward carries the plugins' requests to the credential proxy when
	// this coyote runs inside a sandbox.
	forward *ksandbox.Forward
}

// NewFactory returns the factory of the real program.
func NewFactory() *Factory {
	return &Factory{IO: iostreams.System(), Env: os.Getenv, Environ: os.Environ()}
}

// stdin is standard input, buffered once for every question asked.
func (f *Factory) stdin() *bufio.Reader {
	f.stdinOnce.Do(func() { f.stdinBuf = bufio.NewReader(f.IO.In) })
	return f.stdinBuf
}

// reloadConfig forgets the loaded configuration (after the wizard wrote
// one).
func (f *Factory) reloadConfig() {
	f.cfgOnce = sync.Once{}
	f.cfg, f.cfgErr = nil, nil
}

// Paths returns Coyote's directories. The first call also exports the
// .env file, so that everything read later sees its variables.
func (f *Factory) Paths() (config.Paths, error) {
	f.pathsOnce.Do(func() {
		f.paths, f.pathsErr = config.ResolvePaths(f.Env)
		if f.pathsErr == nil {
			f.pathsErr = config.LoadEnvFile(f.paths.EnvFile)
			// The synced catalog is read over the built-in one, on first use.
			models.UseOverride(filepath.Join(f.paths.ConfigDir, models.OverrideFile), buildinfo.Version,
				func(w string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+w) })
		}
	})
	return f.paths, f.pathsErr
}

// Config loads the configuration once.
func (f *Factory) Config() (*config.Config, error) {
	f.cfgOnce.Do(func() {
		p, err := f.Paths()
		if err != nil {
			f.cfgErr = err
			return
		}
		f.cfg, f.cfgErr = config.LoadWithSecrets(p, f.Env, f.secrets)
		if f.cfg != nil && f.toolSandbox != "" {
			f.cfg.Set("tool_sandbox", &config.Value{V: f.toolSandbox, Src: config.Source{Kind: "flag", Where: "--tool-sandbox"}})
		}
		if f.cfg != nil {
			f.attachLogins(f.cfg, p)
			for _, w := range f.cfg.Warnings {
				fmt.Fprintln(f.IO.ErrOut, "warning: "+w)
			}
			// A host made to resolve the secrets (a remote provider's
			// plugin) did not know plugin_start_timeout yet.
			f.hostMu.Lock()
			if f.host != nil {
				f.host.SetStartTimeout(f.cfg.PluginStartTimeout)
			}
			f.hostMu.Unlock()
		}
	})
	return f.cfg, f.cfgErr
}

// Logger returns the kernel log. It never fails: a bad log setting falls
// back to a logger that drops everything, and is reported once on stderr.
func (f *Factory) Logger() hclog.Logger {
	f.logOnce.Do(func() {
		f.log = hclog.NewNullLogger()
		p, err := f.Paths()
		if err != nil {
			return
		}
		path := p.LogFile
		if f.logStderr {
			path = "" // the editor shows the agent's stderr
		}
		l, err := logging.NewTo(path, f.IO.ErrOut, f.Env("COYOTE_LOG_LEVEL"), f.Env("COYOTE_LOG_FILTER"))
		if err != nil {
			_, _ = f.IO.ErrOut.Write([]byte("warning: COYOTE_LOG_LEVEL: " + err.Error() + "\n"))
			return
		}
		f.log = l
	})
	return f.log
}

// Host returns the plugin host, creating it (but starting no plugin) on
// first use.
func (f *Factory) Host() (*plugins.Host, error) { return f.hostFor(true) }

// hostFor is Host; without useConfig it reads no config (the secrets
// provider starts before config.yaml's secrets, or without a config at
// all for the secret flags), and plugins get the default start timeout.
func (f *Factory) hostFor(useConfig bool) (*plugins.Host, error) {
	// The config is read before the lock is taken: reading it may make
	// the host itself (a remote secrets provider), and then tells it the
	// start timeout under the same lock.
	timeout := config.DefaultPluginStartTimeout
	if useConfig {
		if cfg, err := f.Config(); err == nil {
			timeout = cfg.PluginStartTimeout
		}
	}
	f.hostMu.Lock()
	defer f.hostMu.Unlock()
	if f.host != nil {
		return f.host, nil
	}
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	f.host = plugins.New(plugins.Options{
		Dirs:         plugins.SearchPath(p.ConfigDir, f.Env),
		Logger:       f.Logger(),
		StartTimeout: timeout,
		Environ:      f.Environ,
		LockFile:     filepath.Join(p.ConfigDir, plugins.LockFileName),
		CacheDir:     p.CacheDir,
	})
	return f.host, nil
}

// Close stops every plugin the commands started.
func (f *Factory) Close() {
	f.hostMu.Lock()
	h := f.host
	f.hostMu.Unlock()
	if h != nil {
		h.Close()
	}
	if f.forward != nil {
		f.forward.Close()
	}
}

// OnInterrupt makes fn the handler of the next Ctrl-C (SIGINT) instead of
// ending the program, until remove is called: the REPL cancels a reply
// with it and stays.
func (f *Factory) OnInterrupt(fn func()) (remove func()) {
	f.intMu.Lock()
	prev := f.onInt
	f.onInt = fn
	f.intMu.Unlock()
	return func() {
		f.intMu.Lock()
		f.onInt = prev
		f.intMu.Unlock()
	}
}

// HandleInterrupt runs the Ctrl-C handler set by OnInterrupt and reports
// whether there was one; Main ends the program when there was not.
func (f *Factory) HandleInterrupt() bool {
	f.intMu.Lock()
	fn := f.onInt
	f.intMu.Unlock()
	if fn == nil {
		return false
	}
	fn()
	return true
}

// Interactive marks the run as the REPL's: Ctrl-C does not end it, even
// with no reply streaming (readline sees the key itself while it reads).
func (f *Factory) Interactive() (remove func()) {
	return f.OnInterrupt(func() {})
}

// Package config owns where Coyote keeps its files and what the user
// configured: the config and cache directories, config.yaml, the .env file
// and the environment variables that override them. It reads files and the
// environment; it starts nothing and talks to no plugin.
package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Env reads an environment variable. Tests pass a map's lookup instead of
// os.Getenv.
type Env func(key string) string

// Paths are the files and directories Coyote uses.
type Paths struct {
	// ConfigDir holds config.yaml, roles, sessions and the other user files.
	ConfigDir string
	// CacheDir holds the log, history and other files that may be lost.
	CacheDir string
	// ConfigFile is config.yaml (or $COYOTE_CONFIG_FILE).
	ConfigFile string
	// EnvFile is the .env file exported at start-up (or $COYOTE_ENV_FILE).
	EnvFile string
	// LogFile is the kernel log (or $COYOTE_LOG_PATH).
	LogFile string
	// MessagesFile is where non-session exchanges are kept when `save` is
	// on (or $COYOTE_MESSAGES_FILE).
	MessagesFile string
	// The user's files, each overridable by $COYOTE_<NAME>_DIR.
	RolesDir, SessionsDir, RagsDir, MacrosDir, SkillsDir, FunctionsDir, AgentsDir string
	// WorkspaceDir is the current directory's .coyote (or
	// $COYOTE_WORKSPACE_CONFIG_DIR); it may not exist.
	WorkspaceDir string
}

// ResolvePaths finds Coyote's directories the way the original does:
// $COYOTE_CONFIG_DIR, else $XDG_CONFIG_HOME/coyote, else the OS config
// directory; likewise $COYOTE_CACHE_DIR, $XDG_CACHE_HOME/coyote, the OS cache
// directory.
func ResolvePaths(env Env) (Paths, error) {
	var p Paths
	var err error
	if p.ConfigDir, err = dir(env, "COYOTE_CONFIG_DIR", "XDG_CONFIG_HOME", os.UserConfigDir); err != nil {
		return p, errors.New("cannot find a config directory: set COYOTE_CONFIG_DIR or HOME")
	}
	if p.CacheDir, err = dir(env, "COYOTE_CACHE_DIR", "XDG_CACHE_HOME", os.UserCacheDir); err != nil {
		return p, errors.New("cannot find a cache directory: set COYOTE_CACHE_DIR or HOME")
	}
	p.ConfigFile = orDefault(env("COYOTE_CONFIG_FILE"), filepath.Join(p.ConfigDir, "config.yaml"))
	p.EnvFile = orDefault(env("COYOTE_ENV_FILE"), filepath.Join(p.ConfigDir, ".env"))
	p.LogFile = orDefault(env("COYOTE_LOG_PATH"), filepath.Join(p.CacheDir, "coyote.log"))
	p.MessagesFile = orDefault(env("COYOTE_MESSAGES_FILE"), filepath.Join(p.CacheDir, "messages.md"))
	sub := func(name string) string {
		return orDefault(env("COYOTE_"+strings.ToUpper(name)+"_DIR"), filepath.Join(p.ConfigDir, name))
	}
	p.RolesDir, p.SessionsDir, p.RagsDir = sub("roles"), sub("sessions"), sub("rags")
	p.MacrosDir, p.SkillsDir, p.FunctionsDir, p.AgentsDir = sub("macros"), sub("skills"), sub("functions"), sub("agents")
	p.WorkspaceDir = env("COYOTE_WORKSPACE_CONFIG_DIR")
	if p.WorkspaceDir == "" {
		if wd, err := os.Getwd(); err == nil {
			p.WorkspaceDir = filepath.Join(wd, ".coyote")
		}
	}
	return p, nil
}

// List returns the paths with their names, in the order --info shows them.
func (p Paths) List() [][2]string {
	return [][2]string{
		{"config_dir", p.ConfigDir}, {"config_file", p.ConfigFile}, {"env_file", p.EnvFile},
		{"roles_dir", p.RolesDir}, {"sessions_dir", p.SessionsDir}, {"rags_dir", p.RagsDir},
		{"macros_dir", p.MacrosDir}, {"skills_dir", p.SkillsDir}, {"functions_dir", p.FunctionsDir},
		{"agents_dir", p.AgentsDir}, {"workspace_dir", p.WorkspaceDir},
		{"cache_dir", p.CacheDir}, {"messages_file", p.MessagesFile}, {"log_file", p.LogFile},
	}
}

func dir(env Env, own, xdg string, osDefault func() (string, error)) (string, error) {
	if d := env(own); d != "" {
		return d, nil
	}
	if d := env(xdg); d != "" {
		return filepath.Join(d, "coyote"), nil
	}
	d, err := osDefault()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "coyote"), nil
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

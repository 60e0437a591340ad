// Package config owns where Coyote keeps its files and what the user
// configured: the config and cache directories, config.yaml, the .env file
// and the environment variables that override them. It reads files and the
// environment; it starts nothing and talks to no plugin.
package config

import (
	"errors"
	"os"
	"path/filepath"
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
	return p, nil
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

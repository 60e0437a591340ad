// Package update is --update: it reads the project's release feed, picks
// the release of this OS and architecture, checks its SHA-256 (and its
// ed25519 signature when the binary carries a release key), and replaces
// the coyote binary and its plugins as one set.
//
// The feed is a JSON document:
//
//	{"versions": [
//	  {"version": "0.9.1",
//	   "assets": [
//	     {"os": "linux", "arch": "amd64",
//	      "url": "coyote-0.9.1-linux-amd64.tar.gz",
//	      "sha256": "<64 hex digits>",
//	      "signature": "<base64 ed25519 signature of the archive>"}]}]}
//
// An asset's url may be relative to the feed's. The archive is a gzipped
// tar holding the binary (coyote, coyote.exe on Windows) and plugins/
// with the plugin binaries (regular files, or symlinks to a sibling).
package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Feed is the release feed: every published version.
type Feed struct {
	Versions []Release `json:"versions"`
}

// Release is one version and its archives.
type Release struct {
	Version string  `json:"version"`
	Assets  []Asset `json:"assets"`
}

// Asset is the archive of one OS and architecture.
type Asset struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	// Signature is the base64 ed25519 signature of the archive's bytes by
	// the project's release key; empty when the feed is not signed.
	Signature string `json:"signature,omitempty"`
}

// ParseFeed reads a feed, refusing one without versions or with a
// version that has no number.
func ParseFeed(data []byte) (*Feed, error) {
	var f Feed
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read the release feed: %w", err)
	}
	if len(f.Versions) == 0 {
		return nil, errors.New("the release feed lists no version")
	}
	for _, r := range f.Versions {
		if _, ok := parseVersion(r.Version); !ok {
			return nil, fmt.Errorf("the release feed lists the version %q, which is not a version number", r.Version)
		}
	}
	return &f, nil
}

// Pick returns the release of version want, or the newest one when want
// is empty. A leading "v" is ignored.
func (f *Feed) Pick(want string) (*Release, error) {
	want = strings.TrimPrefix(want, "v")
	if want != "" {
		for i := range f.Versions {
			if strings.TrimPrefix(f.Versions[i].Version, "v") == want {
				return &f.Versions[i], nil
			}
		}
		names := make([]string, 0, len(f.Versions))
		for _, r := range f.Versions {
			names = append(names, r.Version)
		}
		return nil, fmt.Errorf("no release %s in the feed (it has %s)", want, strings.Join(names, ", "))
	}
	best := &f.Versions[0]
	for i := range f.Versions[1:] {
		if Compare(f.Versions[i+1].Version, best.Version) > 0 {
			best = &f.Versions[i+1]
		}
	}
	return best, nil
}

// Asset returns the archive of an OS and architecture.
func (r *Release) Asset(goos, goarch string) (*Asset, error) {
	var have []string
	for i, a := range r.Assets {
		if a.OS == goos && a.Arch == goarch {
			return &r.Assets[i], nil
		}
		have = append(have, a.OS+"/"+a.Arch)
	}
	slices.Sort(have)
	return nil, fmt.Errorf("release %s has no archive for %s/%s (only %s)", r.Version, goos, goarch, strings.Join(have, ", "))
}

// version is a parsed "1.2.3" or "1.2.3-rc.1".
type version struct {
	nums [3]int
	pre  string
}

func parseVersion(s string) (version, bool) {
	var v version
	s = strings.TrimPrefix(s, "v")
	s, v.pre, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v.nums[i] = n
	}
	return v, true
}

// Compare orders two versions as semantic versions (a pre-release comes
// before its release); a version that does not parse sorts first.
func Compare(a, b string) int {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	switch {
	case !oka || !okb:
		if oka == okb {
			return strings.Compare(a, b)
		}
		if oka {
			return 1
		}
		return -1
	}
	for i := range va.nums {
		if c := va.nums[i] - vb.nums[i]; c != 0 {
			if c < 0 {
				return -1
			}
			return 1
		}
	}
	switch {
	case va.pre == vb.pre:
		return 0
	case va.pre == "":
		return 1
	case vb.pre == "":
		return -1
	}
	return strings.Compare(va.pre, vb.pre)
}

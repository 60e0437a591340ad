// Package httpx is the HTTP plumbing shared by Coyote's provider plugins:
// the connection settings of a client's `extra:` block (proxy, connect and
// read timeouts), a client whose reads fail after the read timeout of
// silence, one-line errors that match the SDK sentinels and never contain
// the API key, and a line reader for server-sent events. It knows HTTP, not
// any provider's API.
package httpx

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of extra.connect_timeout and extra.read_timeout.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadTimeout    = 300 * time.Second
)

// Options are a client's connection settings.
type Options struct {
	// Proxy picks the proxy of a request; nil means the *_PROXY variables.
	Proxy          func(*http.Request) (*url.URL, error)
	ConnectTimeout time.Duration
	// ReadTimeout is how long the server may stay silent during a reply.
	ReadTimeout time.Duration
}

// ParseExtra reads the `extra:` block of a client's options (nil if
// absent): proxy (http, https or socks5 URL), connect_timeout and
// read_timeout (seconds, or a Go duration string).
func ParseExtra(raw any) (Options, error) {
	o := Options{Proxy: http.ProxyFromEnvironment, ConnectTimeout: DefaultConnectTimeout, ReadTimeout: DefaultReadTimeout}
	if raw == nil {
		return o, nil
	}
	extra, ok := raw.(map[string]any)
	if !ok {
		return o, fmt.Errorf("extra must be a mapping")
	}
	var err error
	if o.ConnectTimeout, err = Seconds(extra["connect_timeout"], DefaultConnectTimeout); err != nil {
		return o, fmt.Errorf("extra.connect_timeout: %v", err)
	}
	if o.ReadTimeout, err = Seconds(extra["read_timeout"], DefaultReadTimeout); err != nil {
		return o, fmt.Errorf("extra.read_timeout: %v", err)
	}
	if v, ok := extra["proxy"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return o, fmt.Errorf("extra.proxy must be a URL string")
		}
		if s = strings.TrimSpace(s); s != "" {
			pu, err := url.Parse(s)
			if err != nil || pu.Host == "" {
				return o, fmt.Errorf("extra.proxy is not a URL such as http://proxy:3128")
			}
			switch pu.Scheme {
			case "http", "https", "socks5", "socks5h":
			default:
				return o, fmt.Errorf("extra.proxy has scheme %q; use http, https or socks5", pu.Scheme)
			}
			o.Proxy = http.ProxyURL(pu)
		}
	}
	return o, nil
}

// Seconds reads a timeout given in seconds (a number, or a string holding a
// number or a Go duration such as "1m30s"). Nil or zero means def.
func Seconds(v any, def time.Duration) (time.Duration, error) {
	var f float64
	switch x := v.(type) {
	case nil:
		return def, nil
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case string:
		x = strings.TrimSpace(x)
		n, err := strconv.ParseFloat(x, 64)
		if err != nil {
			d, derr := time.ParseDuration(x)
			if derr != nil {
				return 0, fmt.Errorf("%q is neither a number of seconds nor a duration", x)
			}
			n = d.Seconds()
		}
		f = n
	default:
		return 0, fmt.Errorf("want a number of seconds, not %T", v)
	}
	if f < 0 || f > 1e7 || math.IsNaN(f) {
		return 0, fmt.Errorf("%v seconds is out of range", f)
	}
	if f == 0 {
		return def, nil
	}
	return time.Duration(f * float64(time.Second)), nil
}

// RetryAfter reads a Retry-After header: seconds, or an HTTP date. It
// returns 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 && n < 1e6 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

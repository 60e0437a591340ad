package qdrantstore

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
)

// Qdrant's default ports: users copy the REST one (the dashboard's) into
// driver_config, this driver speaks gRPC.
const (
	restPort = 6333
	grpcPort = 6334
)

// config is a store's driver_config, checked.
type config struct {
	// host is the bare host name or IP, port the gRPC port.
	host string
	port int
	tls  bool
	// display is the host as the user wrote it, for messages.
	display    string
	collection string
	apiKey     string
}

// addr is host:port, as dialled.
func (c *config) addr() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// parseConfig reads driver_config. storeName is the default collection
// when one is needed (owned stores); attached stores must name theirs.
func parseConfig(dc map[string]any, storeName string, attached bool) (*config, error) {
	c, err := parseServer(dc)
	if err != nil {
		return nil, err
	}
	if c.collection, err = stringKey(dc, "collection"); err != nil {
		return nil, err
	}
	if c.collection == "" {
		if attached {
			return nil, fmt.Errorf("driver_config.collection is missing: an attached RAG names the Qdrant collection it queries: %w", sdk.ErrInvalidArgument)
		}
		c.collection = storeName
	}
	return c, nil
}

// parseServer reads the keys of driver_config that name the server: host,
// api_key and grpc_port.
func parseServer(dc map[string]any) (*config, error) {
	host, err := stringKey(dc, "host")
	if err != nil {
		return nil, err
	}
	if host == "" {
		return nil, fmt.Errorf("driver_config.host is missing: give the Qdrant server's URL, such as http://localhost:6333: %w", sdk.ErrInvalidArgument)
	}
	c, err := parseHost(host)
	if err != nil {
		return nil, err
	}
	if c.apiKey, err = stringKey(dc, "api_key"); err != nil {
		return nil, err
	}
	if v, ok := dc["grpc_port"]; ok && v != nil {
		p, ok := intValue(v)
		if !ok || p < 1 || p > 65535 {
			return nil, fmt.Errorf("driver_config.grpc_port is %v, not a port number: %w", v, sdk.ErrInvalidArgument)
		}
		c.port = p
	}
	return c, nil
}

// parseHost reads a host as the original's attach wizard stored it (a
// REST URL, http://localhost:6333) or as host[:port].
func parseHost(s string) (*config, error) {
	c := &config{display: s}
	raw := strings.TrimSpace(s)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("driver_config.host %q is not a URL or host[:port]: %w", s, sdk.ErrInvalidArgument)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "grpc":
	case "https", "grpcs":
		c.tls = true
	default:
		return nil, fmt.Errorf("driver_config.host %q: scheme %q is neither http nor https: %w", s, u.Scheme, sdk.ErrInvalidArgument)
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("driver_config.host %q has a path; Qdrant's gRPC API is served at the root: %w", s, sdk.ErrInvalidArgument)
	}
	c.host = u.Hostname()
	c.port = grpcPort
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("driver_config.host %q: bad port %q: %w", s, p, sdk.ErrInvalidArgument)
		}
		if n != restPort {
			c.port = n
		}
	}
	return c, nil
}

// skipsProxy reports whether host (a name or an IP, without port) is local
// or on a private network, where a corporate proxy from the environment
// cannot reach and must not be used.
func skipsProxy(host string) bool {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
	}
	name := strings.ToLower(host)
	return name == "localhost" || strings.HasSuffix(name, ".localhost") || strings.HasSuffix(name, ".local")
}

func stringKey(dc map[string]any, key string) (string, error) {
	v, ok := dc[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("driver_config.%s is a %T, not a string: %w", key, v, sdk.ErrInvalidArgument)
	}
	return strings.TrimSpace(s), nil
}

// intValue reads a number as YAML, JSON or protobuf decoding may have left
// it.
func intValue(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case uint64:
		if n > math.MaxInt32 {
			return 0, false
		}
		return int(n), true
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > math.MaxInt32 {
			return 0, false
		}
		return int(n), true
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(n))
		return i, err == nil
	}
	return 0, false
}

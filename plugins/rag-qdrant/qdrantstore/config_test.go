package qdrantstore

import (
	"errors"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
)

func TestHostsAsTheOriginalStoredThemReachTheGRPCPort(t *testing.T) {
	for _, tt := range []struct {
		in   string
		addr string
		tls  bool
	}{
		{"http://localhost:6333", "localhost:6334", false}, // the REST port the original asked for
		{"localhost:6333", "localhost:6334", false},
		{"localhost", "localhost:6334", false},
		{"qdrant.example.com:6333", "qdrant.example.com:6334", false},
		{"https://xyz.eu-central.aws.cloud.qdrant.io:6333", "xyz.eu-central.aws.cloud.qdrant.io:6334", true},
		{"https://xyz.cloud.qdrant.io", "xyz.cloud.qdrant.io:6334", true},
		{"http://127.0.0.1:16334", "127.0.0.1:16334", false}, // any other port is taken as gRPC's
		{"http://[::1]:6334/", "[::1]:6334", false},
		{"grpcs://q.internal:443", "q.internal:443", true},
		{"  http://localhost:6333  ", "localhost:6334", false},
	} {
		c, err := parseHost(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if c.addr() != tt.addr || c.tls != tt.tls {
			t.Errorf("%q: addr %s tls %v, want %s tls %v", tt.in, c.addr(), c.tls, tt.addr, tt.tls)
		}
	}
}

func TestGRPCPortOverridesTheHostsPort(t *testing.T) {
	c, err := parseConfig(map[string]any{"host": "http://q:6333", "collection": "c", "grpc_port": 7000}, "kb", true)
	if err != nil || c.addr() != "q:7000" {
		t.Fatalf("addr %v, err %v", c, err)
	}
	c, err = parseConfig(map[string]any{"host": "http://q", "grpc_port": float64(7001)}, "kb", false)
	if err != nil || c.addr() != "q:7001" || c.collection != "kb" {
		t.Fatalf("config %+v, err %v", c, err)
	}
}

func TestBadHostsAreInvalidArguments(t *testing.T) {
	for _, in := range []string{"ftp://q", "http://q:0", "http://q:70000", "http://q:6333/collections", "http://:6333"} {
		if _, err := parseHost(in); !errors.Is(err, sdk.ErrInvalidArgument) {
			t.Errorf("%q: err = %v", in, err)
		}
	}
}

func TestLocalAndPrivateHostsSkipTheProxy(t *testing.T) {
	for _, host := range []string{
		"localhost", "LOCALHOST", "api.localhost", "qdrant.local",
		"127.0.0.1", "192.168.0.56", "10.1.2.3", "172.16.4.5", "169.254.1.1",
		"::1", "[::1]", "fd12:3456::1", "fe80::1", "::ffff:10.0.0.1",
	} {
		if !skipsProxy(host) {
			t.Errorf("%s should not be proxied", host)
		}
	}
}

func TestPublicHostsStillHonourTheEnvironmentsProxy(t *testing.T) {
	for _, host := range []string{
		"qdrant.example.com", "8.8.8.8", "xyz.eu-central.aws.cloud.qdrant.io", "172.32.0.1", "2001:db8::1", "localhost.example.com",
	} {
		if skipsProxy(host) {
			t.Errorf("%s must keep the environment's proxy", host)
		}
	}
}

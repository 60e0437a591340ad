package mcpconf

import (
	"reflect"
	"testing"
)

// Any mcp.json either parses or is refused with an error, never a panic;
// a file that parses is written back (Encode) to a file that parses to the
// same servers.
func FuzzParseEncode(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers":{"fs":{"command":"npx","args":["-y","x"],"env":{"A":"1","B":true,"C":3}}}}`,
		`{"mcpServers":{"gh":{"type":"http","url":"https://x/mcp","headers":{"Authorization":"Bearer {{T}}"},"oauth":{"clientId":"c","callbackPort":8080}}}}`,
		`{"mcpServers":{"s":{"type":"sse","url":"http://localhost:1/sse"}}}`,
		`{"mcpServers":{}}`,
		`{"mcpServers":{"x":{"command":"a","url":"b"}}}`,
		`[]`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("mcp.json", data)
		if err != nil {
			return
		}
		again, err := Parse("mcp.json", file.Encode())
		if err != nil {
			t.Fatalf("Encode wrote a file Parse refuses: %v\n%s", err, file.Encode())
		}
		if len(again.Servers) != len(file.Servers) {
			t.Fatalf("%d servers, then %d", len(file.Servers), len(again.Servers))
		}
		for i := range file.Servers {
			a, b := *file.Servers[i], *again.Servers[i]
			a.line, b.line, a.raw, b.raw = 0, 0, nil, nil
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("server %d changed through Encode:\n%+v\n%+v", i, a, b)
			}
		}
	})
}

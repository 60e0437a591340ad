package install

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/coyote-cli/coyote/kernel/mcpconf"
)

// ServerChoice is the answer to a server of a bundle's mcp.json that the
// user's mcp.json has with another definition.
type ServerChoice int

// Keep the user's server, take the bundle's in its place, or add the
// bundle's under the name <name>-remote.
const (
	KeepServer ServerChoice = iota
	TakeServer
	RenameServer
	AbortServers
)

// ServerResolver decides a server conflict: mine is the user's server,
// theirs the bundle's of the same name.
type ServerResolver func(mine, theirs *mcpconf.Server) (ServerChoice, error)

// ServerChange is a server a merge adds or replaces.
type ServerChange struct {
	Server *mcpconf.Server // as written (its new name, when renamed)
	// From is the bundle's name when it was renamed, else "".
	From     string
	Replaces bool
}

// MergeMCP merges the bundle's servers into the user's file (in memory;
// the caller saves it): a new name is added, the same server is left
// alone, a different one of the same name is decided by resolve (nil
// keeps the user's). It returns the changes, in the bundle's order, the
// names kept, and ErrAborted when resolve says AbortServers.
func MergeMCP(dst, src *mcpconf.File, resolve ServerResolver) (changes []ServerChange, kept []string, err error) {
	for _, theirs := range src.Servers {
		mine := dst.Get(theirs.Name)
		if mine == nil {
			dst.Put(theirs)
			changes = append(changes, ServerChange{Server: theirs})
			continue
		}
		if sameServer(mine, theirs) {
			continue
		}
		choice := KeepServer
		if resolve != nil {
			if choice, err = resolve(mine, theirs); err != nil {
				return nil, nil, err
			}
		}
		switch choice {
		case KeepServer:
			kept = append(kept, theirs.Name)
		case TakeServer:
			dst.Put(theirs)
			changes = append(changes, ServerChange{Server: theirs, Replaces: true})
		case RenameServer:
			renamed := *theirs
			renamed.Name = theirs.Name + "-remote"
			if prev := dst.Get(renamed.Name); prev != nil && sameServer(prev, theirs) {
				continue // installed under that name before
			}
			renamed.Name = freeName(dst, renamed.Name)
			dst.Put(&renamed)
			changes = append(changes, ServerChange{Server: &renamed, From: theirs.Name})
		default:
			return nil, nil, ErrAborted
		}
	}
	return changes, kept, nil
}

// freeName is name, or name-2, name-3, … when the file has it with
// another definition.
func freeName(f *mcpconf.File, name string) string {
	if f.Get(name) == nil {
		return name
	}
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s-%d", name, i)
		if f.Get(n) == nil {
			return n
		}
	}
}

// sameServer reports whether two servers are defined alike, whatever
// their spacing and order, and whether "type" is written or implied.
func sameServer(a, b *mcpconf.Server) bool {
	return reflect.DeepEqual(serverValue(a), serverValue(b))
}

func serverValue(s *mcpconf.Server) map[string]any {
	var v map[string]any
	if err := json.Unmarshal(s.JSON(), &v); err != nil || v == nil {
		v = map[string]any{}
	}
	if _, ok := v["type"]; !ok {
		v["type"] = s.Transport()
	}
	return v
}

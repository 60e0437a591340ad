// Package vault is the contract between the Coyote kernel and a secrets
// provider plugin, coyote-vault-<name>: where the {{NAME}} secrets of
// config.yaml, mcp.json and the RAG settings are kept when the
// secrets_provider of config.yaml is not the local vault (AWS Secrets
// Manager, GCP Secret Manager, Azure Key Vault, gopass, 1Password).
//
// A plugin implements Vault (Configure and a batched Get) and any of
// Setter, Updater, Deleter and Lister; Plugin announces the matching
// capabilities (CapSet, CapUpdate, CapDelete, CapList), and the kernel
// refuses an operation the plugin does not announce with one readable line.
//
// Secret values cross only the plugin's gRPC connection: a plugin must
// never put one in a command line or an environment variable of a process
// it starts (pipe it to standard input instead), in its log, or in an
// error message. Errors name the provider and the secret and say what to
// do, in one line, wrapping an sdk sentinel (sdk.ErrUnauthenticated for
// missing or expired credentials, sdk.ErrPermissionDenied,
// sdk.ErrUnavailable for an unreachable service, sdk.ErrNotFound).
//
// The types here are the public, hand-written contract; grpc.go is the
// only file that knows the generated wire types.
package vault

import (
	"context"
	"sync"
)

// Vault is implemented by every secrets provider plugin and by the
// kernel's client.
type Vault interface {
	// Configure gives the plugin the settings of config.yaml's
	// secrets_provider block (every key but type, values as text). A
	// plugin refuses a key it does not know, naming it. It is called
	// before any other method, and again in each new process.
	Configure(ctx context.Context, req *ConfigureRequest) error
	// Get returns the values of the named secrets: in one request to the
	// service where its API allows (the kernel asks for all the secrets a
	// run needs at once). A name that does not exist is in
	// GetResponse.Missing, not an error; any other failure is.
	Get(ctx context.Context, req *GetRequest) (*GetResponse, error)
}

// Setter creates secrets (capability CapSet). Set fails on a name that
// exists already.
type Setter interface {
	Set(ctx context.Context, req *SetRequest) error
}

// Updater changes existing secrets (capability CapUpdate). Update fails
// with sdk.ErrNotFound on a name that does not exist.
type Updater interface {
	Update(ctx context.Context, req *SetRequest) error
}

// Deleter removes secrets (capability CapDelete), failing with
// sdk.ErrNotFound on a name that does not exist.
type Deleter interface {
	Delete(ctx context.Context, req *DeleteRequest) error
}

// Lister lists the names of the secrets (capability CapList).
type Lister interface {
	List(ctx context.Context) ([]string, error)
}

// Capabilities a secrets provider plugin announces in Describe.
const (
	CapSet    = "set"
	CapUpdate = "update"
	CapDelete = "delete"
	CapList   = "list"
)

// ConfigureRequest carries config.yaml's secrets_provider settings.
type ConfigureRequest struct {
	// Settings are the keys of the block but type, as the original names
	// them (aws_profile, aws_region, gcp_project_id, vault_name, store,
	// vault, account, …).
	Settings map[string]string
}

// GetRequest names the secrets wanted, each once.
type GetRequest struct{ Names []string }

// GetResponse has the value of each secret found and the names of those
// that do not exist.
type GetResponse struct {
	Values  map[string]string
	Missing []string
}

// SetRequest is a secret's name and its new value.
type SetRequest struct{ Name, Value string }

// DeleteRequest names the secret to remove.
type DeleteRequest struct{ Name string }

// GetEach answers a Get for a service with no batched read: it reads every
// name at once with get, which returns the value, or found false for a
// secret that does not exist. The first error (in the order of names) fails
// the whole Get; missing names are listed in Missing.
func GetEach(ctx context.Context, names []string, get func(ctx context.Context, name string) (value string, found bool, err error)) (*GetResponse, error) {
	type result struct {
		value string
		found bool
		err   error
	}
	results := make([]result, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			v, found, err := get(ctx, n)
			results[i] = result{v, found, err}
		})
	}
	wg.Wait()
	out := &GetResponse{Values: map[string]string{}}
	for i, n := range names {
		switch r := results[i]; {
		case r.err != nil:
			return nil, r.err
		case !r.found:
			out.Missing = append(out.Missing, n)
		default:
			out.Values[n] = r.value
		}
	}
	return out, nil
}

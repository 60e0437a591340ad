// Package gsm keeps Coyote's secrets in Google Cloud Secret Manager with
// the official client (cloud.google.com/go/secretmanager, over REST): a
// secret NAME is projects/<gcp_project_id>/secrets/NAME, its value the
// latest version. Credentials are Application Default Credentials
// (gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS,
// or the metadata server).
//
// Secret Manager has no batched read: Get reads the secrets concurrently,
// so a run's secrets cost one round trip. Set creates the secret
// (automatic replication) and its first version; Update adds a version.
package gsm

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	secretmanager "cloud.google.com/go/secretmanager/apiv1"
	"cloud.google.com/go/secretmanager/apiv1/secretmanagerpb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// Info describes the plugin.
var Info = sdk.Info{Name: "gcp", Version: "0.1.0", Description: "secrets in Google Cloud Secret Manager"}

const callTimeout = 30 * time.Second

// Vault is the Secret Manager secrets provider.
type Vault struct {
	mu      sync.Mutex
	client  *secretmanager.Client
	project string
}

// New returns the provider; Configure sets it up.
func New() *Vault { return &Vault{} }

// Configure takes the original's setting gcp_project_id, and endpoint
// (Coyote's: a regional or private Secret Manager endpoint).
func (v *Vault) Configure(ctx context.Context, req *vault.ConfigureRequest) error {
	var project, endpoint string
	for k, val := range req.Settings {
		switch k {
		case "gcp_project_id":
			project = val
		case "endpoint":
			endpoint = val
		default:
			return fmt.Errorf("secrets_provider gcp_secret_manager: unknown setting %q (it takes gcp_project_id and endpoint): %w", k, sdk.ErrInvalidArgument)
		}
	}
	if project == "" {
		return fmt.Errorf("secrets_provider gcp_secret_manager: set gcp_project_id: %w", sdk.ErrInvalidArgument)
	}
	var opts []option.ClientOption
	if endpoint != "" {
		opts = append(opts, option.WithEndpoint(endpoint))
	}
	client, err := secretmanager.NewRESTClient(ctx, opts...)
	if err != nil {
		return fmt.Errorf("Google Cloud Secret Manager: %s (run gcloud auth application-default login): %w", firstLine(err.Error()), sdk.ErrUnauthenticated)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.client != nil {
		_ = v.client.Close()
	}
	v.client, v.project = client, project
	return nil
}

func (v *Vault) sm() (*secretmanager.Client, string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.client == nil {
		return nil, "", fmt.Errorf("Google Cloud Secret Manager: not configured: %w", sdk.ErrFailedPrecondition)
	}
	return v.client, "projects/" + v.project, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// code is the gRPC code of a client error (REST errors carry one too).
func code(err error) codes.Code {
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		if st := ae.GRPCStatus(); st != nil && st.Code() != codes.Unknown {
			return st.Code()
		}
		switch ae.HTTPCode() {
		case 404:
			return codes.NotFound
		case 409:
			return codes.AlreadyExists
		case 401:
			return codes.Unauthenticated
		case 403:
			return codes.PermissionDenied
		}
	}
	return codes.Unknown
}

// fail makes a client error one line naming the secret and what to do.
func (v *Vault) fail(op, name string, err error) error {
	subject := "Google Cloud Secret Manager (project " + v.project + ") " + op
	if name != "" {
		subject += " " + name
	}
	switch code(err) {
	case codes.NotFound:
		return fmt.Errorf("%s: the secret does not exist: %w", subject, sdk.ErrNotFound)
	case codes.AlreadyExists:
		return fmt.Errorf("%s: the secret exists already: %w", subject, sdk.ErrFailedPrecondition)
	case codes.Unauthenticated:
		return fmt.Errorf("%s: the Google credentials are missing or expired (run gcloud auth application-default login): %w", subject, sdk.ErrUnauthenticated)
	case codes.PermissionDenied:
		return fmt.Errorf("%s: permission denied (the account needs a Secret Manager role on project %s): %w", subject, v.project, sdk.ErrPermissionDenied)
	}
	msg := firstLine(err.Error())
	if strings.Contains(msg, "oauth2") || strings.Contains(msg, "credentials") {
		return fmt.Errorf("%s: cannot get Google credentials: %s (run gcloud auth application-default login): %w", subject, msg, sdk.ErrUnauthenticated)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: cannot reach the service: %s (check the network): %w", subject, msg, sdk.ErrUnavailable)
	}
	return fmt.Errorf("%s: %s: %w", subject, msg, sdk.ErrUnavailable)
}

// Get reads the latest version of each secret, concurrently.
func (v *Vault) Get(ctx context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	c, parent, err := v.sm()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return vault.GetEach(ctx, req.Names, func(ctx context.Context, n string) (string, bool, error) {
		resp, err := c.AccessSecretVersion(ctx, &secretmanagerpb.AccessSecretVersionRequest{Name: parent + "/secrets/" + n + "/versions/latest"})
		switch {
		case code(err) == codes.NotFound:
			return "", false, nil
		case err != nil:
			return "", false, v.fail("get", n, err)
		}
		data := resp.GetPayload().GetData()
		if sum := resp.GetPayload().DataCrc32C; sum != nil && int64(crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))) != *sum {
			return "", false, fmt.Errorf("Google Cloud Secret Manager get %s: the value arrived damaged (checksum mismatch): %w", n, sdk.ErrBadResponse)
		}
		return string(data), true, nil
	})
}

func (v *Vault) addVersion(ctx context.Context, c *secretmanager.Client, secret, value string) error {
	sum := int64(crc32.Checksum([]byte(value), crc32.MakeTable(crc32.Castagnoli)))
	_, err := c.AddSecretVersion(ctx, &secretmanagerpb.AddSecretVersionRequest{
		Parent:  secret,
		Payload: &secretmanagerpb.SecretPayload{Data: []byte(value), DataCrc32C: &sum},
	})
	return err
}

// Set creates the secret and its first version.
func (v *Vault) Set(ctx context.Context, req *vault.SetRequest) error {
	c, parent, err := v.sm()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	s, err := c.CreateSecret(ctx, &secretmanagerpb.CreateSecretRequest{
		Parent:   parent,
		SecretId: req.Name,
		Secret: &secretmanagerpb.Secret{
			Replication: &secretmanagerpb.Replication{Replication: &secretmanagerpb.Replication_Automatic_{Automatic: &secretmanagerpb.Replication_Automatic{}}},
			Labels:      map[string]string{"managed-by": "coyote"},
		},
	})
	if err != nil {
		return v.fail("add", req.Name, err)
	}
	if err := v.addVersion(ctx, c, s.GetName(), req.Value); err != nil {
		return v.fail("add", req.Name, err)
	}
	return nil
}

// Update adds a version to an existing secret.
func (v *Vault) Update(ctx context.Context, req *vault.SetRequest) error {
	c, parent, err := v.sm()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := v.addVersion(ctx, c, parent+"/secrets/"+req.Name, req.Value); err != nil {
		return v.fail("update", req.Name, err)
	}
	return nil
}

// Delete removes a secret and its versions.
func (v *Vault) Delete(ctx context.Context, req *vault.DeleteRequest) error {
	c, parent, err := v.sm()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.DeleteSecret(ctx, &secretmanagerpb.DeleteSecretRequest{Name: parent + "/secrets/" + req.Name}); err != nil {
		return v.fail("delete", req.Name, err)
	}
	return nil
}

// List returns the names of the project's secrets.
func (v *Vault) List(ctx context.Context) ([]string, error) {
	c, parent, err := v.sm()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var names []string
	it := c.ListSecrets(ctx, &secretmanagerpb.ListSecretsRequest{Parent: parent})
	for {
		s, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, v.fail("list", "", err)
		}
		names = append(names, s.GetName()[strings.LastIndex(s.GetName(), "/")+1:])
	}
	sort.Strings(names)
	return names, nil
}

var (
	_ vault.Setter  = (*Vault)(nil)
	_ vault.Updater = (*Vault)(nil)
	_ vault.Deleter = (*Vault)(nil)
	_ vault.Lister  = (*Vault)(nil)
)

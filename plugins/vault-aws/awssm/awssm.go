// Package awssm keeps Coyote's secrets in AWS Secrets Manager, with the
// official SDK (aws-sdk-go-v2): a secret NAME is the secret named NAME,
// its value the SecretString. Credentials are the AWS SDK's usual chain
// (environment, aws_profile or AWS_PROFILE in ~/.aws, SSO after aws sso
// login, instance roles); the region is aws_region, else the profile's.
//
// Get asks for up to 20 secrets per BatchGetSecretValue request, so a run
// with a few secrets costs one round trip. Delete removes a secret at once
// (ForceDeleteWithoutRecovery), as the local vault does, so that its name
// can be used again.
package awssm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/vault"
)

// Info describes the plugin.
var Info = sdk.Info{Name: "aws", Version: "0.1.0", Description: "secrets in AWS Secrets Manager"}

// batchSize is BatchGetSecretValue's limit of names per request.
const batchSize = 20

// callTimeout bounds one operation, retries included.
const callTimeout = 30 * time.Second

// Vault is the AWS Secrets Manager secrets provider.
type Vault struct {
	mu     sync.Mutex
	client *secretsmanager.Client
	// profile and region name the provider in messages.
	profile, region string
}

// New returns the provider; Configure sets it up.
func New() *Vault { return &Vault{} }

// Configure takes the original's settings, aws_profile and aws_region
// (both optional), and endpoint (Coyote's: a Secrets Manager endpoint
// other than AWS's own, such as a VPC endpoint or a local emulator;
// AWS_ENDPOINT_URL_SECRETS_MANAGER does the same).
func (v *Vault) Configure(ctx context.Context, req *vault.ConfigureRequest) error {
	var opts []func(*config.LoadOptions) error
	var endpoint, profile string
	for k, val := range req.Settings {
		switch k {
		case "aws_profile":
			profile = val
			opts = append(opts, config.WithSharedConfigProfile(val))
		case "aws_region":
			opts = append(opts, config.WithRegion(val))
		case "endpoint":
			endpoint = val
		default:
			return fmt.Errorf("secrets_provider aws_secrets_manager: unknown setting %q (it takes aws_profile, aws_region and endpoint): %w", k, sdk.ErrInvalidArgument)
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return fmt.Errorf("AWS Secrets Manager: load the AWS configuration%s: %v (check ~/.aws/config, or run aws configure): %w", profileNote(profile), err, sdk.ErrFailedPrecondition)
	}
	if cfg.Region == "" {
		return fmt.Errorf("AWS Secrets Manager: no region: set aws_region in secrets_provider (or a region in the AWS profile): %w", sdk.ErrInvalidArgument)
	}
	client := secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	v.mu.Lock()
	defer v.mu.Unlock()
	v.client, v.profile, v.region = client, profile, cfg.Region
	return nil
}

func profileNote(p string) string {
	if p == "" {
		return ""
	}
	return " (profile " + p + ")"
}

func (v *Vault) sm() (*secretsmanager.Client, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.client == nil {
		return nil, fmt.Errorf("AWS Secrets Manager: not configured: %w", sdk.ErrFailedPrecondition)
	}
	return v.client, nil
}

// fail makes an SDK error one line naming the secret and saying what to
// do, wrapping the sdk sentinel of its class.
func (v *Vault) fail(op, name string, err error) error {
	subject := "AWS Secrets Manager (" + v.region + profileNote(v.profile) + ")"
	if name != "" {
		subject += " " + op + " " + name
	} else {
		subject += " " + op
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		msg := api.ErrorMessage()
		if msg == "" {
			msg = api.ErrorCode()
		}
		switch api.ErrorCode() {
		case "ResourceNotFoundException":
			return fmt.Errorf("%s: the secret does not exist: %w", subject, sdk.ErrNotFound)
		case "ResourceExistsException":
			return fmt.Errorf("%s: the secret exists already: %w", subject, sdk.ErrFailedPrecondition)
		case "AccessDeniedException", "AccessDenied":
			return fmt.Errorf("%s: access denied: %s (the IAM identity needs secretsmanager permissions on it): %w", subject, firstLine(msg), sdk.ErrPermissionDenied)
		case "UnrecognizedClientException", "InvalidSignatureException", "ExpiredTokenException", "ExpiredToken", "InvalidClientTokenId", "SignatureDoesNotMatch":
			return fmt.Errorf("%s: the AWS credentials are invalid or expired: %s (run aws sso login, or aws configure): %w", subject, firstLine(msg), sdk.ErrUnauthenticated)
		case "InvalidRequestException":
			if strings.Contains(msg, "scheduled for deletion") {
				return fmt.Errorf("%s: a secret of that name is scheduled for deletion: restore it (aws secretsmanager restore-secret) or wait: %w", subject, sdk.ErrFailedPrecondition)
			}
		}
		return fmt.Errorf("%s: %s: %s: %w", subject, api.ErrorCode(), firstLine(msg), sdk.ErrUnavailable)
	}
	if strings.Contains(err.Error(), "failed to retrieve credentials") || strings.Contains(err.Error(), "no EC2 IMDS role found") || strings.Contains(err.Error(), "SSO") && strings.Contains(err.Error(), "token") {
		return fmt.Errorf("%s: no usable AWS credentials (run aws sso login, or aws configure%s): %w", subject, profileNote(v.profile), sdk.ErrUnauthenticated)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: cannot reach the service: %s (check the network, aws_region and endpoint): %w", subject, firstLine(err.Error()), sdk.ErrUnavailable)
	}
	return fmt.Errorf("%s: %s: %w", subject, firstLine(err.Error()), sdk.ErrUnavailable)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// Get reads the secrets, batchSize names per request.
func (v *Vault) Get(ctx context.Context, req *vault.GetRequest) (*vault.GetResponse, error) {
	c, err := v.sm()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp := &vault.GetResponse{Values: map[string]string{}}
	for start := 0; start < len(req.Names); start += batchSize {
		names := req.Names[start:min(start+batchSize, len(req.Names))]
		out, err := c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: names})
		if err != nil {
			return nil, v.fail("get", strings.Join(names, ", "), err)
		}
		for _, s := range out.SecretValues {
			if s.Name != nil && s.SecretString != nil {
				resp.Values[*s.Name] = *s.SecretString
			}
		}
		for _, e := range out.Errors {
			name := aws.ToString(e.SecretId)
			switch aws.ToString(e.ErrorCode) {
			case "ResourceNotFoundException":
				continue // listed as missing below
			default:
				return nil, v.fail("get", name, &smithy.GenericAPIError{Code: aws.ToString(e.ErrorCode), Message: aws.ToString(e.Message)})
			}
		}
		for _, n := range names {
			if _, ok := resp.Values[n]; !ok {
				resp.Missing = append(resp.Missing, n)
			}
		}
	}
	return resp, nil
}

// Set creates a secret.
func (v *Vault) Set(ctx context.Context, req *vault.SetRequest) error {
	c, err := v.sm()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name:         aws.String(req.Name),
		SecretString: aws.String(req.Value),
		Description:  aws.String("Coyote secret, used in config files as {{" + req.Name + "}}"),
	})
	if err != nil {
		return v.fail("add", req.Name, err)
	}
	return nil
}

// Update stores a new version of an existing secret.
func (v *Vault) Update(ctx context.Context, req *vault.SetRequest) error {
	c, err := v.sm()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String(req.Name), SecretString: aws.String(req.Value)}); err != nil {
		return v.fail("update", req.Name, err)
	}
	return nil
}

// Delete removes a secret at once.
func (v *Vault) Delete(ctx context.Context, req *vault.DeleteRequest) error {
	c, err := v.sm()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := c.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String(req.Name), ForceDeleteWithoutRecovery: aws.Bool(true)}); err != nil {
		return v.fail("delete", req.Name, err)
	}
	return nil
}

// List returns the names of the secrets.
func (v *Vault) List(ctx context.Context) ([]string, error) {
	c, err := v.sm()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var names []string
	p := secretsmanager.NewListSecretsPaginator(c, &secretsmanager.ListSecretsInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, v.fail("list", "", err)
		}
		for _, s := range page.SecretList {
			names = append(names, aws.ToString(s.Name))
		}
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

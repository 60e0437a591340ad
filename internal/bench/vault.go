package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/vault-aws/awsfake"
)

// vaultLatency is the remote provider's simulated network latency.
const vaultLatency = 20 * time.Millisecond

// vaultBench measures a one-shot prompt's first byte when config.yaml
// names 3 secrets: from the local vault, and from a remote provider (the
// real coyote-vault-aws plugin against the AWS fake, answering in 0 ms
// and in vaultLatency). The remote's cost of the latency is the
// difference of its two runs: one batched round trip is about
// vaultLatency, one request per secret would be three.
func vaultBench(bin string, runs int) ([]row, error) {
	coyote := filepath.Join(bin, "coyote")
	if _, err := os.Stat(filepath.Join(bin, "plugins", "coyote-vault-aws")); err != nil {
		return nil, fmt.Errorf("vault: %w (run make build)", err)
	}
	work, err := os.MkdirTemp("", "coyote-bench-vault-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	secrets := map[string]string{"KEY_ONE": "sk-bench-one", "KEY_TWO": "sk-bench-two", "KEY_THREE": "sk-bench-three"}
	llm := httptest.NewServer((&fakellm.OpenAI{APIKey: "sk-bench-one", Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "ok"}
	}}).Handler())
	defer llm.Close()
	clients := fmt.Sprintf(`model: fake:gpt-4o-mini
clients:
  - type: openai-compatible
    name: fake
    api_base: %s/v1
    api_key: '{{KEY_ONE}}'
    models:
      - name: gpt-4o-mini
  - type: openai-compatible
    name: two
    api_base: %s/v1
    api_key: '{{KEY_TWO}}'
  - type: openai-compatible
    name: three
    api_base: %s/v1
    api_key: '{{KEY_THREE}}'
`, llm.URL, llm.URL, llm.URL)
	envFor := func(name, extra string, vars ...string) ([]string, error) {
		dir := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Join(dir, "config"), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "config", "config.yaml"), []byte(extra+clients), 0o600); err != nil {
			return nil, err
		}
		return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
			"COYOTE_CONFIG_DIR=" + filepath.Join(dir, "config"), "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}, vars...), nil
	}

	// The local vault, its 3 secrets added through coyote.
	pw := filepath.Join(work, "vault-password")
	if err := os.WriteFile(pw, []byte("bench vault password\n"), 0o600); err != nil {
		return nil, err
	}
	localEnv, err := envFor("local", "vault_password_file: "+pw+"\n")
	if err != nil {
		return nil, err
	}
	for name, value := range secrets {
		c := exec.Command(coyote, "--add-secret", name)
		c.Env, c.Stdin = localEnv, strings.NewReader(value+"\n")
		if out, err := c.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("vault: --add-secret %s: %v: %s", name, err, out)
		}
	}

	fake := awsfake.New(secrets)
	defer fake.Close()
	remoteEnv, err := envFor("aws", fmt.Sprintf("secrets_provider:\n  type: aws_secrets_manager\n  aws_region: %s\n  endpoint: %s\n", awsfake.Region, fake.URL),
		"AWS_ACCESS_KEY_ID="+awsfake.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+awsfake.SecretAccessKey,
		"AWS_CONFIG_FILE="+filepath.Join(work, "aws-config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(work, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED=true")
	if err != nil {
		return nil, err
	}
	oneShot := func(env []string) func() time.Duration {
		return func() time.Duration {
			c := exec.Command(coyote, "hi")
			c.Env = env
			first, _, err := firstByte(c)
			return mustDuration(first, err)
		}
	}
	localT := median(runs, oneShot(localEnv))
	fake.Latency = 0
	remote0 := median(runs, oneShot(remoteEnv))
	fake.Latency = vaultLatency
	before := len(fake.Requests())
	remote20 := median(runs, oneShot(remoteEnv))
	perRun := float64(len(fake.Requests())-before) / float64(runs+1)
	added := remote20 - remote0
	return []row{
		{"one-shot first byte, 3 secrets from the local vault", ms(localT), "", "", ""},
		{"one-shot first byte, 3 secrets from AWS (fake, 0 ms)", ms(remote0), "", "vs local " + ms(remote0-localT) + " (plugin start, no Argon2id)", ""},
		{fmt.Sprintf("one-shot first byte, 3 secrets from AWS (fake, %d ms)", vaultLatency/time.Millisecond), ms(remote20),
			fmt.Sprintf("latency added ≤ %s (one round trip ×1.2)", ms(vaultLatency*12/10)),
			fmt.Sprintf("added %s over 0 ms; %.1f requests a run; vs local %s", ms(added), perRun, ms(remote20-localT)),
			withinTarget(added, vaultLatency*12/10)},
	}, nil
}

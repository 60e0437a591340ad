package input

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/vault"
)

// A document_loaders command is a shell script run by sh, written by the
// user: `pdftotext $1 -`, `pandoc "$1"`, `curl -H "Authorization: Bearer
// {{JINA_API_KEY}}" https://r.jina.ai/$1`.
//
// The resource (a path or URL, which may have any bytes in it) is never
// pasted into the script: it is sh's positional parameter $1, so whatever
// quoting the user wrote around $1 is correct, and a bare $1 (as in the
// original's own `pdftotext $1 -`) is quoted, so a path with spaces or
// glob characters stays one word. $1 inside '…' is left alone: it belongs
// to the user's program there (awk '{print $1}'). $2, when the script
// names it, is a temporary file the loader writes its output to; otherwise
// its standard output is the document.
//
// A {{NAME}} placeholder is replaced by a reference to an environment
// variable that holds the secret, quoted for where it stands (bare, inside
// '…' or inside "…"), so the secret is part of neither the command line
// nor any message that quotes the command: errors quote the template.

// loaderDoc runs a document_loaders command on a path or URL.
func loaderDoc(ctx context.Context, template, resource string, opts Options) ([]Document, error) {
	out, err := runLoader(ctx, template, resource, opts)
	if err != nil {
		return nil, fmt.Errorf("loader `%s`: %w", template, err)
	}
	return []Document{{Name: resource, Text: out}}, nil
}

func runLoader(ctx context.Context, template, resource string, opts Options) (string, error) {
	script, secretEnv, err := loaderScript(template, opts.Secret)
	if err != nil {
		return "", err
	}
	args := []string{"-c", script, "sh", resource}
	var outFile string
	if strings.Contains(script, "$2") || strings.Contains(script, "${2}") {
		dir, err := os.MkdirTemp("", "coyote-loader-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		outFile = filepath.Join(dir, "out")
		args = append(args, outFile)
	}
	c := exec.CommandContext(ctx, "sh", args...)
	c.Dir = opts.Dir
	if len(secretEnv) > 0 {
		c.Env = append(os.Environ(), secretEnv...)
	}
	stdout, err := output(c)
	if err != nil {
		return "", err
	}
	if outFile == "" {
		return string(stdout), nil
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		return "", fmt.Errorf("the loader wrote no output file ($2): %w", err)
	}
	return string(data), nil
}

// loaderScript turns a loader template into the script sh runs and the
// environment variables that carry its secrets.
func loaderScript(template string, secret func(name string) (string, error)) (string, []string, error) {
	if !strings.Contains(template, "{{") && !strings.Contains(template, "$") {
		return template, nil, nil
	}
	var (
		b     strings.Builder
		env   []string
		seen  = map[string]bool{}
		quote byte // 0, '\'' or '"': the quoting at this point of the script
	)
	for i := 0; i < len(template); i++ {
		ch := template[i]
		if end, name := vault.PlaceholderAt(template, i); end > 0 {
			if !seen[name] {
				if secret == nil {
					return "", nil, fmt.Errorf("it uses the secret {{%s}}, but no vault is available", name)
				}
				v, err := secret(name)
				if err != nil {
					return "", nil, err
				}
				seen[name] = true
				env = append(env, loaderSecretVar(name)+"="+v)
			}
			ref := "${" + loaderSecretVar(name) + "}"
			switch quote {
			case 0:
				b.WriteString(`"` + ref + `"`)
			case '"':
				b.WriteString(ref)
			case '\'':
				b.WriteString(`'"` + ref + `"'`)
			}
			i = end - 1
			continue
		}
		if quote == 0 {
			if param := positional(template[i:]); param != "" {
				b.WriteString(`"` + param + `"`)
				i += len(param) - 1
				continue
			}
		}
		b.WriteByte(ch)
		switch {
		case ch == '\\' && quote != '\'' && i+1 < len(template):
			i++
			b.WriteByte(template[i])
		case quote == 0 && (ch == '\'' || ch == '"'):
			quote = ch
		case quote == ch:
			quote = 0
		}
	}
	return b.String(), env, nil
}

// positional returns the reference to $1 or $2 ($1, ${1}, …) that text
// starts with, or "".
func positional(text string) string {
	for _, p := range []string{"$1", "${1}", "$2", "${2}"} {
		if strings.HasPrefix(text, p) {
			return p
		}
	}
	return ""
}

// loaderSecretVar is the environment variable that carries a secret to a
// loader.
func loaderSecretVar(name string) string { return "COYOTE_LOADER_SECRET_" + name }

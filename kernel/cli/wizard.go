package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// wizardChoices are the client types the first-run wizard offers.
var wizardChoices = []struct{ typ, label string }{
	{"openai", "OpenAI"},
	{"claude", "Anthropic Claude"},
	{"gemini", "Google Gemini"},
	{"openai-compatible", "another OpenAI-compatible service or a local server (Groq, DeepSeek, Ollama, LM Studio, ...)"},
}

// runWizard writes a first config.yaml in a terminal: the provider, the
// model and the API key, which goes into the vault (config.yaml refers to
// it as {{<NAME>_API_KEY}}).
func runWizard(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "There is no %s yet; let's write one.\n", p.ConfigFile)
	for i, c := range wizardChoices {
		fmt.Fprintf(f.IO.ErrOut, "  %d. %s\n", i+1, c.label)
	}
	choice, err := ask(f, "Provider [1]: ")
	if err != nil {
		return err
	}
	n := 1
	if choice = strings.TrimSpace(choice); choice != "" {
		if _, err := fmt.Sscan(choice, &n); err != nil || n < 1 || n > len(wizardChoices) {
			return fmt.Errorf("choose a number from 1 to %d", len(wizardChoices))
		}
	}
	typ := wizardChoices[n-1].typ
	name, base := typ, ""
	if typ == "openai-compatible" {
		if name, err = askDefault(f, "Name of the service (groq, deepseek, mistral, openrouter, ollama, ...)", "ollama"); err != nil {
			return err
		}
		defBase := ""
		if name == "ollama" {
			defBase = "http://localhost:11434/v1"
		}
		if base, err = askDefault(f, "API base URL (empty for a known service)", defBase); err != nil {
			return err
		}
	}
	defModel := ""
	for _, m := range catalogModels(typ, name) {
		if m.IsChat() {
			defModel = m.Name
			break
		}
	}
	model, err := askDefault(f, "Model", defModel)
	if err != nil {
		return err
	}
	if model == "" {
		return errors.New("a model is needed: rerun and give one (the provider's documentation lists them)")
	}
	keyVar := config.EnvPrefix(name) + "_API_KEY"
	key := ""
	if typ != "openai-compatible" || base == "" {
		if key, err = readSecret(f, "API key (stored encrypted in the vault): "); err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s:%s\nclients:\n  - type: %s\n", name, model, typ)
	if name != typ {
		fmt.Fprintf(&b, "    name: %s\n", name)
	}
	if base != "" {
		fmt.Fprintf(&b, "    api_base: %s\n", base)
	}
	if key != "" {
		v, pw, err := f.Vault()
		if err != nil {
			return err
		}
		if err := ensurePasswordFile(f, pw); err != nil {
			return err
		}
		if err := v.Set(keyVar, key); err != nil {
			return err
		}
		fmt.Fprintf(&b, "    api_key: '{{%s}}'\n", keyVar)
	}
	if err := fsx.WriteFileAtomic(p.ConfigFile, []byte(b.String()), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "Wrote %s.\n", p.ConfigFile)
	return nil
}

func catalogModels(typ, name string) []models.Model {
	if ms := models.Catalog(typ); ms != nil {
		return ms
	}
	return models.Catalog(name)
}

// askDefault asks for a value, showing and returning def when the answer
// is empty.
func askDefault(f *Factory, question, def string) (string, error) {
	prompt := question + ": "
	if def != "" {
		prompt = question + " [" + def + "]: "
	}
	answer, err := ask(f, prompt)
	if err != nil {
		return "", err
	}
	if answer = strings.TrimSpace(answer); answer == "" {
		return def, nil
	}
	return answer, nil
}

package llm

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Patches returns the request patches for one API call to a model, in the
// order the plugin applies them: the model's own patch (from the catalog or
// the client's models list) first, then the first of the client's rules for
// that API whose pattern matches the whole model name.
func Patches(c *config.Client, m models.Model, api string) ([]provider.RequestPatch, error) {
	var out []provider.RequestPatch
	if len(m.Patch) > 0 && api == config.APIChat {
		p, err := modelPatch(m.Patch)
		if err != nil {
			return nil, fmt.Errorf("patch of model %s: %w", m.Name, err)
		}
		out = append(out, p)
	}
	for _, r := range c.Patches[api] {
		re, err := regexp.Compile("^(?:" + r.Pattern + ")$")
		if err != nil {
			return nil, fmt.Errorf("client %q: patch.%s pattern %q: %w", c.Name, api, r.Pattern, err)
		}
		if !re.MatchString(m.Name) {
			continue
		}
		p, err := rulePatch(r)
		if err != nil {
			return nil, fmt.Errorf("client %q: patch.%s.%s: %w", c.Name, api, r.Pattern, err)
		}
		out = append(out, p)
		break
	}
	return out, nil
}

// modelPatch reads a model's `patch: {url, body, headers}`.
func modelPatch(raw map[string]any) (provider.RequestPatch, error) {
	r := config.PatchRule{}
	for k, v := range raw {
		switch k {
		case "url":
			s, _ := v.(string)
			r.URL = s
		case "body":
			r.Body = v
		case "headers":
			hs, _ := v.(map[string]any)
			r.Headers = map[string]*string{}
			for name, hv := range hs {
				if hv == nil {
					r.Headers[name] = nil
				} else {
					s := fmt.Sprint(hv)
					r.Headers[name] = &s
				}
			}
		}
	}
	return rulePatch(r)
}

func rulePatch(r config.PatchRule) (provider.RequestPatch, error) {
	p := provider.RequestPatch{URL: r.URL}
	if r.Body != nil {
		body, err := json.Marshal(r.Body)
		if err != nil {
			return p, fmt.Errorf("body: %w", err)
		}
		p.Body = body
	}
	for name, v := range r.Headers {
		if v == nil {
			p.DeleteHeaders = append(p.DeleteHeaders, name)
			continue
		}
		if p.SetHeaders == nil {
			p.SetHeaders = map[string]string{}
		}
		p.SetHeaders[name] = *v
	}
	return p, nil
}

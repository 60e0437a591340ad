package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// RequestPatch changes an HTTP request before a plugin sends it. Users
// write patches in config.yaml (`patch:` of a client, or of a model in the
// catalog) to reach provider features Coyote does not model; the kernel
// picks the ones that match the model and sends them with each request.
type RequestPatch struct {
	// URL replaces the request URL when set.
	URL string
	// Body is a JSON merge patch (RFC 7396) for the JSON body: objects
	// merge, null removes a key, anything else replaces.
	Body json.RawMessage
	// SetHeaders are set on the request; DeleteHeaders are removed.
	SetHeaders    map[string]string
	DeleteHeaders []string
}

// ApplyPatches applies patches in order to a request about to be sent:
// its URL, its JSON body and its headers. Plugins call it last, just
// before sending.
func ApplyPatches(patches []RequestPatch, url string, body []byte, header http.Header) (string, []byte, error) {
	if len(patches) == 0 {
		return url, body, nil
	}
	var doc any
	if len(body) > 0 {
		if err := json.Unmarshal(body, &doc); err != nil {
			return "", nil, fmt.Errorf("patch: the request body is not JSON: %w", err)
		}
	}
	for i, p := range patches {
		if p.URL != "" {
			url = p.URL
		}
		if len(p.Body) > 0 {
			var patch any
			if err := json.Unmarshal(p.Body, &patch); err != nil {
				return "", nil, fmt.Errorf("patch %d: body is not JSON: %w", i+1, err)
			}
			doc = MergePatch(doc, patch)
		}
		for k, v := range p.SetHeaders {
			header.Set(k, v)
		}
		for _, k := range p.DeleteHeaders {
			header.Del(k)
		}
	}
	if doc == nil {
		return url, body, nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return "", nil, fmt.Errorf("patch: encode the body: %w", err)
	}
	return url, out, nil
}

// MergePatch applies a JSON merge patch (RFC 7396) to a decoded JSON value
// and returns the result. target may be modified.
func MergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = MergePatch(t[k], v)
	}
	return t
}

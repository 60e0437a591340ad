package gemini

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// The body of generateContent and streamGenerateContent.
type requestBody struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []toolGroup       `json:"tools,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part holds one of text, inlineData, fileData, functionCall or
// functionResponse. Text is a pointer so that a signed thought without
// text still says "text":"".
type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type toolGroup struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type generationConfig struct {
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"topP,omitempty"`
	MaxOutputTokens int64           `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
	ThinkingBudget  *int64 `json:"thinkingBudget,omitempty"`
}

func text(s string) *string { return &s }

// chatBody encodes the request body of a chat request. Its errors describe
// what is wrong with the request (they become invalid-argument errors).
func chatBody(req *provider.ChatRequest) ([]byte, error) {
	body := requestBody{}
	var err error
	if body.SystemInstruction, body.Contents, err = contents(req.Messages); err != nil {
		return nil, err
	}
	if body.Tools, err = tools(req.Tools); err != nil {
		return nil, err
	}
	gc := &generationConfig{Temperature: req.Temperature, TopP: req.TopP, MaxOutputTokens: req.MaxOutputTokens}
	tc := &thinkingConfig{IncludeThoughts: true}
	if effort := strings.TrimSpace(req.ReasoningEffort); effort != "" {
		if n, err := strconv.ParseInt(effort, 10, 64); err == nil {
			tc.ThinkingBudget = &n
		} else {
			tc.ThinkingLevel = effort
		}
	}
	gc.ThinkingConfig = tc
	body.GenerationConfig = gc
	return json.Marshal(&body)
}

// contents converts the conversation: system messages become the system
// instruction, the others contents of role "user" or "model", with
// consecutive contents of one role merged (tool results and the user's next
// words travel together).
func contents(msgs []provider.Message) (*content, []content, error) {
	var system *content
	var out []content
	// names maps tool call ids to tool names: Gemini matches function
	// responses by name, and a result may not repeat it.
	names := map[string]string{}
	for i, m := range msgs {
		var role string
		var parts []part
		switch m.Role {
		case provider.RoleSystem:
			for _, p := range m.Parts {
				if p.ImageURL != "" || p.ToolCall != nil || p.ToolResult != nil || p.Reasoning != nil {
					return nil, nil, fmt.Errorf("message %d: a system message can hold only text", i+1)
				}
				if p.Text != "" {
					if system == nil {
						system = &content{}
					}
					system.Parts = append(system.Parts, part{Text: text(p.Text)})
				}
			}
			continue
		case provider.RoleUser, provider.RoleTool:
			role = "user"
			for _, p := range m.Parts {
				switch {
				case p.ToolResult != nil:
					fr, err := functionResponsePart(p.ToolResult, names)
					if err != nil {
						return nil, nil, fmt.Errorf("message %d: %w", i+1, err)
					}
					parts = append(parts, fr)
				case m.Role == provider.RoleTool:
					return nil, nil, fmt.Errorf("message %d: a tool message can hold only tool results", i+1)
				case p.ImageURL != "":
					img, err := imagePart(p.ImageURL)
					if err != nil {
						return nil, nil, fmt.Errorf("message %d: %w", i+1, err)
					}
					parts = append(parts, img)
				case p.ToolCall != nil || p.Reasoning != nil:
					return nil, nil, fmt.Errorf("message %d: a user message cannot hold tool calls or reasoning", i+1)
				case p.Text != "":
					parts = append(parts, part{Text: text(p.Text)})
				}
			}
		case provider.RoleAssistant:
			role = "model"
			for _, p := range m.Parts {
				switch {
				case p.ToolCall != nil:
					tc := p.ToolCall
					if tc.Name == "" {
						return nil, nil, fmt.Errorf("message %d: a tool call without a name", i+1)
					}
					if tc.ID != "" {
						names[tc.ID] = tc.Name
					}
					parts = append(parts, part{
						FunctionCall:     &functionCall{Name: tc.Name, Args: argsObject(tc.Arguments)},
						ThoughtSignature: tc.Signature,
					})
				case p.Reasoning != nil:
					// Thoughts go back only with their signature: that is
					// what Gemini needs to resume its reasoning. Unsigned or
					// redacted reasoning (another provider's) is dropped.
					if r := p.Reasoning; r.Signature != "" {
						parts = append(parts, part{Text: text(r.Text), Thought: true, ThoughtSignature: r.Signature})
					}
				case p.ImageURL != "" || p.ToolResult != nil:
					return nil, nil, fmt.Errorf("message %d: an assistant message cannot hold images or tool results", i+1)
				case p.Text != "":
					parts = append(parts, part{Text: text(p.Text)})
				}
			}
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i+1, m.Role)
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			continue
		}
		out = append(out, content{Role: role, Parts: parts})
	}
	if len(out) == 0 {
		return nil, nil, errors.New("no message to send (Gemini needs at least one user message)")
	}
	return system, out, nil
}

// argsObject turns a tool call's arguments into the JSON object Gemini
// wants. Arguments that are not an object (a call recorded from another
// provider) are wrapped as {"arguments": <the text>} rather than refused.
func argsObject(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '{' && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	wrapped, _ := json.Marshal(map[string]string{"arguments": args})
	return wrapped
}

// functionResponsePart converts a tool result: the content goes under
// "result" (or "error" for a failed call), parsed when it is JSON.
func functionResponsePart(r *provider.ToolResult, names map[string]string) (part, error) {
	name := r.Name
	if name == "" {
		name = names[r.CallID]
	}
	if name == "" {
		return part{}, fmt.Errorf("the result of tool call %q names no tool, and no earlier call has that id", r.CallID)
	}
	var value any = r.Content
	if trimmed := strings.TrimSpace(r.Content); trimmed != "" && json.Valid([]byte(trimmed)) {
		value = json.RawMessage(trimmed)
	}
	key := "result"
	if r.IsError {
		key = "error"
	}
	return part{FunctionResponse: &functionResponse{Name: name, Response: map[string]any{key: value}}}, nil
}

// imagePart converts an image URL: a data: URL is sent inline, any other
// URL by reference.
func imagePart(raw string) (part, error) {
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		if !ok {
			return part{}, errors.New("an image data: URL without data")
		}
		mime, isBase64 := strings.CutSuffix(meta, ";base64")
		if i := strings.IndexByte(mime, ';'); i >= 0 {
			mime = mime[:i]
		}
		var decoded []byte
		var err error
		switch {
		case !isBase64:
			var plain string
			if plain, err = url.PathUnescape(data); err == nil {
				decoded = []byte(plain)
				data = base64.StdEncoding.EncodeToString(decoded)
			}
		default:
			// Gemini wants standard, padded base64; re-encode anything else.
			if decoded, err = base64.StdEncoding.DecodeString(data); err != nil {
				if decoded, err = decodeBase64(data); err == nil {
					data = base64.StdEncoding.EncodeToString(decoded)
				}
			}
		}
		if err != nil || len(decoded) == 0 {
			return part{}, errors.New("an image data: URL whose data cannot be decoded")
		}
		if mime == "" {
			mime = http.DetectContentType(decoded)
		}
		return part{InlineData: &blob{MimeType: mime, Data: data}}, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return part{}, fmt.Errorf("image URL %q is neither a data: URL nor an absolute URL", raw)
	}
	return part{FileData: &fileData{FileURI: raw, MimeType: mimeByExtension(u.Path)}}, nil
}

// decodeBase64 reads standard or URL-safe base64, padded or not, with
// line breaks or not.
func decodeBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \r\n\t") {
		s = strings.Join(strings.Fields(s), "")
	}
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// mimeByExtension guesses the type of a file referenced by URL; "" lets
// the server decide.
func mimeByExtension(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".heic":
		return "image/heic"
	case ".heif":
		return "image/heif"
	case ".pdf":
		return "application/pdf"
	}
	return ""
}

// tools converts the tool declarations.
func tools(list []provider.Tool) ([]toolGroup, error) {
	if len(list) == 0 {
		return nil, nil
	}
	decls := make([]functionDeclaration, 0, len(list))
	for _, t := range list {
		d := functionDeclaration{Name: t.Name, Description: t.Description}
		if t.Name == "" {
			return nil, errors.New("a tool without a name")
		}
		if len(strings.TrimSpace(string(t.Parameters))) > 0 {
			var schema any
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return nil, fmt.Errorf("tool %q: its parameters are not JSON: %v", t.Name, err)
			}
			obj, ok := schema.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("tool %q: its parameters are not a JSON Schema object", t.Name)
			}
			reduced := toolSchema(obj, obj, 0)
			// A function without parameters declares none: Gemini refuses
			// an object schema with no properties.
			if props, _ := reduced["properties"].(map[string]any); len(props) > 0 {
				reduced["type"] = "object"
				data, err := json.Marshal(reduced)
				if err != nil {
					return nil, fmt.Errorf("tool %q: %v", t.Name, err)
				}
				d.Parameters = data
			}
		}
		decls = append(decls, d)
	}
	return []toolGroup{{FunctionDeclarations: decls}}, nil
}

// toolSchema reduces a JSON Schema to what Gemini's function declarations
// accept: the members of Google's Schema object (a subset of OpenAPI 3.0).
// Local references ($ref into $defs or definitions) are inlined, oneOf
// becomes anyOf, a type list with "null" becomes nullable, const becomes a
// one-value enum, formats Gemini does not know are dropped, enums keep their
// string values, required keeps only declared properties, and every other
// keyword ($schema, additionalProperties, examples, patternProperties, ...)
// is left out. Depth is bounded, so recursive references end.
func toolSchema(s, root map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(s))
	if depth > 24 {
		return out
	}
	if ref, ok := s["$ref"].(string); ok {
		target := resolveRef(root, ref)
		if target == nil {
			return out
		}
		merged := toolSchema(target, root, depth+1)
		if d, ok := s["description"].(string); ok {
			merged["description"] = d
		}
		return merged
	}
	for k, v := range s {
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				out["type"] = t
			case []any:
				for _, x := range t {
					switch name, _ := x.(string); {
					case name == "null":
						out["nullable"] = true
					case name != "" && out["type"] == nil:
						out["type"] = name
					}
				}
			}
		case "format":
			switch f, _ := v.(string); f {
			case "enum", "date-time", "int32", "int64", "float", "double":
				out[k] = f
			}
		case "title", "description", "nullable", "maxItems", "minItems", "minProperties", "maxProperties",
			"minLength", "maxLength", "pattern", "example", "default", "minimum", "maximum", "propertyOrdering":
			out[k] = v
		case "enum":
			list, _ := v.([]any)
			var strs []any
			others := 0
			for _, x := range list {
				switch str, ok := x.(string); {
				case ok:
					strs = append(strs, str)
				case x == nil:
					out["nullable"] = true
				default:
					others++
				}
			}
			if len(strs) > 0 && others == 0 {
				out["enum"] = strs
			}
		case "const":
			if str, ok := v.(string); ok {
				out["enum"] = []any{str}
			}
		case "properties":
			props, _ := v.(map[string]any)
			converted := make(map[string]any, len(props))
			for name, sub := range props {
				if sm, ok := sub.(map[string]any); ok {
					converted[name] = toolSchema(sm, root, depth+1)
				}
			}
			if len(converted) > 0 {
				out["properties"] = converted
			}
		case "items":
			switch it := v.(type) {
			case map[string]any:
				out["items"] = toolSchema(it, root, depth+1)
			case []any: // a tuple: describe its first item
				if len(it) > 0 {
					if first, ok := it[0].(map[string]any); ok {
						out["items"] = toolSchema(first, root, depth+1)
					}
				}
			}
		case "anyOf", "oneOf":
			list, _ := v.([]any)
			for _, x := range list {
				if sm, ok := x.(map[string]any); ok {
					prev, _ := out["anyOf"].([]any)
					out["anyOf"] = append(prev, toolSchema(sm, root, depth+1))
				}
			}
		}
	}
	// allOf of one schema (how generators attach a description to a
	// reference) is that schema.
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		if sm, ok := all[0].(map[string]any); ok {
			for k, v := range toolSchema(sm, root, depth+1) {
				if _, set := out[k]; !set {
					out[k] = v
				}
			}
		}
	}
	if list, ok := s["required"].([]any); ok {
		props, _ := out["properties"].(map[string]any)
		var keep []any
		for _, x := range list {
			if name, ok := x.(string); ok && props[name] != nil {
				keep = append(keep, name)
			}
		}
		if len(keep) > 0 {
			out["required"] = keep
		}
	}
	return out
}

// resolveRef finds the schema a local reference points to, or nil.
func resolveRef(root map[string]any, ref string) map[string]any {
	if ref == "#" {
		return root
	}
	for _, section := range []string{"$defs", "definitions"} {
		if name, ok := strings.CutPrefix(ref, "#/"+section+"/"); ok {
			defs, _ := root[section].(map[string]any)
			target, _ := defs[name].(map[string]any)
			return target
		}
	}
	return nil
}

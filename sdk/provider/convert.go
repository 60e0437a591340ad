package provider

import (
	"encoding/json"
	"fmt"

	pb "github.com/coyote-cli/coyote/sdk/internal/pb/providerv1"
)

// Converters between the public types and the generated wire types. They are
// the only place that knows both.

func clientToProto(c *ClientConfig) (*pb.ClientConfig, error) {
	var opts []byte
	if len(c.Options) > 0 {
		var err error
		if opts, err = json.Marshal(c.Options); err != nil {
			return nil, fmt.Errorf("encode options of client %q: %w", c.Name, err)
		}
	}
	return &pb.ClientConfig{
		Name:        c.Name,
		Type:        c.Type,
		ApiBase:     c.APIBase,
		ApiKey:      c.APIKey,
		OptionsJson: opts,
		Models:      modelsToProto(c.Models),
	}, nil
}

func clientFromProto(c *pb.ClientConfig) (ClientConfig, error) {
	out := ClientConfig{
		Name:    c.GetName(),
		Type:    c.GetType(),
		APIBase: c.GetApiBase(),
		APIKey:  c.GetApiKey(),
		Models:  modelsFromProto(c.GetModels()),
	}
	if raw := c.GetOptionsJson(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &out.Options); err != nil {
			return out, fmt.Errorf("decode options of client %q: %w", out.Name, err)
		}
	}
	return out, nil
}

func modelsToProto(ms []Model) []*pb.Model {
	if len(ms) == 0 {
		return nil
	}
	out := make([]*pb.Model, len(ms))
	for i, m := range ms {
		out[i] = &pb.Model{
			Name:                    m.Name,
			Type:                    m.Type,
			MaxInputTokens:          m.MaxInputTokens,
			MaxOutputTokens:         m.MaxOutputTokens,
			SupportsVision:          m.SupportsVision,
			SupportsFunctionCalling: m.SupportsFunctionCalling,
			ReasoningLevels:         m.ReasoningLevels,
		}
	}
	return out
}

func modelsFromProto(ms []*pb.Model) []Model {
	if len(ms) == 0 {
		return nil
	}
	out := make([]Model, len(ms))
	for i, m := range ms {
		out[i] = Model{
			Name:                    m.GetName(),
			Type:                    m.GetType(),
			MaxInputTokens:          m.GetMaxInputTokens(),
			MaxOutputTokens:         m.GetMaxOutputTokens(),
			SupportsVision:          m.GetSupportsVision(),
			SupportsFunctionCalling: m.GetSupportsFunctionCalling(),
			ReasoningLevels:         m.GetReasoningLevels(),
		}
	}
	return out
}

func chatRequestToProto(r *ChatRequest) *pb.ChatRequest {
	out := &pb.ChatRequest{
		Client:          r.Client,
		Model:           r.Model,
		Messages:        make([]*pb.Message, len(r.Messages)),
		Temperature:     r.Temperature,
		TopP:            r.TopP,
		MaxOutputTokens: r.MaxOutputTokens,
		Stream:          r.Stream,
		ReasoningEffort: r.ReasoningEffort,
	}
	for i, m := range r.Messages {
		pm := &pb.Message{Role: m.Role, Parts: make([]*pb.Part, len(m.Parts))}
		for j := range m.Parts {
			pm.Parts[j] = partToProto(&m.Parts[j])
		}
		out.Messages[i] = pm
	}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, &pb.Tool{Name: t.Name, Description: t.Description, ParametersJson: t.Parameters})
	}
	out.Patches = patchesToProto(r.Patches)
	return out
}

func chatRequestFromProto(r *pb.ChatRequest) *ChatRequest {
	out := &ChatRequest{
		Client:          r.GetClient(),
		Model:           r.GetModel(),
		Messages:        make([]Message, len(r.GetMessages())),
		Temperature:     r.Temperature,
		TopP:            r.TopP,
		MaxOutputTokens: r.GetMaxOutputTokens(),
		Stream:          r.GetStream(),
		ReasoningEffort: r.GetReasoningEffort(),
	}
	for i, m := range r.GetMessages() {
		msg := Message{Role: m.GetRole(), Parts: make([]Part, len(m.GetParts()))}
		for j, p := range m.GetParts() {
			msg.Parts[j] = partFromProto(p)
		}
		out.Messages[i] = msg
	}
	for _, t := range r.GetTools() {
		out.Tools = append(out.Tools, Tool{Name: t.GetName(), Description: t.GetDescription(), Parameters: t.GetParametersJson()})
	}
	out.Patches = patchesFromProto(r.GetPatches())
	return out
}

func partToProto(p *Part) *pb.Part {
	switch {
	case p.ToolCall != nil:
		return &pb.Part{Kind: &pb.Part_ToolCall{ToolCall: toolCallToProto(p.ToolCall)}}
	case p.ToolResult != nil:
		r := p.ToolResult
		return &pb.Part{Kind: &pb.Part_ToolResult{ToolResult: &pb.ToolResult{
			CallId: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError,
		}}}
	case p.Reasoning != nil:
		return &pb.Part{Kind: &pb.Part_Reasoning{Reasoning: reasoningToProto(p.Reasoning)}}
	case p.ImageURL != "":
		return &pb.Part{Kind: &pb.Part_ImageUrl{ImageUrl: p.ImageURL}}
	default:
		return &pb.Part{Kind: &pb.Part_Text{Text: p.Text}}
	}
}

func partFromProto(p *pb.Part) Part {
	switch k := p.GetKind().(type) {
	case *pb.Part_ToolCall:
		return Part{ToolCall: toolCallFromProto(k.ToolCall)}
	case *pb.Part_ToolResult:
		r := k.ToolResult
		return Part{ToolResult: &ToolResult{
			CallID: r.GetCallId(), Name: r.GetName(), Content: r.GetContent(), IsError: r.GetIsError(),
		}}
	case *pb.Part_Reasoning:
		return Part{Reasoning: reasoningFromProto(k.Reasoning)}
	case *pb.Part_ImageUrl:
		return Part{ImageURL: k.ImageUrl}
	case *pb.Part_Text:
		return Part{Text: k.Text}
	}
	return Part{}
}

func toolCallToProto(c *ToolCall) *pb.ToolCall {
	return &pb.ToolCall{Id: c.ID, Name: c.Name, Arguments: c.Arguments, Signature: c.Signature}
}

func toolCallFromProto(c *pb.ToolCall) *ToolCall {
	return &ToolCall{ID: c.GetId(), Name: c.GetName(), Arguments: c.GetArguments(), Signature: c.GetSignature()}
}

func reasoningToProto(r *Reasoning) *pb.Reasoning {
	return &pb.Reasoning{Text: r.Text, Signature: r.Signature, Redacted: r.Redacted}
}

func reasoningFromProto(r *pb.Reasoning) *Reasoning {
	return &Reasoning{Text: r.GetText(), Signature: r.GetSignature(), Redacted: r.GetRedacted()}
}

func chatEventToProto(e *ChatEvent) *pb.ChatEvent {
	switch {
	case e.Reasoning != nil:
		return &pb.ChatEvent{Kind: &pb.ChatEvent_Reasoning{Reasoning: reasoningToProto(e.Reasoning)}}
	case e.ToolCall != nil:
		return &pb.ChatEvent{Kind: &pb.ChatEvent_ToolCall{ToolCall: toolCallToProto(e.ToolCall)}}
	case e.Usage != nil:
		return &pb.ChatEvent{Kind: &pb.ChatEvent_Usage{Usage: usageToProto(e.Usage)}}
	case e.FinishReason != "":
		return &pb.ChatEvent{Kind: &pb.ChatEvent_FinishReason{FinishReason: e.FinishReason}}
	case e.Error != nil:
		return &pb.ChatEvent{Kind: &pb.ChatEvent_Error{Error: &pb.StreamError{Code: e.Error.Code, Message: e.Error.Message}}}
	default:
		return &pb.ChatEvent{Kind: &pb.ChatEvent_Text{Text: e.Text}}
	}
}

func chatEventFromProto(e *pb.ChatEvent) *ChatEvent {
	ev := &ChatEvent{}
	switch k := e.GetKind().(type) {
	case *pb.ChatEvent_Text:
		ev.Text = k.Text
	case *pb.ChatEvent_Reasoning:
		ev.Reasoning = reasoningFromProto(k.Reasoning)
	case *pb.ChatEvent_ToolCall:
		ev.ToolCall = toolCallFromProto(k.ToolCall)
	case *pb.ChatEvent_Usage:
		ev.Usage = usageFromProto(k.Usage)
	case *pb.ChatEvent_FinishReason:
		ev.FinishReason = k.FinishReason
	case *pb.ChatEvent_Error:
		ev.Error = &StreamError{Code: k.Error.GetCode(), Message: k.Error.GetMessage()}
	}
	return ev
}

func patchesToProto(ps []RequestPatch) []*pb.RequestPatch {
	if len(ps) == 0 {
		return nil
	}
	out := make([]*pb.RequestPatch, len(ps))
	for i, p := range ps {
		out[i] = &pb.RequestPatch{Url: p.URL, BodyJson: p.Body, SetHeaders: p.SetHeaders, DeleteHeaders: p.DeleteHeaders}
	}
	return out
}

func patchesFromProto(ps []*pb.RequestPatch) []RequestPatch {
	if len(ps) == 0 {
		return nil
	}
	out := make([]RequestPatch, len(ps))
	for i, p := range ps {
		out[i] = RequestPatch{URL: p.GetUrl(), Body: p.GetBodyJson(), SetHeaders: p.GetSetHeaders(), DeleteHeaders: p.GetDeleteHeaders()}
	}
	return out
}

func embedRequestToProto(r *EmbedRequest) *pb.EmbedRequest {
	return &pb.EmbedRequest{
		Client: r.Client, Model: r.Model, Inputs: r.Inputs, InputType: r.InputType,
		Dimensions: int32(r.Dimensions), Patches: patchesToProto(r.Patches),
	}
}

func embedRequestFromProto(r *pb.EmbedRequest) *EmbedRequest {
	return &EmbedRequest{
		Client: r.GetClient(), Model: r.GetModel(), Inputs: r.GetInputs(), InputType: r.GetInputType(),
		Dimensions: int(r.GetDimensions()), Patches: patchesFromProto(r.GetPatches()),
	}
}

func embedResponseToProto(r *EmbedResponse) *pb.EmbedResponse {
	out := &pb.EmbedResponse{Vectors: make([]*pb.Vector, len(r.Vectors))}
	for i, v := range r.Vectors {
		out.Vectors[i] = &pb.Vector{Values: v}
	}
	if r.Usage != nil {
		out.Usage = usageToProto(r.Usage)
	}
	return out
}

func embedResponseFromProto(r *pb.EmbedResponse) *EmbedResponse {
	out := &EmbedResponse{Vectors: make([][]float32, len(r.GetVectors()))}
	for i, v := range r.GetVectors() {
		out.Vectors[i] = v.GetValues()
	}
	if u := r.GetUsage(); u != nil {
		out.Usage = usageFromProto(u)
	}
	return out
}

func rerankRequestToProto(r *RerankRequest) *pb.RerankRequest {
	return &pb.RerankRequest{
		Client: r.Client, Model: r.Model, Query: r.Query, Documents: r.Documents,
		TopN: int32(r.TopN), Patches: patchesToProto(r.Patches),
	}
}

func rerankRequestFromProto(r *pb.RerankRequest) *RerankRequest {
	return &RerankRequest{
		Client: r.GetClient(), Model: r.GetModel(), Query: r.GetQuery(), Documents: r.GetDocuments(),
		TopN: int(r.GetTopN()), Patches: patchesFromProto(r.GetPatches()),
	}
}

func rerankResponseToProto(r *RerankResponse) *pb.RerankResponse {
	out := &pb.RerankResponse{Results: make([]*pb.RerankResult, len(r.Results))}
	for i, res := range r.Results {
		out.Results[i] = &pb.RerankResult{Index: int32(res.Index), Score: res.Score}
	}
	return out
}

func rerankResponseFromProto(r *pb.RerankResponse) *RerankResponse {
	out := &RerankResponse{Results: make([]RerankResult, len(r.GetResults()))}
	for i, res := range r.GetResults() {
		out.Results[i] = RerankResult{Index: int(res.GetIndex()), Score: res.GetScore()}
	}
	return out
}

func usageToProto(u *Usage) *pb.Usage {
	return &pb.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedTokens, ReasoningTokens: u.ReasoningTokens}
}

func usageFromProto(u *pb.Usage) *Usage {
	return &Usage{InputTokens: u.GetInputTokens(), OutputTokens: u.GetOutputTokens(), CachedTokens: u.GetCachedTokens(), ReasoningTokens: u.GetReasoningTokens()}
}

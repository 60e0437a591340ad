package qdrantstore

import (
	"encoding/json"
	"strconv"

	"github.com/qdrant/go-client/qdrant"
)

// Payload fields. page_content and metadata are LangChain's layout, which
// the original's attach mode reads; file_id, source and chunk_id are what an
// owned store adds so that it can delete a file and name its chunks.
const (
	fieldText     = "page_content"
	fieldMetadata = "metadata"
	fieldFileID   = "file_id"
	fieldSource   = "source"
	fieldChunkID  = "chunk_id"
)

// chunkPayload is the payload of an owned chunk's point.
func chunkPayload(id, fileID, text string, metadata map[string]string) map[string]*qdrant.Value {
	meta := make(map[string]*qdrant.Value, len(metadata))
	for k, v := range metadata {
		meta[k] = qdrant.NewValueString(v)
	}
	return map[string]*qdrant.Value{
		fieldText:     qdrant.NewValueString(text),
		fieldFileID:   qdrant.NewValueString(fileID),
		fieldSource:   qdrant.NewValueString(metadata["source"]),
		fieldChunkID:  qdrant.NewValueString(id),
		fieldMetadata: qdrant.NewValueFromFields(meta),
	}
}

// payloadString is a payload field's text, and whether it is a string.
func payloadString(p map[string]*qdrant.Value, key string) (string, bool) {
	v, ok := p[key]
	if !ok {
		return "", false
	}
	s, ok := v.GetKind().(*qdrant.Value_StringValue)
	if !ok {
		return "", false
	}
	return s.StringValue, true
}

// payloadMetadata flattens a point's metadata object into strings (numbers
// and booleans as text, lists and objects as JSON), with the top-level
// source where the metadata has none.
func payloadMetadata(p map[string]*qdrant.Value) map[string]string {
	out := map[string]string{}
	for k, v := range p[fieldMetadata].GetStructValue().GetFields() {
		if s, ok := valueText(v); ok {
			out[k] = s
		}
	}
	if _, ok := out["source"]; !ok {
		if s, ok := payloadString(p, fieldSource); ok && s != "" {
			out["source"] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// valueText renders a payload value as text; ok is false for null.
func valueText(v *qdrant.Value) (string, bool) {
	switch k := v.GetKind().(type) {
	case *qdrant.Value_StringValue:
		return k.StringValue, true
	case *qdrant.Value_IntegerValue:
		return strconv.FormatInt(k.IntegerValue, 10), true
	case *qdrant.Value_DoubleValue:
		return strconv.FormatFloat(k.DoubleValue, 'g', -1, 64), true
	case *qdrant.Value_BoolValue:
		return strconv.FormatBool(k.BoolValue), true
	case *qdrant.Value_StructValue, *qdrant.Value_ListValue:
		b, err := json.Marshal(plain(v))
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	return "", false
}

// plain converts a payload value to Go values for JSON.
func plain(v *qdrant.Value) any {
	switch k := v.GetKind().(type) {
	case *qdrant.Value_StringValue:
		return k.StringValue
	case *qdrant.Value_IntegerValue:
		return k.IntegerValue
	case *qdrant.Value_DoubleValue:
		return k.DoubleValue
	case *qdrant.Value_BoolValue:
		return k.BoolValue
	case *qdrant.Value_StructValue:
		m := map[string]any{}
		for key, f := range k.StructValue.GetFields() {
			m[key] = plain(f)
		}
		return m
	case *qdrant.Value_ListValue:
		l := make([]any, 0, len(k.ListValue.GetValues()))
		for _, e := range k.ListValue.GetValues() {
			l = append(l, plain(e))
		}
		return l
	}
	return nil
}

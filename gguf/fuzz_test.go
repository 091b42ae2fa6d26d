package gguf

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: no input panics Parse or File.RoPE; every refusal wraps ErrInvalid (or, from
// RoPE, one of its sentinels) and is one line; what parses re-encodes to a file that parses
// to the same metadata.
func FuzzParse(f *testing.F) {
	seeds := [][]KV{
		everyType(),
		{{"general.architecture", Str("qwen35")}, {"qwen35.context_length", U32(262144)}, {"qwen35.embedding_length", U32(5120)},
			{"qwen35.attention.head_count", U32(24)}, {"qwen35.attention.key_length", U32(256)}, {"qwen35.rope.dimension_count", U32(64)},
			{"qwen35.rope.dimension_sections", I32s(11, 11, 10, 0)}, {"qwen35.rope.freq_base", F32(1e7)}},
		{{"general.architecture", Str("qwen3")}, {"qwen3.context_length", U32(131072)}, {"qwen3.embedding_length", U32(4096)},
			{"qwen3.attention.head_count", U32(32)}, {"qwen3.rope.scaling.type", Str("yarn")}, {"qwen3.rope.scaling.factor", F32(4)},
			{"qwen3.rope.scaling.original_context_length", U32(32768)}},
		{{"general.architecture", Str("clip")}, {"clip.projector_type", Str("qwen2.5vl_merger")}},
		{{"general.architecture", Str("llama4")}, {"llama4.context_length", U32(4096)}, {"llama4.embedding_length", U32(512)},
			{"llama4.attention.head_count", U32(4)}, {"llama4.block_count", U32(4)}, {"general.alignment", U32(64)}},
	}
	for _, kvs := range seeds {
		f.Add(mustWrite(f, kvs, nil))
	}
	f.Add(mustWrite(f, []KV{{"general.architecture", Str("llama")}, {"llama.context_length", U32(8192)},
		{"llama.embedding_length", U32(256)}, {"llama.attention.head_count", U32(4)}}, []Tensor{
		{Name: "blk.0.attn_q.weight", Shape: []int64{32, 2}, Type: 8, Data: make([]byte, 68)},
		{Name: TensorRopeFreqs, Shape: []int64{32}, Type: TypeF32, Data: f32Bytes(llama3Factors(500000, 64)...)},
	}))
	f.Add([]byte("GGUF"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Parse: %q, want one line wrapping ErrInvalid", err)
			}
			return
		}
		if r, err := file.RoPE(); err == nil {
			if err := r.Spec.Validate(); err != nil {
				t.Fatalf("RoPE gave an invalid spec: %v", err)
			}
		} else if strings.Contains(err.Error(), "\n") {
			t.Fatalf("RoPE: %q is several lines", err)
		}
		re, err := Write(file.Metadata, nil)
		if err != nil {
			t.Fatalf("re-encoding the metadata: %v", err)
		}
		again, err := Parse(re)
		if err != nil || len(again.Metadata) != len(file.Metadata) {
			t.Fatalf("re-parsed: %v", err)
		}
		for i, kv := range file.Metadata {
			if got := again.Metadata[i]; got.Key != kv.Key || got.Value.String() != kv.Value.String() {
				t.Fatalf("key %d re-parsed as %s = %s, want %s = %s", i, got.Key, got.Value, kv.Key, kv.Value)
			}
		}
	})
}

package gguf_test

import (
	"fmt"

	"github.com/rotary-go/rotary/gguf"
)

// A Llama 3.1 header as llama.cpp's converter writes it (convert_hf_to_gguf.py), read back to
// the RoPE llama.cpp rotates by. A real file is read with ReadFile.
func ExampleParse() {
	data, err := gguf.Write([]gguf.KV{
		{Key: "general.architecture", Value: gguf.Str("llama")},
		{Key: "llama.context_length", Value: gguf.U32(131072)},
		{Key: "llama.embedding_length", Value: gguf.U32(4096)},
		{Key: "llama.block_count", Value: gguf.U32(32)},
		{Key: "llama.attention.head_count", Value: gguf.U32(32)},
		{Key: "llama.attention.head_count_kv", Value: gguf.U32(8)},
		{Key: "llama.rope.freq_base", Value: gguf.F32(500000)},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := gguf.Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := f.RoPE()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Arch, r.Type, r.NumHeads, r.NumKVHeads)
	fmt.Println(r.Spec.HeadSize, r.Spec.RotaryDim, r.Spec.Base, r.Spec.Style)
	// Output:
	// llama norm 32 8
	// 128 128 500000 gptj
}

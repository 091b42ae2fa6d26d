package golden_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// A bundle of Llama 3.1's RoPE on four BF16 tokens, written as a safetensors file would be,
// then applied: its inputs through the op reproduce its out.* tensors bit for bit.
func Example() {
	model, err := golden.Preset("llama-3.1-8b")
	if err != nil {
		panic(err)
	}
	b, err := golden.Make(golden.Options{Op: "rotary_embedding", Model: model, DType: tensor.BF16, Tokens: 4, Seed: 1, Heads: 2, KVHeads: 1})
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if err := safetensors.Write(&file, b.Tensors, b.Metadata); err != nil {
		panic(err)
	}
	f, err := safetensors.Parse(file.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Names())
	fmt.Println(f.Metadata["apply_args"])

	inputs := map[string]tensor.Tensor{}
	for _, name := range f.Names() {
		if !strings.HasPrefix(name, "out.") {
			t, _ := f.Get(name)
			if inputs[name], err = safetensors.ToTensor(t); err != nil {
				panic(err)
			}
		}
	}
	m, spec, err := model.Load(0)
	if err != nil {
		panic(err)
	}
	out, err := golden.Run("rotary_embedding", golden.Call{Inputs: inputs, Source: "bundle", Spec: spec, Model: m})
	if err != nil {
		panic(err)
	}
	var applied bytes.Buffer
	if err := safetensors.Write(&applied, out, nil); err != nil {
		panic(err)
	}
	a, err := safetensors.Parse(applied.Bytes())
	if err != nil {
		panic(err)
	}
	for _, name := range a.Names() {
		got, _ := a.Get(name)
		want, _ := f.Get("out." + name)
		fmt.Println(name, bytes.Equal(got.Data, want.Data))
	}
	// Output:
	// [key out.key out.query positions query]
	// ["--op","rotary_embedding","--model","llama-3.1-8b","--layer","0"]
	// key true
	// query true
}

// A bundle made under vLLM's reading of Phi-3's LongRoPE records the flag; its model read back
// from apply_args is that reading again.
func ExampleModelArgs() {
	m, err := golden.ModelArgs{Preset: "phi-3-mini-128k", As: "vllm"}.Model()
	if err != nil {
		panic(err)
	}
	b, err := golden.Make(golden.Options{Model: m, DType: tensor.F32, Tokens: 2, Heads: 1, KVHeads: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Metadata["apply_args"])
	a, err := golden.ReadModelArgs(b.Metadata["apply_args"])
	fmt.Printf("model %s, layer %d, as %s; %v\n", a.Preset, a.Layer, a.As, err)
	// Output:
	// ["--op","rotary_embedding","--model","phi-3-mini-128k","--layer","0","--as","vllm"]
	// model phi-3-mini-128k, layer 0, as vllm; <nil>
}

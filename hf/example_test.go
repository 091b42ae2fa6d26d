package hf_test

import (
	"fmt"

	"github.com/rotary-go/rotary/hf"
)

func ExamplePreset() {
	m, err := hf.Preset("qwen3-vl-8b")
	if err != nil {
		panic(err)
	}
	s := m.Spec
	fmt.Println(m.TopModelType, m.ModelType)
	fmt.Println("heads", m.NumHeads, "kv", m.NumKVHeads, "head", s.HeadSize, "rotary", s.RotaryDim, s.Style)
	fmt.Println("base", s.Base, "mrope", s.MRoPE.Sections, "interleaved", s.MRoPE.Interleaved)
	// Output:
	// qwen3_vl qwen3_vl_text
	// heads 32 kv 8 head 128 rotary 128 neox
	// base 5e+06 mrope [24 20 20] interleaved true
}

func ExampleParse() {
	m, err := hf.Parse([]byte(`{
		"model_type": "phi",
		"hidden_size": 2560,
		"num_attention_heads": 32,
		"partial_rotary_factor": 0.4,
		"max_position_embeddings": 2048
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Spec.HeadSize, m.Spec.RotaryDim, m.Spec.Base)
	for _, n := range m.Notes {
		fmt.Println("note:", n)
	}
	// Output:
	// 80 32 10000
	// note: num_hidden_layers absent: using the PhiConfig default 24
	// note: num_key_value_heads absent: using num_attention_heads (32)
	// note: rope_theta absent: using 10000
}

// ExampleReadRaw explains a config Parse refuses: ReadRaw applies the same head-size rules
// (here ChatGLM's kv_channels) without their checks.
func ExampleReadRaw() {
	data := []byte(`{"model_type": "chatglm", "hidden_size": 4096, "kv_channels": 64,
		"num_attention_heads": 32, "partial_rotary_factor": 1.5}`)
	_, err := hf.Parse(data)
	fmt.Println(err)
	r, err := hf.ReadRaw(data)
	if err != nil {
		panic(err)
	}
	fmt.Println("head", r.HeadSize(), "rotary", r.RotaryDim())
	// Output:
	// hf config: partial_rotary_factor: 1.5: want a fraction in (0, 1]
	// head 64 rotary 96
}

package check_test

import (
	"fmt"
	"os"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
)

// ExampleFrameworks compares how transformers main and vLLM read gpt-oss's YaRN: vLLM before
// v0.12 ignored truncate false.
func ExampleFrameworks() {
	data, err := hf.PresetJSON("gpt-oss-20b")
	if err != nil {
		panic(err)
	}
	r, err := check.Frameworks(data, hf.ParseOptions{}, []hf.Dialect{hf.DialectHF, hf.DialectVLLM011})
	if err != nil {
		panic(err)
	}
	for _, row := range r.Rows {
		fmt.Println(row.Rule, row.A.Dialects, row.B.Dialects, "divergent:", row.Divergent, "from position", row.FirstPosition)
	}
	fmt.Println("agree:", r.Agree)
	// Output:
	// yarn_truncate [hf] [vllm-0.11] divergent: true from position 1
	// agree: false
}

// ExamplePrecision shows how far Llama 3.1's float32 angles drift at its max length.
func ExamplePrecision() {
	m, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		panic(err)
	}
	r, err := check.Precision(m.Spec)
	if err != nil {
		panic(err)
	}
	for _, l := range r.Lengths {
		fmt.Printf("%s %d: %.3g rad\n", l.Name, l.Length, l.MaxAngleError)
	}
	// Output:
	// original 8192: 0.000584 rad
	// max 131072: 0.00934 rad
}

// ExampleInspect reports what rotary inspect prints of Gemma 3's layer 5, a full-attention
// layer with the model's scaling.
func ExampleInspect() {
	m, err := hf.Preset("gemma-3-4b")
	if err != nil {
		panic(err)
	}
	r, err := check.Inspect(m, hf.Selection{Layer: 5})
	if err != nil {
		panic(err)
	}
	r.Source = "preset gemma-3-4b"
	r.WriteText(os.Stdout)
	// Output:
	// source:                preset gemma-3-4b
	// model type:            gemma3_text
	// heads:                 8 query, 4 key/value
	// head size:             256
	// rotary dim:            256 (128 pairs, 0 pass-through)
	// style:                 neox
	// base (rope_theta):     1e+06
	// max positions:         131072 (cache 131072 rows)
	// scaling:               linear factor=8
	// attention factor:      1
	// layer:                 5: full_attention (the model's RoPE)
	// inv_freq:              [0]=0.125 [1]=0.11221089155591428 ... [127]=1.3924673249935028e-07
}

package bench_test

import (
	"fmt"

	"github.com/rotary-go/rotary/bench"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/tensor"
)

// One op on one model's shape at two token counts. Each Result's LimitRatio is the figure to
// quote (1.0 at the limit); absolute times vary with the machine and are not printed here.
func ExampleRun() {
	results, err := bench.Run(bench.Config{
		Ops:      []string{"rotary_embedding"},
		Models:   []string{"llama-3-8b"},
		Backends: []string{"native"},
		DTypes:   []tensor.DType{tensor.BF16},
		Tokens:   []int{16, 512},
		Time:     1e6, // 1 ms per figure: a smoke run, too short for a figure to quote
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Println(r.Op, r.Backend, r.DType, r.Model, r.Tokens, r.LimitRatio > 0)
	}
	// Output:
	// rotary_embedding native BF16 llama-3-8b 16 true
	// rotary_embedding native BF16 llama-3-8b 512 true
}

// A model's shape from its config.json, for Config.Shape: DeepSeek-V3's heads, its rotary dim
// and the kv_lora_rank that gives kv_rmsnorm_rope_cache its latent width.
func ExampleModelShape() {
	config, err := hf.PresetJSON("deepseek-v3")
	if err != nil {
		panic(err)
	}
	model, err := hf.Parse(config)
	if err != nil {
		panic(err)
	}
	shape, err := bench.ModelShape("deepseek-v3", model, config)
	if err != nil {
		panic(err)
	}
	fmt.Println(shape.Name, shape.Heads, shape.KVHeads, shape.Spec.RotaryDim, shape.KVLoRARank)
	// Output:
	// deepseek-v3 128 128 64 512
}

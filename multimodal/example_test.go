package multimodal_test

import (
	"bytes"
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/multimodal"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// A prompt with one image of 4×6 patches (6 LLM tokens after 2×2 merging): its
// MRoPE positions, then the query rotated by the Qwen2-VL embedding at those positions.
func ExampleGetRoPEIndex() {
	cfg := multimodal.DefaultConfig(multimodal.Qwen2VL)
	const T0, VS, I, VE = 100, multimodal.DefaultVisionStartTokenID, multimodal.DefaultImageTokenID, 151653
	ids := []int64{T0, T0, VS, I, I, I, I, I, I, VE, T0, T0}
	pos, deltas, err := multimodal.GetRoPEIndex(cfg, [][]int64{ids}, nil, [][3]int64{{1, 4, 6}}, nil, nil)
	if err != nil {
		panic(err)
	}
	for a, name := range []string{"t", "h", "w"} {
		fmt.Println(name, pos[a][0])
	}
	fmt.Println("rope_delta", deltas[0], "next token at", multimodal.DecodePosition(int64(len(ids)), deltas[0]))

	model, err := hf.Preset("qwen2-vl-7b")
	if err != nil {
		panic(err)
	}
	emb, err := rotary.New(model.Spec, rotary.WithCacheLen(64))
	if err != nil {
		panic(err)
	}
	D := model.Spec.HeadSize
	query := make([]float32, len(ids)*D)
	row, err := multimodal.Row(pos, 0)
	if err != nil {
		panic(err)
	}
	err = emb.Forward(tensor.FromI64(row, 3, len(ids)), tensor.FromF32(query, len(ids), 1, D), tensor.Tensor{})
	fmt.Println("forward:", err)
	// Output:
	// t [0 1 2 3 3 3 3 3 3 6 7 8]
	// h [0 1 2 3 3 3 4 4 4 6 7 8]
	// w [0 1 2 3 4 5 3 4 5 6 7 8]
	// rope_delta -3 next token at 9
	// forward: <nil>
}

// A processor's outputs as a Python harness saves them (safetensors.save_file of input_ids and
// image_grid_thw), read back and turned into positions.
func ExampleReadInput() {
	const T0, VS, I, VE = 100, multimodal.DefaultVisionStartTokenID, multimodal.DefaultImageTokenID, 151653
	var buf bytes.Buffer
	err := safetensors.Write(&buf, []safetensors.Tensor{
		safetensors.FromInt64s("input_ids", []int{1, 8}, []int64{T0, VS, I, I, I, I, VE, T0}),
		safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 4, 4}),
	}, nil)
	if err != nil {
		panic(err)
	}
	f, err := safetensors.Parse(buf.Bytes())
	if err != nil {
		panic(err)
	}
	in, shape, err := multimodal.ReadInput(f)
	if err != nil {
		panic(err)
	}
	pos, deltas, err := multimodal.RoPEIndex(multimodal.DefaultConfig(multimodal.Qwen2VL), in)
	if err != nil {
		panic(err)
	}
	fmt.Println("input_ids", shape)
	for a, name := range []string{"t", "h", "w"} {
		fmt.Println(name, pos[a][0])
	}
	fmt.Println("rope_deltas", deltas)
	// Output:
	// input_ids [1 8]
	// t [0 1 2 2 2 2 4 5]
	// h [0 1 2 2 3 3 4 5]
	// w [0 1 2 3 2 3 4 5]
	// rope_deltas [-2]
}

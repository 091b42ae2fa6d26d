package explain_test

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/explain"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Two new tokens at positions 40 and 41 whose candidate rotated the query at 0 and 1: the
// cache offset was left out.
func ExampleExplain() {
	spec := rotary.Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 128}
	emb, _ := rotary.New(spec)
	query := tensor.FromF32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1}, 2, 1, 8)
	want, got := query.Clone(), query.Clone()
	emb.Forward(tensor.FromI64([]int64{40, 41}, 2), want, tensor.Tensor{})
	emb.Forward(tensor.FromI64([]int64{0, 1}, 2), got, tensor.Tensor{})

	rep, err := explain.Explain(explain.Case{
		Spec: spec, Positions: tensor.FromI64([]int64{40, 41}, 2), Query: query,
		Want: map[string]tensor.Tensor{"query": want}, Got: map[string]tensor.Tensor{"query": got},
	}, compare.Options{MaxULP: 1, ATol: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Printf("%s: %s (%d of %d failing elements)\nfix: %s\n", f.Mistake, f.Reading, f.Explained, f.Failing, f.Fix)
	}
	// Output:
	// positions_from_zero: positions from 0: the cache offset 40 left out (16 of 16 failing elements)
	// fix: add the number of tokens already in the KV cache to the new tokens' positions
}

// A golden bundle of Llama 3.1's RoPE at positions 100..103, and a candidate computed at
// 0..3 (golden.Make stands in for the port under test): the bundle alone, its model read
// back from its recorded apply_args, names the mistake.
func ExampleExplainGolden() {
	model, err := golden.Preset("llama-3.1-8b")
	if err != nil {
		panic(err)
	}
	at := func(positions string) (map[string]tensor.Tensor, map[string]string) {
		p, _, err := golden.ParsePositions(positions)
		if err != nil {
			panic(err)
		}
		b, err := golden.Make(golden.Options{Op: "rotary_embedding", Model: model, DType: tensor.BF16, Tokens: 4, Positions: p, Heads: 2, KVHeads: 1})
		if err != nil {
			panic(err)
		}
		tensors := map[string]tensor.Tensor{}
		for _, f := range b.Tensors {
			if tensors[f.Name], err = safetensors.ToTensor(f); err != nil {
				panic(err)
			}
		}
		return tensors, b.Metadata
	}
	want, metadata := at("range:100")
	got, _ := at("range:0")

	rep, err := explain.ExplainGolden(explain.GoldenCase{Golden: want, Metadata: metadata, Candidate: got}, compare.Options{MaxULP: 1, ATol: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(metadata["apply_args"])
	for _, f := range rep.Findings {
		fmt.Printf("%s: %s (%d of %d failing elements)\nfix: %s\n", f.Mistake, f.Reading, f.Explained, f.Failing, f.Fix)
	}
	// Output:
	// ["--op","rotary_embedding","--model","llama-3.1-8b","--layer","0"]
	// positions_from_zero: positions from 0: the cache offset 100 left out (903 of 903 failing elements)
	// fix: add the number of tokens already in the KV cache to the new tokens' positions
}

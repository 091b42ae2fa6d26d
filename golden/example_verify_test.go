package golden_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/tensor"
)

// A kernel's query output with one element two BF16 steps off, and no key output, verified
// against a golden bundle of Llama 3.1's RoPE: the element is located by token, head and dim,
// and the missing key is named.
func ExampleVerify() {
	dir, err := os.MkdirTemp("", "verify")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	model, err := golden.Preset("llama-3.1-8b")
	if err != nil {
		panic(err)
	}
	b, err := golden.Make(golden.Options{Op: "rotary_embedding", Model: model, DType: tensor.BF16, Tokens: 4, Seed: 1, Heads: 2, KVHeads: 1})
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "golden.safetensors")
	if err := b.WriteFile(path, "safetensors"); err != nil {
		panic(err)
	}
	bundle, err := golden.ReadFiles(path)
	if err != nil {
		panic(err)
	}

	query := bundle.Tensors["out.query"].Clone()
	query.Bits[query.Index(2, 1, 17)] += 2 // the kernel under test's output
	candidate := &golden.Set{}
	if err := candidate.Add("query", query, "kernel"); err != nil {
		panic(err)
	}

	rows, err := golden.Verify(bundle, candidate, golden.VerifyOptions{Compare: compare.Options{ATol: 0, Show: 1}})
	if err != nil {
		panic(err)
	}
	for _, r := range rows {
		fmt.Printf("%s: %s\n", r.Name, r.Problem)
		for _, e := range r.Worst {
			fmt.Println(" ", e.Axes, e.Index)
		}
	}
	// Output:
	// out.key: missing from the candidate (want key or out.key)
	// out.query: 1 elements over tolerance
	//   [token head dim] [2 1 17]
}

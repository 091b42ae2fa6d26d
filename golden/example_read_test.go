package golden_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// A candidate's outputs, dumped by a Python harness as a directory of .npy files, read beside
// the inputs it was given in a safetensors file: one set of named tensors.
func ExampleReadFiles() {
	dir, err := os.MkdirTemp("", "candidate")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	inputs := filepath.Join(dir, "inputs.safetensors")
	positions := safetensors.FromInt64s("positions", []int{3}, []int64{0, 1, 2})
	if err := safetensors.WriteFile(inputs, []safetensors.Tensor{positions}, map[string]string{"op": "rotary_embedding"}); err != nil {
		panic(err)
	}
	outputs := filepath.Join(dir, "outputs")
	query := tensor.FromF32(make([]float32, 3*64), 3, 64)
	if err := npy.WriteDir(outputs, map[string]tensor.Tensor{"out.query": query}, nil, nil); err != nil {
		panic(err)
	}

	s, err := golden.ReadFiles(inputs, outputs)
	if err != nil {
		panic(err)
	}
	for _, name := range s.Order {
		fmt.Println(name, s.Tensors[name].DType, s.Tensors[name].Shape)
	}
	fmt.Println(s.Metadata["op"])
	// Output:
	// positions I64 [3]
	// out.query F32 [3 64]
	// rotary_embedding
}

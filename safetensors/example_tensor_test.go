package safetensors_test

import (
	"bytes"
	"fmt"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// A bundle's tensors go to a file and come back as tensor.Tensor, ready for the ops.
func ExampleToTensor() {
	q := tensor.FromBits(tensor.BF16, []uint16{0x3f80, 0xbf80, 0x4000, 0x0000}, 1, 2, 2)
	st, err := safetensors.FromTensor("query", q)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, []safetensors.Tensor{st}, map[string]string{"op": "rotary_embedding"}); err != nil {
		panic(err)
	}
	f, err := safetensors.Parse(buf.Bytes())
	if err != nil {
		panic(err)
	}
	fst, _ := f.Get("query")
	back, err := safetensors.ToTensor(fst)
	if err != nil {
		panic(err)
	}
	fmt.Println(back.DType, back.Shape, back.Float64At(1), back.Float64At(2), f.Metadata["op"])
	// Output: BF16 [1 2 2] -1 2 rotary_embedding
}

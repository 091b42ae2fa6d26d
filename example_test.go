package rotary_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// Rotate a query and a key in place at their positions: build the embedding once from the
// model's spec, then call Forward on every layer.
func Example() {
	emb, err := rotary.New(rotary.Spec{
		HeadSize:     4,
		RotaryDim:    4,
		Base:         10000,
		Style:        rotary.NeoX,
		MaxPositions: 2048,
	})
	if err != nil {
		log.Fatal(err)
	}
	// Three tokens at positions 0, 1 and 2; one query head and one key head of size 4.
	positions := tensor.FromI64([]int64{0, 1, 2}, 3)
	q := []float32{
		1, 1, 1, 1,
		1, 1, 1, 1,
		1, 1, 1, 1,
	}
	k := []float32{
		1, 0, 0, 0,
		1, 0, 0, 0,
		1, 0, 0, 0,
	}
	if err := emb.Forward(positions, tensor.FromF32(q, 3, 1, 4), tensor.FromF32(k, 3, 1, 4)); err != nil {
		log.Fatal(err)
	}
	for t := range 3 {
		fmt.Printf("position %d: q %.4f  k %.4f\n", t, q[4*t:4*t+4], k[4*t:4*t+4])
	}
	// Output:
	// position 0: q [1.0000 1.0000 1.0000 1.0000]  k [1.0000 0.0000 0.0000 0.0000]
	// position 1: q [-0.3012 0.9900 1.3818 1.0099]  k [0.5403 0.0000 0.8415 0.0000]
	// position 2: q [-1.3254 0.9798 0.4932 1.0198]  k [-0.4161 0.0000 0.9093 0.0000]
}

// Gather cos/sin for the batch's positions once per forward pass and apply them on every layer,
// instead of looking the positions up in the cache again on each one.
func ExampleCosSin_Apply() {
	emb, err := rotary.New(rotary.Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, Style: rotary.GPTJ, MaxPositions: 4096})
	if err != nil {
		log.Fatal(err)
	}
	positions := tensor.FromI32([]int32{7, 4095}, 2)
	var cs rotary.CosSin // reuse it across forward passes: it grows once, then never allocates
	if err := emb.Gather(positions, &cs); err != nil {
		log.Fatal(err)
	}
	for layer := range 3 {
		// [tokens, heads·head_size] in bfloat16: two tokens, one head.
		bits := make([]uint16, 2*8)
		for i := range bits {
			bits[i] = tensor.BF16FromFloat32(float32(layer + 1))
		}
		q := tensor.FromBits(tensor.BF16, bits, 2, 8)
		if err := cs.Apply(q, tensor.Tensor{}); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("layer %d: token 0 pair 0 (%.3f, %.3f), token 1 pair 0 (%.3f, %.3f)\n", layer,
			tensor.Float32FromBF16(bits[0]), tensor.Float32FromBF16(bits[1]),
			tensor.Float32FromBF16(bits[8]), tensor.Float32FromBF16(bits[9]))
	}
	// Output:
	// layer 0: token 0 pair 0 (0.097, 1.414), token 1 pair 0 (0.934, -1.062)
	// layer 1: token 0 pair 0 (0.193, 2.828), token 1 pair 0 (1.867, -2.125)
	// layer 2: token 0 pair 0 (0.291, 4.219), token 1 pair 0 (2.797, -3.188)
}

// The explicit cos and sin of npu_rotary_mul for a whole sequence, streamed to a writer a chunk
// of tokens at a time: here 3 tokens of a GPT-J rotary dim of 4, in BF16.
func ExampleEmbedding_StreamFullWidthRange() {
	emb, err := rotary.New(rotary.Spec{HeadSize: 4, RotaryDim: 4, Base: 10000, Style: rotary.GPTJ, MaxPositions: 2048})
	if err != nil {
		log.Fatal(err)
	}
	s, err := emb.StreamFullWidthRange(3, rotary.GPTJ, tensor.BF16)
	if err != nil {
		log.Fatal(err)
	}
	var cos bytes.Buffer
	if err := s.WriteCos(&cos); err != nil {
		log.Fatal(err)
	}
	for t := range s.Tokens() {
		row := make([]float32, 4)
		for i := range row {
			row[i] = tensor.Float32FromBF16(binary.LittleEndian.Uint16(cos.Bytes()[2*(4*t+i):]))
		}
		fmt.Printf("position %d: cos %.4f\n", t, row)
	}
	// Output:
	// position 0: cos [1.0000 1.0000 1.0000 1.0000]
	// position 1: cos [0.5391 0.5391 1.0000 1.0000]
	// position 2: cos [-0.4160 -0.4160 1.0000 1.0000]
}

package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// ggmlType is a tensor type's block: blockSize elements stored in typeSize bytes.
type ggmlType struct {
	name                string
	blockSize, typeSize int64
}

// ggmlTypes are ggml's type traits (ggml/src/ggml.c type_traits, the blocks of
// ggml/src/ggml-common.h; gguf-py/gguf/constants.py GGML_QUANT_SIZES). The ids ggml removed
// (4, 5: Q4_2, Q4_3; 31–33 and 36–38: the repacked Q4_0 and IQ4_NL layouts) have no block,
// and gguf.cpp refuses them as it refuses an id past the table.
var ggmlTypes = map[uint32]ggmlType{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2},
	2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20}, 6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24},
	8: {"Q8_0", 32, 34}, 9: {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144}, 13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292},
	16: {"IQ2_XXS", 256, 66}, 17: {"IQ2_XS", 256, 74}, 18: {"IQ3_XXS", 256, 98}, 19: {"IQ1_S", 256, 50},
	20: {"IQ4_NL", 32, 18}, 21: {"IQ3_S", 256, 110}, 22: {"IQ2_S", 256, 82}, 23: {"IQ4_XS", 256, 136},
	24: {"I8", 1, 1}, 25: {"I16", 1, 2}, 26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8},
	29: {"IQ1_M", 256, 56}, 30: {"BF16", 1, 2},
	34: {"TQ1_0", 256, 54}, 35: {"TQ2_0", 256, 66},
	39: {"MXFP4", 32, 17}, 40: {"NVFP4", 64, 36}, 41: {"Q1_0", 128, 18},
}

// TypeF32 is ggml's F32 tensor type.
const TypeF32 = 0

// TypeName is the ggml name of a tensor type ("F32", "Q4_K", ...), or "type(N)".
func TypeName(t uint32) string {
	if g, ok := ggmlTypes[t]; ok {
		return g.name
	}
	return fmt.Sprintf("type(%d)", t)
}

// tensorBytes is the byte size of t, as gguf.cpp computes it: the row length must be a
// whole number of blocks, and neither the element count nor the byte count may overflow.
func tensorBytes(t TensorInfo) (uint64, error) {
	g, ok := ggmlTypes[t.Type]
	if !ok {
		return 0, invalidf("tensor %q has ggml type %d: not a type ggml defines (0..41 less the removed ones)", t.Name, t.Type)
	}
	n := int64(1)
	for i, d := range t.Shape {
		if d < 0 {
			return 0, invalidf("tensor %q dimension %d is %d: want ≥ 0", t.Name, i, d)
		}
		var ok bool
		if n, ok = checkedMul(n, d); !ok {
			return 0, invalidf("tensor %q shape %v: the element count overflows int64", t.Name, t.Shape)
		}
	}
	// ggml pads the shape with 1s: a tensor of no dimensions has rows of one element.
	row := int64(1)
	if len(t.Shape) > 0 {
		row = t.Shape[0]
	}
	if row%g.blockSize != 0 {
		return 0, invalidf("tensor %q of type %s has rows of %d elements: not a multiple of its block size %d", t.Name, g.name, row, g.blockSize)
	}
	b, ok := checkedMul(n/g.blockSize, g.typeSize)
	if !ok {
		return 0, invalidf("tensor %q shape %v of type %s: the byte count overflows int64", t.Name, t.Shape, g.name)
	}
	return uint64(b), nil
}

// The tensors of per-pair frequency factors llama.cpp divides the angles by
// (ggml_rope_ext's freq_factors): rope_freqs for Llama 3 style scaling (LLM_TENSOR_ROPE_FREQS),
// the long and short pair for LongRoPE (LLM_TENSOR_ROPE_FACTORS_LONG/SHORT).
const (
	TensorRopeFreqs        = "rope_freqs.weight"
	TensorRopeFactorsLong  = "rope_factors_long.weight"
	TensorRopeFactorsShort = "rope_factors_short.weight"
)

var factorTensors = []string{TensorRopeFreqs, TensorRopeFactorsLong, TensorRopeFactorsShort}

// maxFactors bounds a factor tensor: one factor per rotated pair, and a head has at most
// 65536 elements (rope.Spec's bound).
const maxFactors = 1 << 15

// readFactors reads the frequency-factor tensors the file has, and nothing else of the data
// section. ggml_rope_ext takes the factors as F32 only.
func (f *File) readFactors(ra io.ReaderAt) error {
	for _, name := range factorTensors {
		t, ok := f.Tensor(name)
		if !ok {
			continue
		}
		if t.Type != TypeF32 {
			return invalidf("tensor %q is %s: ggml_rope_ext takes frequency factors as F32", name, TypeName(t.Type))
		}
		n := t.Size / 4
		if n > maxFactors {
			return invalidf("tensor %q has %d elements: a frequency-factor tensor has one per rotated pair, at most %d", name, n, maxFactors)
		}
		buf := make([]byte, t.Size)
		// checkTensors put the tensor inside the file, so the offset fits in int64.
		if n, err := ra.ReadAt(buf, int64(f.DataOffset+t.Offset)); n < len(buf) {
			return fmt.Errorf("reading tensor %q: %w", name, err)
		}
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		if f.factors == nil {
			f.factors = map[string][]float32{}
		}
		f.factors[name] = vals
	}
	return nil
}

// Factors returns the values of a frequency-factor tensor the file holds (TensorRopeFreqs,
// TensorRopeFactorsLong or TensorRopeFactorsShort).
func (f *File) Factors(name string) ([]float32, bool) {
	if f == nil {
		return nil, false
	}
	v, ok := f.factors[name]
	return v, ok
}

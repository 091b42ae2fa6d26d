package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestEveryBitPattern rotates all 65536 F16 and BF16 bit patterns (NaN, Inf, subnormals, ±0)
// and random F32 specials through every implementation, by runs of tokens and by per-token
// gathered rows, and compares with native bit for bit (NaNs only need to stay NaNs): this pins the assembly's widening and rounding, at rotary dims
// 128, 80 and 64 (the kernels' paths with cos/sin in registers: NeoX 128 and 80, GPT-J 128 and
// 64) and 112 (the loops' 8-pair blocks).
func TestEveryBitPattern(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	for _, D := range []int{128, 80, 64, 112} {
		for _, style := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
			spec := rotary.Spec{HeadSize: D, RotaryDim: D, Base: 10000, Style: style, MaxPositions: 64}
			for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
				T := (65536 + D - 1) / D
				x := tensor.Zeros(d, T, 1, D)
				for i := range T * D {
					if d == tensor.F32 {
						// Subnormals, their neighbours, and bf16-like patterns widened.
						x.F32[i] = math.Float32frombits(uint32(i)<<16 | uint32(i*7919)&0xffff)
						if i%3 == 0 {
							x.F32[i] = math.Float32frombits(uint32(i) * 131)
						}
					} else {
						x.Bits[i] = uint16(i)
					}
				}
				p := make([]int64, T)
				for i := range p {
					p[i] = int64(i % 3) // position 0 (identity: subnormal outputs), 1 and 2
				}
				pos := tensor.FromI64(p, T)
				want := x.Clone()
				ref, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
				if err := ref.Forward(pos, want, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				for _, impl := range cpu.Implementations() {
					for _, gathered := range []bool{false, true} {
						t.Run(fmt.Sprintf("%d/%v/%v/%s/gathered=%v", D, style, d, impl, gathered), func(t *testing.T) {
							if err := cpu.SetImplementation(impl); err != nil {
								t.Fatal(err)
							}
							emb, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
							got := x.Clone()
							if err := forwardOrApply(emb, pos, got, gathered); err != nil {
								t.Fatal(err)
							}
							bad := 0
							for i := range T * D {
								a, b := want.Float64At(i), got.Float64At(i)
								same := math.IsNaN(a) && math.IsNaN(b)
								if d == tensor.F32 {
									same = same || want.F32[i] == got.F32[i] && math.Signbit(a) == math.Signbit(b)
								} else {
									same = same || want.Bits[i] == got.Bits[i]
								}
								if !same && bad < 5 {
									bad++
									t.Errorf("element %d (input %v): got %v, want %v", i, x.Float64At(i), b, a)
								}
							}
						})
					}
				}
			}
		}
	}
}

// forwardOrApply rotates x at pos through emb: Forward, whose table path rotates runs of tokens
// (the token kernels), or with gathered Gather and Apply, whose per-token rows take the kernels
// the other ops call a head at a time.
func forwardOrApply(emb *rotary.Embedding, pos, x tensor.Tensor, gathered bool) error {
	if !gathered {
		return emb.Forward(pos, x, tensor.Tensor{})
	}
	var cs rotary.CosSin
	if err := emb.Gather(pos, &cs); err != nil {
		return err
	}
	return cs.Apply(x, tensor.Tensor{})
}

// TestTokenRuns: q and k as strided views of one buffer, with their own token and head strides
// (q's tokens padded, k's heads a head apart, after q's tokens, nothing between them rotated),
// across the runs of tokens the backend rotates in one call (1 to 300 tokens, threaded or not),
// with and without k, at rotary dims whose cos/sin stay in registers (NeoX 128 and 80, GPT-J
// 128 and 64), the 8-pair loops (112, 48), pairs past the last multiple of 8 (36) and partial
// rotary, and a query of no heads: bit for bit as native on every implementation, the gaps and
// unrotated dims untouched.
func TestTokenRuns(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(29, 30))
	for _, h := range [][2]int{{5, 2}, {0, 3}} {
		testTokenRuns(t, r, h[0], h[1])
	}
}

// testTokenRuns is TestTokenRuns with hq query and hk key heads.
func testTokenRuns(t *testing.T, r *rand.Rand, hq, hk int) {
	for _, dims := range [][2]int{{128, 128}, {80, 80}, {64, 64}, {112, 112}, {36, 36}, {128, 64}, {96, 48}} {
		D, R := dims[0], dims[1]
		for _, style := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
			spec := rotary.Spec{HeadSize: D, RotaryDim: R, Base: 10000, Style: style, MaxPositions: 4096}
			for _, T := range []int{1, 16, 17, 40, 300} {
				p := make([]int64, T)
				for i := range p {
					p[i] = r.Int64N(4096)
				}
				pos := tensor.FromI64(p, T)
				for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
					wq, wk := hq*D+D/2, 2*hk*D+D/4 // elements between tokens
					all := randomTensor(r, d, normalValues, T*(wq+wk))
					for _, withKey := range []bool{true, false} {
						name := fmt.Sprintf("%d/%d/%v/T=%d/%v/heads=%d,%d/key=%v", D, R, style, T, d, hq, hk, withKey)
						sameAsNative(t, name, func(disp *ops.Dispatcher) tensor.Tensor {
							emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
							if err != nil {
								t.Fatal(err)
							}
							buf := all.Clone()
							q := tensor.Tensor{DType: d, Shape: []int{T, hq, D}, Strides: []int{wq, D, 1}, F32: buf.F32, Bits: buf.Bits}
							var k tensor.Tensor
							if withKey {
								k = tensor.Tensor{DType: d, Shape: []int{T, hk, D}, Strides: []int{wk, 2 * D, 1}, Offset: T * wq, F32: buf.F32, Bits: buf.Bits}
							}
							if err := emb.Forward(pos, q, k); err != nil {
								t.Fatal(err)
							}
							return buf
						})
					}
				}
			}
		}
	}
}

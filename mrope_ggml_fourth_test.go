package rotary

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// ggmlIMRoPEAxes is ggml_mrope_cache_init's interleaved choice (ggml/src/ggml-cpu/ops.cpp,
// llama.cpp 82bb48500), written as ggml writes it: sector = pair mod the section sum, h when
// sector%3 == 1 && sector < 3·s1, w when sector%3 == 2 && sector < 3·s2, t when
// sector%3 == 0 && sector < 3·s0, the fourth position otherwise.
func ggmlIMRoPEAxes(half int, s [4]int) []int {
	axes := make([]int, half)
	sum := s[0] + s[1] + s[2] + s[3]
	for i := range axes {
		sector := i % sum
		switch {
		case sector%3 == 1 && sector < 3*s[1]:
			axes[i] = 1
		case sector%3 == 2 && sector < 3*s[2]:
			axes[i] = 2
		case sector%3 == 0 && sector < 3*s[0]:
			axes[i] = 0
		default:
			axes[i] = 3
		}
	}
	return axes
}

// TestMRoPEGGMLFourth: llama.cpp's IMROPE layout (Qwen3-VL's GGUF sections [24, 20, 20, 0])
// against the float64 evaluation with ggml's axis choice, on every backend, cached and computed
// paths and the hoisted gather giving the same bits; 1-D positions are HF's text rotation, and
// llama.cpp's text positions (the fourth row 0) leave pairs 61 and 62 as they were.
func TestMRoPEGGMLFourth(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	sections := [4]int{24, 20, 20, 0}
	axes := ggmlIMRoPEAxes(64, sections)
	var fourth []int
	for i, a := range axes {
		if a == 3 {
			fourth = append(fourth, i)
		}
	}
	if !slices.Equal(fourth, []int{61, 62}) {
		t.Fatalf("test's ggml axes: fourth row at %v, want pairs 61 and 62", fourth)
	}
	for _, style := range []Style{NeoX, GPTJ} {
		spec := Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, Style: style, MaxPositions: 512,
			MRoPE: &MRoPE{Sections: sections[:], Interleaved: true, GGMLFourth: true}}
		hf := spec
		hf.MRoPE = &MRoPE{Sections: sections[:3], Interleaved: true}
		inv, att := spec.Frequencies(-1)
		for _, d := range dispatchers(t) {
			cached := mustNew(t, spec, WithDispatcher(d))
			computed := mustNew(t, spec, WithDispatcher(d), WithCacheLen(8))
			hfText := mustNew(t, hf, WithDispatcher(d))
			for _, dt := range floatTypes {
				name := fmt.Sprintf("%s %v %v", d.Backend(), style, dt)
				// Every row its own, the fourth included, so a pair on the wrong row shows.
				pos := [][]int64{randPositions(rng, 6, 512), randPositions(rng, 6, 512), randPositions(rng, 6, 512), randPositions(rng, 6, 512)}
				flat := tensor.FromI64(slices.Concat(pos...), 4, 6)
				qLay := layout{tokens: 6, heads: 4, headSize: 128, tokPad: 4, lead: 2, tail: 3}
				rotateAndCheck(t, name, cached, dt, qLay, layout{tokens: 6, heads: 2, headSize: 128, flat: true},
					flat, mropeTheta(pos, axes, inv), att, rng)

				a := newView(dt, qLay, rng)
				b, c := a.clone(), a.clone()
				if err := cached.Forward(flat, a.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if err := computed.Forward(flat, b.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				var cs CosSin
				if err := cached.Gather(flat, &cs); err != nil {
					t.Fatal(err)
				}
				if err := cs.Apply(c.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if i := sameBits(a, b); i >= 0 {
					t.Errorf("%s: cached and computed paths differ at %d", name, i)
				}
				if i := sameBits(a, c); i >= 0 {
					t.Errorf("%s: Forward and Gather+Apply differ at %d", name, i)
				}

				// 1-D positions: every row, the fourth too, at the position, which is HF's text
				// rotation.
				text := randPositions(rng, 6, 512)
				a = newView(dt, qLay, rng)
				b = a.clone()
				if err := cached.Forward(posTensor(text, false), a.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if err := hfText.Forward(posTensor(text, false), b.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if i := sameBits(a, b); i >= 0 {
					t.Errorf("%s: 1-D positions differ from HF's interleaved text rotation at %d", name, i)
				}

				// llama.cpp's text positions: the first three rows at the position, the fourth 0
				// (llm_graph_input_pos::set_input): cos 1, sin 0 leave pairs 61, 62 exactly as
				// they were, and every other pair turns as HF turns it.
				llama := tensor.FromI64(slices.Concat(text, text, text, make([]int64, 6)), 4, 6)
				a = newView(dt, qLay, rng)
				a0, b := a.clone(), a.clone()
				if err := cached.Forward(llama, a.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if err := hfText.Forward(posTensor(text, false), b.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				for tok := range 6 {
					for h := range 4 {
						for i := range 64 {
							j0, j1 := i, i+64
							if style == GPTJ {
								j0, j1 = 2*i, 2*i+1
							}
							for _, j := range []int{j0, j1} {
								x := a.raw(a.index(tok, h, j))
								want := b.raw(b.index(tok, h, j))
								if slices.Contains(fourth, i) {
									want = a0.raw(a0.index(tok, h, j))
								}
								if x != want {
									t.Fatalf("%s: llama.cpp text positions, token %d head %d pair %d dim %d: %#x, want %#x", name, tok, h, i, j, x, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

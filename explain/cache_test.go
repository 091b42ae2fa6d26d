package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// TestExplainCacheNamesTheMistake: npu_mrope candidates written naively (float64 per element,
// cos and sin looked up in the cache), each with one mistake, are named first.
func TestExplainCacheNamesTheMistake(t *testing.T) {
	const T, H, D, rd, P = 6, 3, 16, 12, 64
	rng := rand.New(rand.NewPCG(7, 8))
	heads := func() tensor.Tensor {
		x := tensor.Zeros(tensor.BF16, T, H*D)
		for i := range x.Len() {
			x.SetFloat32(i, float32(rng.NormFloat64()))
		}
		return x
	}
	q, k := heads(), heads()
	cache := tensor.Zeros(tensor.BF16, P, rd)
	for p := range P {
		for i := range rd / 2 {
			a := float64(p) / math.Pow(10000, float64(2*i)/rd)
			cache.SetFloat32(p*rd+i, float32(math.Cos(a)))
			cache.SetFloat32(p*rd+rd/2+i, float32(math.Sin(a)))
		}
	}
	pos := []int64{20, 21, 22, 23, 24, 25}
	params := rotary.NPUMRoPEParams{Positions: tensor.FromI64(pos, T), Query: q, Key: k, CosSinCache: cache, HeadSize: D}
	exact := params
	exact.Query, exact.Key = q.Clone(), k.Clone()
	if err := rotary.NPUMRoPE(nil, exact); err != nil {
		t.Fatal(err)
	}
	type mistake struct {
		style    rope.Style
		shift    int64
		reversed bool
		swapped  bool
		skipKey  bool
	}
	naive := func(m mistake) (tensor.Tensor, tensor.Tensor) {
		rot := func(x tensor.Tensor, skip bool) tensor.Tensor {
			out := x.Clone()
			if skip {
				return out
			}
			for row := 0; row < x.Len(); row += D {
				p := pos[row/(H*D)] + m.shift
				for i := range rd / 2 {
					j, l := i, i+rd/2
					if m.style == rope.GPTJ {
						j, l = 2*i, 2*i+1
					}
					c, s := float64(cache.Float32At(int(p)*rd+i)), float64(cache.Float32At(int(p)*rd+rd/2+i))
					if m.swapped {
						c, s = s, c
					}
					if m.reversed {
						s = -s
					}
					a, b := float64(x.Float32At(row+j)), float64(x.Float32At(row+l))
					out.SetFloat32(row+j, float32(a*c-b*s))
					out.SetFloat32(row+l, float32(b*c+a*s))
				}
			}
			return out
		}
		return rot(q, false), rot(k, m.skipKey)
	}
	for _, c := range []struct {
		want string
		m    mistake
	}{
		{"pairing", mistake{style: rope.GPTJ}},
		{"positions_plus_one", mistake{shift: 1}},
		{"positions_from_zero", mistake{shift: -20}},
		{"rotation_reversed", mistake{reversed: true}},
		{"cos_sin_swapped", mistake{swapped: true}},
		{"key_not_rotated", mistake{skipKey: true}},
	} {
		t.Run(c.want, func(t *testing.T) {
			gq, gk := naive(c.m)
			rep, err := ExplainCache(CacheCase{Params: params,
				Want: map[string]tensor.Tensor{"query": exact.Query, "key": exact.Key},
				Got:  map[string]tensor.Tensor{"query": gq, "key": gk}}, compare.Options{MaxULP: 1, ATol: -1})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				t.Logf("%s: %d of %d, residual %d", f.Mistake, f.Explained, f.Failing, f.Residual)
			}
			if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
				t.Errorf("%+v, want %s first", rep, c.want)
			}
		})
	}
	if _, err := ExplainCache(CacheCase{}, compare.Options{}); err == nil {
		t.Error("the zero CacheCase: no error")
	}
	bad := params
	bad.HeadSize = 5
	if _, err := ExplainCache(CacheCase{Params: bad}, compare.Options{}); err == nil {
		t.Error("a head size the op refuses: no error")
	}
}

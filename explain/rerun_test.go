package explain

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestExplainKVRMSNormRoPECache: npu_kv_rmsnorm_rope_cache (Norm mode) written naively in
// float64 (the norm of c_kv with gamma, k_pe de-interleaved and rotated, each token's rows put
// at its slot),
// with one mistake each, is named first; the naive op itself explains to nothing.
func TestExplainKVRMSNormRoPECache(t *testing.T) {
	const S, Dv, Dk, slots = 4, 8, 4, 8
	rng := rand.New(rand.NewPCG(23, 24))
	fill := func(shape ...int) tensor.Tensor {
		x := tensor.Zeros(tensor.F32, shape...)
		for i := range x.Len() {
			x.SetFloat32(i, float32(rng.NormFloat64()))
		}
		return x
	}
	kv, gamma := fill(1, 1, S, Dv+Dk), fill(Dv)
	cos, sin := tensor.Zeros(tensor.F32, 1, 1, S, Dk), tensor.Zeros(tensor.F32, 1, 1, S, Dk)
	for s := range S {
		for j := range Dk {
			a := float64(s+3) / math.Pow(10000, float64(2*(j%(Dk/2)))/Dk)
			cos.SetFloat32(s*Dk+j, float32(math.Cos(a)))
			sin.SetFloat32(s*Dk+j, float32(math.Sin(a)))
		}
	}
	index := tensor.FromI64([]int64{5, 1, 6, 2}, 1, S)
	kc, ckc := fill(1, 1, slots, Dk), fill(1, 1, slots, Dv)
	inputs := map[string]tensor.Tensor{"kv": kv, "gamma": gamma, "cos": cos, "sin": sin, "index": index, "k_cache": kc, "ckv_cache": ckc}
	rerun := func(in map[string]tensor.Tensor, args map[string]string) (map[string]tensor.Tensor, error) {
		eps, err := strconv.ParseFloat(args["epsilon"], 64)
		if err != nil {
			return nil, err
		}
		p := ops.KVRMSNormRoPECacheParams{KV: in["kv"], Gamma: in["gamma"], Cos: in["cos"], Sin: in["sin"], Index: in["index"],
			KCache: in["k_cache"], CKVCache: in["ckv_cache"], Epsilon: eps}
		if err := rotary.KVRMSNormRoPECache(nil, p); err != nil {
			return nil, err
		}
		return map[string]tensor.Tensor{"k_cache": p.KCache, "ckv_cache": p.CKVCache}, nil
	}
	args := map[string]string{"epsilon": "1e-06"}
	want, err := rerun(map[string]tensor.Tensor{"kv": kv, "gamma": gamma, "cos": cos, "sin": sin, "index": index, "k_cache": kc.Clone(), "ckv_cache": ckc.Clone()}, args)
	if err != nil {
		t.Fatal(err)
	}
	type mistake struct {
		sign, gammaOff, rope float64 // sin's sign; 1: gamma left out; 0: rope skipped
		eps                  float64
		shift                int64
		flat                 bool // k_pe not de-interleaved
	}
	naive := func(m mistake) map[string]tensor.Tensor {
		k, c := kc.Clone(), ckc.Clone()
		for s := range S {
			row := s * (Dv + Dk)
			ss := 0.0
			for j := range Dv {
				ss += float64(kv.Float32At(row+j)) * float64(kv.Float32At(row+j))
			}
			r := 1 / math.Sqrt(ss/Dv+m.eps)
			slot := int(index.Int64At(s) + m.shift)
			for j := range Dv {
				g := float64(gamma.Float32At(j))
				if m.gammaOff == 1 {
					g = 1
				}
				c.SetFloat32(slot*Dv+j, float32(float64(kv.Float32At(row+j))*r*g))
			}
			// The rope part as interleave_rope's: k_pe de-interleaved, then NeoX.
			for i := range Dk / 2 {
				a, b := float64(kv.Float32At(row+Dv+2*i)), float64(kv.Float32At(row+Dv+2*i+1))
				if m.flat {
					a, b = float64(kv.Float32At(row+Dv+i)), float64(kv.Float32At(row+Dv+Dk/2+i))
				}
				c1, s1 := float64(cos.Float32At(s*Dk+i)), m.sign*float64(sin.Float32At(s*Dk+i))
				c2, s2 := float64(cos.Float32At(s*Dk+Dk/2+i)), m.sign*float64(sin.Float32At(s*Dk+Dk/2+i))
				if m.rope == 0 {
					c1, s1, c2, s2 = 1, 0, 1, 0
				}
				k.SetFloat32(slot*Dk+i, float32(a*c1-b*s1))
				k.SetFloat32(slot*Dk+Dk/2+i, float32(b*c2+a*s2))
			}
		}
		return map[string]tensor.Tensor{"k_cache": k, "ckv_cache": c}
	}
	explainKV := func(got map[string]tensor.Tensor) Report {
		rep, err := ExplainRerun(RerunCase{Op: "kv_rmsnorm_rope_cache", Inputs: inputs, Args: args, Rerun: rerun, Want: want, Got: got}, compare.Options{MaxULP: 1, ATol: -1})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	right := mistake{sign: 1, rope: 1, eps: 1e-6}
	if rep := explainKV(naive(right)); rep.Failing != 0 {
		t.Fatalf("the naive op itself: %+v", rep)
	}
	for _, c := range []struct {
		want string
		m    mistake
	}{
		{"rotation_reversed", mistake{sign: -1, rope: 1, eps: 1e-6}},
		{"rope_skipped", mistake{sign: 1, rope: 0, eps: 1e-6}},
		{"norm_weight_skipped", mistake{sign: 1, rope: 1, eps: 1e-6, gammaOff: 1}},
		{"cache_slot_plus_one", mistake{sign: 1, rope: 1, eps: 1e-6, shift: 1}},
		{"not_deinterleaved", mistake{sign: 1, rope: 1, eps: 1e-6, flat: true}},
		{"epsilon", mistake{sign: 1, rope: 1, eps: 1}}, // a visible epsilon: 1e-5 against 1e-6 moves too little
	} {
		rep := explainKV(naive(c.m))
		if c.want == "epsilon" {
			// The reading is 1e-5; a candidate with another wrong epsilon is not reproduced,
			// but nothing else may claim it either.
			for _, f := range rep.Findings {
				if f.Reproduces() {
					t.Errorf("epsilon 1: %s claims to reproduce it", f.Mistake)
				}
			}
			continue
		}
		if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
			t.Errorf("%s: %+v", c.want, rep)
		}
	}
	if _, err := ExplainRerun(RerunCase{Op: "rotary_embedding"}, compare.Options{}); err == nil {
		t.Error("an op without rerun readings: no error")
	}
}

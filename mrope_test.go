package rotary_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// npuCache is the embedding's cos/sin cache as npu_mrope takes it: [n, rotary_dim] F32.
func npuCache(t *testing.T, emb *rotary.Embedding, n int) tensor.Tensor {
	t.Helper()
	c, err := emb.CosSinCache(n, false)
	if err != nil {
		t.Fatal(err)
	}
	return tensor.FromF32(c, n, emb.Spec().RotaryDim)
}

func npuPositions(rows, T int, limit int64) tensor.Tensor {
	p := make([]int64, rows*T)
	for i := range p {
		p[i] = int64(i*37+i/T*11) % limit
	}
	if rows == 1 {
		return tensor.FromI64(p, T)
	}
	return tensor.FromI64(p, rows, T)
}

// TestNPUMRoPEMatchesForward: npu_mrope given an embedding's own cache rotates exactly as the
// embedding's Forward does: plain RoPE (no sections, or zeros), chunked MRoPE with 3 and 4
// sections (cache_mode default), Qwen3-VL's interleaved MRoPE (cache_mode interleave), text-only
// 1-D positions on an MRoPE call, both rotary modes, partial rotary, on every backend.
func TestNPUMRoPEMatchesForward(t *testing.T) {
	const T, P = 9, 300
	type variant struct {
		name      string
		spec      rotary.Spec
		sections  []int
		cacheMode string
		rows      int
	}
	var vs []variant
	for _, st := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
		plain := rotary.Spec{HeadSize: 128, RotaryDim: 64, Base: 10000, Style: st, MaxPositions: P}
		chunked := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, Style: st, MaxPositions: P, MRoPE: &rotary.MRoPE{Sections: []int{16, 24, 24}}}
		four := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, Style: st, MaxPositions: P, MRoPE: &rotary.MRoPE{Sections: []int{16, 16, 16, 16}}}
		inter := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, Style: st, MaxPositions: P, MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}
		vs = append(vs,
			variant{"plain/" + st.String(), plain, nil, "default", 1},
			variant{"plain zeros/" + st.String(), plain, []int{0, 0, 0}, "interleave", 1},
			variant{"chunked/" + st.String(), chunked, []int{16, 24, 24}, "default", 3},
			variant{"four/" + st.String(), four, []int{16, 16, 16, 16}, "default", 4},
			variant{"interleaved/" + st.String(), inter, []int{24, 20, 20}, "interleave", 3},
			variant{"interleaved text/" + st.String(), inter, []int{24, 20, 20}, "interleave", 1},
		)
	}
	for _, v := range vs {
		for _, backend := range []string{ops.Native, ops.Auto} {
			for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
				name := fmt.Sprintf("%s/%s/%v", v.name, backend, d)
				disp, _ := ops.NewDispatcher("all", backend)
				emb, err := rotary.New(v.spec, rotary.WithDispatcher(disp))
				if err != nil {
					t.Fatal(err)
				}
				mode := "half"
				if v.spec.Style == rotary.GPTJ {
					mode = "interleave"
				}
				pos := npuPositions(v.rows, T, P)
				q, k := qknFill(d, 1, T, 4*128), qknFill(d, 2, T, 128)
				wq, wk := q.Clone(), k.Clone()
				if err := emb.Forward(pos, wq, wk); err != nil {
					t.Fatal(err)
				}
				if err := npuMRoPE(disp, pos, q, k, npuCache(t, emb, P), 128, v.sections, mode, v.cacheMode); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !sameBits(q, wq) || !sameBits(k, wk) {
					t.Errorf("%s: differs from Embedding.Forward", name)
				}
			}
		}
	}
}

// TestNPUMRoPECacheForms: a BF16 cache rotates as its float32 widening does; a strided F32
// cache (a view into wider rows) as its contiguous copy.
func TestNPUMRoPECacheForms(t *testing.T) {
	const T, P, rd = 5, 40, 64
	emb, err := rotary.New(rotary.Spec{HeadSize: 64, RotaryDim: rd, Base: 10000, MaxPositions: P})
	if err != nil {
		t.Fatal(err)
	}
	cache := npuCache(t, emb, P)
	pos := npuPositions(1, T, P)
	run := func(c tensor.Tensor) tensor.Tensor {
		q := qknFill(tensor.F32, 9, T, 2, 64)
		if err := npuMRoPE(nil, pos, q, tensor.Tensor{}, c, 64, nil, "half", "default"); err != nil {
			t.Fatal(err)
		}
		return q
	}
	bf := tensor.Zeros(tensor.BF16, P, rd)
	widened := tensor.Zeros(tensor.F32, P, rd)
	wide := tensor.Zeros(tensor.F32, P, rd+6)
	wide.Offset = 3
	for i, v := range cache.F32 {
		bf.Bits[i] = tensor.FromFloat32(tensor.BF16, v)
		widened.F32[i] = tensor.ToFloat32(tensor.BF16, bf.Bits[i])
		wide.F32[3+i/rd*(rd+6)+i%rd] = v
	}
	wide.Shape, wide.Strides = []int{P, rd}, []int{rd + 6, 1}
	if !sameBits(run(bf), run(widened)) {
		t.Error("a BF16 cache differs from its float32 widening")
	}
	if !sameBits(run(wide), run(cache)) {
		t.Error("a strided cache differs from its contiguous copy")
	}
}

// TestNPUMRoPEBadInput: the documented constraints are refused with the argument named, and
// query and key stay untouched.
func TestNPUMRoPEBadInput(t *testing.T) {
	const T, D, P = 4, 128, 50
	emb, err := rotary.New(rotary.Spec{HeadSize: D, RotaryDim: D, Base: 1e6, MaxPositions: P})
	if err != nil {
		t.Fatal(err)
	}
	type args struct {
		pos, q, k, cache     tensor.Tensor
		headSize             int
		sections             []int
		rotaryMode, cacheMod string
	}
	cases := []struct {
		name string
		mod  func(a *args)
		want []string
	}{
		{"rows differ from sections", func(a *args) { a.pos = npuPositions(4, T, P) }, []string{"positions", "4 rows", "3 mrope sections"}},
		{"2 rows", func(a *args) { a.pos = npuPositions(2, T, P) }, []string{"positions", "2 rows"}},
		{"2-D positions, no sections", func(a *args) { a.sections = nil }, []string{"positions", "mrope_section"}},
		{"2-D positions, zero sections", func(a *args) { a.sections = []int{0, 0, 0} }, []string{"positions", "mrope_section"}},
		{"sections sum", func(a *args) { a.sections = []int{24, 20, 16} }, []string{"mrope_section", "sums to 60", "64"}},
		{"negative section", func(a *args) { a.sections = []int{-4, 34, 34} }, []string{"mrope_section", "negative"}},
		{"two sections", func(a *args) { a.sections, a.pos = []int{32, 32}, npuPositions(2, T, P) }, []string{"mrope_section", "3 or 4"}},
		{"4 sections, interleave", func(a *args) { a.sections, a.pos = []int{16, 16, 16, 16}, npuPositions(4, T, P) }, []string{"4 sections", "cache_mode default"}},
		{"cache too short", func(a *args) { a.cache = npuCache(t, emb, 20) }, []string{"positions", "past the cos/sin cache", "20 rows"}},
		{"rotary mode", func(a *args) { a.rotaryMode = "neox" }, []string{"rotary_mode", "neox"}},
		{"cache mode", func(a *args) { a.cacheMod = "chunked" }, []string{"cache_mode", "chunked"}},
		{"head size 0", func(a *args) { a.headSize = 0 }, []string{"head_size 0"}},
		{"query width not a multiple", func(a *args) { a.q = qknFill(tensor.F32, 1, T, 2*D+1) }, []string{"query", "multiple"}},
		{"cache wider than the head", func(a *args) {
			a.headSize = 64
			a.q, a.k = qknFill(tensor.F32, 1, T, 256), qknFill(tensor.F32, 2, T, 64)
		}, []string{"cos_sin_cache", "rotary dim 128", "head_size 64"}},
		{"cache 3-D", func(a *args) { a.cache = tensor.Zeros(tensor.F32, P, 1, D) }, []string{"cos_sin_cache", "shape"}},
		{"cache odd", func(a *args) { a.cache = tensor.Zeros(tensor.F32, P, 7) }, []string{"cos_sin_cache", "rotary dim 7"}},
		{"cache integer", func(a *args) { a.cache = tensor.FromI32(make([]int32, P*D), P, D) }, []string{"cos_sin_cache", "dtype"}},
		{"cache missing", func(a *args) { a.cache = tensor.Tensor{} }, []string{"cos_sin_cache", "missing"}},
		{"key tokens", func(a *args) { a.k = qknFill(tensor.F32, 2, T+1, D) }, []string{"key", "tokens"}},
		{"positions tokens", func(a *args) { a.pos = npuPositions(3, T+1, P) }, []string{"positions", "5 positions for 4 tokens"}},
	}
	for _, c := range cases {
		a := args{pos: npuPositions(3, T, P), q: qknFill(tensor.F32, 1, T, 2*D), k: qknFill(tensor.F32, 2, T, D), cache: npuCache(t, emb, P),
			headSize: D, sections: []int{24, 20, 20}, rotaryMode: "half", cacheMod: "interleave"}
		c.mod(&a)
		expectRefused(t, c.name, func() error {
			return npuMRoPE(nil, a.pos, a.q, a.k, a.cache, a.headSize, a.sections, a.rotaryMode, a.cacheMod)
		}, c.want, a.q, a.k)
	}
}

// TestNPUMRoPEDocumentedCacheModes assembles each token's cos/sin the way the npu_mrope
// documentation writes it, from rows of the cache, and checks NPUMRoPE against
// apply_rotary_emb with them: default concatenates section k of axis k's row
// (cat(cos_t[:t], cos_h[t:t+h], cos_w[t+h:])), interleave starts from axis 0's row and replaces
// [1:3h:3] with axis 1's and [2:3w:3] with axis 2's.
func TestNPUMRoPEDocumentedCacheModes(t *testing.T) {
	const T, P, D = 6, 64, 128
	emb, err := rotary.New(rotary.Spec{HeadSize: D, RotaryDim: D, Base: 1e6, MaxPositions: P})
	if err != nil {
		t.Fatal(err)
	}
	cache := npuCache(t, emb, P)
	half := D / 2
	row := func(p int64) (c, s []float32) {
		return cache.F32[int(p)*D : int(p)*D+half], cache.F32[int(p)*D+half : int(p+1)*D]
	}
	for _, c := range []struct {
		sections  []int
		cacheMode string
	}{{[]int{16, 24, 24}, "default"}, {[]int{8, 8, 8, 40}, "default"}, {[]int{24, 20, 20}, "interleave"}, {[]int{32, 16, 16}, "interleave"}} {
		for _, mode := range []string{"half", "interleave"} {
			rows := len(c.sections)
			pos := npuPositions(rows, T, P)
			cosF, sinF := tensor.Zeros(tensor.F32, T, 1, D), tensor.Zeros(tensor.F32, T, 1, D)
			for tok := range T {
				at := func(axis int) int64 { return pos.I64[axis*T+tok] }
				cs, sn := make([]float32, half), make([]float32, half)
				if c.cacheMode == "default" {
					i := 0
					for axis, n := range c.sections {
						rc, rs := row(at(axis))
						copy(cs[i:i+n], rc[i:i+n])
						copy(sn[i:i+n], rs[i:i+n])
						i += n
					}
				} else {
					rc, rs := row(at(0))
					copy(cs, rc)
					copy(sn, rs)
					for axis, off := range map[int]int{1: 1, 2: 2} {
						rc, rs := row(at(axis))
						for i := off; i < 3*c.sections[axis]; i += 3 {
							cs[i], sn[i] = rc[i], rs[i]
						}
					}
				}
				for j := range D {
					i := j % half // half mode: cat(cos, cos)
					if mode == "interleave" {
						i = j / 2 // repeat_interleave
					}
					cosF.F32[tok*D+j], sinF.F32[tok*D+j] = cs[i], sn[i]
				}
			}
			style := rotary.NeoX
			if mode == "interleave" {
				style = rotary.GPTJ
			}
			x := qknFill(tensor.BF16, 7, T, 3, D)
			want := tensor.Zeros(tensor.BF16, T, 3, D)
			if err := rotary.ApplyRotaryEmb(nil, rotary.ApplyRotaryEmbParams{Layout: ops.THD, X: x, Cos: cosF, Sin: sinF, Out: want, Style: style}); err != nil {
				t.Fatal(err)
			}
			got, err := x.Reshape(T, 3*D)
			if err != nil {
				t.Fatal(err)
			}
			if err := npuMRoPE(nil, pos, got, tensor.Tensor{}, cache, D, c.sections, mode, c.cacheMode); err != nil {
				t.Fatal(err)
			}
			if !sameBits(got, want) {
				t.Errorf("sections %v cache_mode %s rotary_mode %s: differs from the documented assembly", c.sections, c.cacheMode, mode)
			}
		}
	}
}

// npuMRoPE calls NPUMRoPE with torch_npu's string arguments, as the tests write them.
func npuMRoPE(d *ops.Dispatcher, positions, query, key, cosSinCache tensor.Tensor, headSize int, sections []int, rotaryMode, cacheMode string) error {
	style, err := rope.ParseRotaryMode(rotaryMode)
	if err != nil {
		return err
	}
	interleaved, err := ops.ParseMRoPECacheMode(cacheMode)
	if err != nil {
		return err
	}
	return rotary.NPUMRoPE(d, rotary.NPUMRoPEParams{Positions: positions, Query: query, Key: key, CosSinCache: cosSinCache,
		HeadSize: headSize, Sections: sections, Style: style, Interleaved: interleaved})
}

// TestNPUMRoPECacheRowsUsed: a cache that is not F32 and contiguous is read at the rows the
// positions use, never converted whole: a broadcast view of 2^40 rows at position 2^39 works,
// and a BF16 cache of 65536 rows costs one token's cos/sin, not the table, for plain RoPE and
// MRoPE alike, each bit for bit the float32 widening's result.
func TestNPUMRoPECacheRowsUsed(t *testing.T) {
	const rd = 64
	row := tensor.Zeros(tensor.F32, 1, rd)
	for j := range rd {
		row.F32[j] = float32(j%7)/7 - 0.4
	}
	broadcast := tensor.Tensor{DType: tensor.F32, Shape: []int{1 << 40, rd}, Strides: []int{0, 1}, F32: row.F32}
	far := tensor.FromI64([]int64{1 << 39, 1 << 39}, 2)
	q, want := qknFill(tensor.F32, 3, 2, 2, 64), qknFill(tensor.F32, 3, 2, 2, 64)
	if err := npuMRoPE(nil, far, q, tensor.Tensor{}, broadcast, 64, nil, "half", "default"); err != nil {
		t.Fatalf("broadcast cache at 2^39: %v", err)
	}
	if err := npuMRoPE(nil, tensor.FromI64([]int64{0, 0}, 2), want, tensor.Tensor{}, row, 64, nil, "half", "default"); err != nil {
		t.Fatal(err)
	}
	if !sameBits(q, want) {
		t.Error("the broadcast row at 2^39 differs from the same row at position 0")
	}

	const P = 1 << 16
	bf, widened := tensor.Zeros(tensor.BF16, P, rd), tensor.Zeros(tensor.F32, P, rd)
	for i := range bf.Bits {
		bf.Bits[i] = tensor.FromFloat32(tensor.BF16, float32(i%251)/251-0.5)
		widened.F32[i] = tensor.ToFloat32(tensor.BF16, bf.Bits[i])
	}
	for _, c := range []struct {
		name     string
		pos      tensor.Tensor
		sections []int
		mode     string
	}{
		{"plain", tensor.FromI64([]int64{P - 1}, 1), nil, "default"},
		{"mrope chunked", tensor.FromI64([]int64{P - 1, 7, P - 2}, 3, 1), []int{8, 12, 12}, "default"},
		{"mrope interleaved", tensor.FromI64([]int64{P - 1, 7, P - 2}, 3, 1), []int{8, 12, 12}, "interleave"},
	} {
		got, want := qknFill(tensor.BF16, 4, 1, 2, 64), qknFill(tensor.BF16, 4, 1, 2, 64)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := npuMRoPE(nil, c.pos, got, tensor.Tensor{}, bf, 64, c.sections, "half", c.mode); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%s: a BF16 cache of %d rows cost %d bytes for one token", c.name, P, n)
		}
		if err := npuMRoPE(nil, c.pos, want, tensor.Tensor{}, widened, 64, c.sections, "half", c.mode); err != nil {
			t.Fatal(err)
		}
		if !sameBits(got, want) {
			t.Errorf("%s: the BF16 cache differs from its float32 widening", c.name)
		}
	}
}

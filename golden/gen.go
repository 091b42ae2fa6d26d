package golden

// The draws of a bundle's inputs; each op makes its own in its file (Op.inputs).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// input is one named input tensor of a bundle.
type input struct {
	name string
	t    tensor.Tensor
}

// gen draws one bundle's inputs. Allocation errors are sticky (err), so that the makers
// read as the list of their tensors.
type gen struct {
	o      *Options
	c      bundleCase
	pos    Positions
	model  *hf.Model
	spec   rotary.Spec
	disp   *ops.Dispatcher
	rng    *rand.PCG
	limit  int64 // random positions lie in [0, limit)
	hq, hk int   // the head counts heads gave the inputs (0: none asked)
	// args are the op's parameters: the caller's, and those the inputs fix (opFlag).
	args Args
	err  error
}

// opFlag is parameter name's value: the caller's when given, else value, which is set so that
// the op reads it and the bundle's apply_args record it.
func (g *gen) opFlag(name, value string) string {
	if g.o.Args.given(name) {
		return g.args[name]
	}
	p, _ := paramOf(name)
	n, err := p.normalize(value)
	if err != nil && g.err == nil {
		g.err = fmt.Errorf("--%s %q: %v", name, value, err)
	}
	g.args[name] = n
	return value
}

// elements checks the size of a tensor whose tokens dimension is --tokens before it is made.
func (g *gen) elements(name string, shape ...int) int {
	n := shapeElements(shape)
	if n < 0 && g.err == nil {
		g.err = fmt.Errorf("--tokens %d: %s %v would hold more than %d elements", g.c.tokens, name, shape, maxElements)
	}
	return n
}

// shapeElements is the element count of shape, or −1 past maxElements.
func shapeElements(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > maxElements/d) {
			return -1
		}
		n *= d
	}
	if n > maxElements {
		return -1
	}
	return n
}

// uniform draws one value in (−1, 1) on the grid (2k+1)/2^24 − 1, which float32 holds exactly.
func (g *gen) uniform() float32 {
	k := g.rng.Uint64() >> 40
	return float32((float64(2*k+1) - (1 << 24)) / (1 << 24))
}

// intn draws an integer in [0, n).
func (g *gen) intn(n int64) int64 { return int64(g.rng.Uint64() % uint64(n)) }

// values is a tensor of uniform values in the bundle's dtype.
func (g *gen) values(name string, shape ...int) tensor.Tensor {
	n := g.elements(name, shape...)
	if n < 0 {
		return tensor.Tensor{}
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = g.uniform()
	}
	return g.cast(v, shape...)
}

// round rounds float32 values to the bundle's dtype, to nearest, ties to even.
func (g *gen) round(v []float32, shape ...int) tensor.Tensor {
	if g.c.dtype == tensor.F32 {
		return tensor.FromF32(v, shape...)
	}
	bits := make([]uint16, len(v))
	_, _ = tensor.FromFloat32s(g.c.dtype, bits, v) // a 16-bit dtype and equal lengths: cannot fail
	return tensor.FromBits(g.c.dtype, bits, shape...)
}

// cast rounds random values to the bundle's dtype, keeping them inside (−1, 1): a value that
// rounds to ±1 becomes the largest magnitude below 1.
func (g *gen) cast(v []float32, shape ...int) tensor.Tensor {
	d := g.c.dtype
	if d == tensor.F32 {
		return tensor.FromF32(v, shape...)
	}
	below := float32(1 - 1.0/256) // BF16's largest value below 1
	if d == tensor.F16 {
		below = 1 - 1.0/2048
	}
	bits := make([]uint16, len(v))
	for i, x := range v {
		b := tensor.FromFloat32(d, x)
		if r := tensor.ToFloat32(d, b); math.Abs(float64(x)) < 1 && math.Abs(float64(r)) >= 1 {
			b = tensor.FromFloat32(d, float32(math.Copysign(float64(below), float64(x))))
		}
		bits[i] = b
	}
	return tensor.FromBits(d, bits, shape...)
}

// positions is the bundle's positions, [T] for rows ≤ 1 or [rows, T]; a file's are used as
// given.
func (g *gen) positions(rows int) tensor.Tensor {
	if g.pos.kind == "file" {
		return g.pos.file.Clone()
	}
	T := g.c.tokens
	r := max(rows, 1)
	if g.elements("positions", r, T) < 0 {
		return tensor.Tensor{}
	}
	v := make([]int64, r*T)
	for i := range v {
		if g.pos.kind == "random" {
			v[i] = g.intn(g.limit)
		} else {
			v[i] = g.pos.start + int64(i%T)
		}
	}
	if rows <= 1 {
		return tensor.FromI64(v, T)
	}
	return tensor.FromI64(v, r, T)
}

// positionRows is the row count of the model's positions: one per MRoPE section, else 1.
func (g *gen) positionRows() int {
	if m := g.spec.MRoPE; m != nil {
		return len(m.Sections)
	}
	return 1
}

// heads is the inputs' query and key/value head counts: --heads and --kv-heads, else the
// model's.
func (g *gen) heads() (hq, hk int) {
	hq, hk = max(g.model.NumHeads, 1), g.model.NumKVHeads
	if hk <= 0 {
		hk = hq
	}
	if g.o.Heads > 0 {
		hq = g.o.Heads
	}
	if g.o.KVHeads > 0 {
		hk = g.o.KVHeads
	}
	g.hq, g.hk = hq, hk
	return hq, hk
}

// embedding is the layer's RoPE, for the ops that take cos/sin as tensors.
func (g *gen) embedding() (*rotary.Embedding, error) {
	if g.spec.NoRoPE {
		return nil, fmt.Errorf("--layer %d: the layer has no RoPE, so --op %s has no cos/sin to take", g.c.layer, g.o.Op)
	}
	emb, err := rotary.New(g.spec, rotary.WithCacheLen(0), rotary.WithDispatcher(g.disp))
	if err != nil {
		return nil, err
	}
	return emb, nil
}

// gathered is the cos/sin of the positions as rotary_embedding would use them (Embedding.Gather:
// the table the call's largest position picks, MRoPE sections mixed).
func (g *gen) gathered(positions tensor.Tensor) (*rotary.CosSin, error) {
	if g.err != nil {
		return nil, g.err
	}
	emb, err := g.embedding()
	if err != nil {
		return nil, err
	}
	if g.spec.DualChunk != nil {
		return nil, fmt.Errorf("--op %s: dual-chunk models map positions per query variant, so there is no one cos/sin per token (use --op rotary_embedding)", g.o.Op)
	}
	cs := new(rotary.CosSin)
	if err := emb.Gather(positions, cs); err != nil {
		return nil, fmt.Errorf("--positions: %v", err)
	}
	return cs, nil
}

// table is the cos/sin of positions 0..rows−1 as one call whose largest position is rows−1
// (which picks the same LongRoPE table and dynamic-NTK length as the bundle's positions).
func (g *gen) table(rows int64) (*rotary.CosSin, error) {
	if g.err != nil {
		return nil, g.err
	}
	if rows < 1 || shapeElements([]int{int(min(rows, math.MaxInt32)), g.spec.RotaryDim}) < 0 {
		g.err = fmt.Errorf("--positions %s: --op %s would hold cos/sin tables of %d rows (up to the largest position) × %d, more than %d elements", g.pos.Label, g.o.Op, rows, g.spec.RotaryDim, maxElements)
		return nil, g.err
	}
	v := make([]int64, rows)
	for i := range v {
		v[i] = int64(i)
	}
	return g.gathered(tensor.FromI64(v, int(rows)))
}

// fullWidth is the gathered cos and sin at full rotary width in style's pairing, rounded to the
// bundle's dtype, in shape (CosSin.FullWidth: the cos/sin the explicit-cos/sin ops take).
func (g *gen) fullWidth(cs *rotary.CosSin, style rotary.Style, shape ...int) (cos, sin tensor.Tensor, err error) {
	cos, sin = tensor.Zeros(g.c.dtype, shape...), tensor.Zeros(g.c.dtype, shape...)
	if err := cs.FullWidth(style, cos, sin); err != nil {
		return cos, sin, fmt.Errorf("--op %s: %v", g.o.Op, err)
	}
	return cos, sin, nil
}

// maxPosition is the largest value of checked-shape positions.
func maxPosition(p tensor.Tensor) int64 {
	m := int64(0)
	for i := range p.Len() {
		m = max(m, p.Int64At(i))
	}
	return m
}

// rotaryModeOf is --rotary-mode's name of the spec's pairing.
func rotaryModeOf(s rotary.Spec) string {
	if s.Style == rotary.GPTJ {
		return "interleave"
	}
	return "half"
}

// int8s is a tensor of uniform int8 values (the draw's top byte): an int8 cache's old contents.
func (g *gen) int8s(name string, shape ...int) tensor.Tensor {
	n := g.elements(name, shape...)
	if n < 0 {
		return tensor.Tensor{}
	}
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(g.rng.Uint64() >> 56)
	}
	return tensor.FromI8(v, shape...)
}

// scales are F32 per-channel quantisation scales 32·(1.5 + v), v uniform in (−1, 1): 16 to 80,
// so that the normalised part (|y| up to a few) and the rotated rope part (|y| < 2) use the int8
// range and some values saturate.
func (g *gen) scales(n int) tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = 32 * (1.5 + g.uniform())
	}
	return tensor.FromF32(v, n)
}

// offsets are F32 per-channel quantisation offsets 8·v, v uniform in (−1, 1).
func (g *gen) offsets(n int) tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = 8 * g.uniform()
	}
	return tensor.FromF32(v, n)
}

// shuffled is a seeded permutation of 0..n−1 (Fisher–Yates).
func (g *gen) shuffled(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	for i := n - 1; i > 0; i-- {
		j := g.intn(int64(i + 1))
		v[i], v[j] = v[j], v[i]
	}
	return v
}

// configRMSNormEps is the config's rms_norm_eps (text_config's first) as a flag value, when it is
// a finite number ≥ 0.
func configRMSNormEps(configJSON []byte) (string, bool) {
	raw, err := hf.ReadRaw(configJSON)
	if err != nil {
		return "", false
	}
	eps, ok := raw.RMSNormEps()
	if !ok || !(eps >= 0) || math.IsInf(eps, 0) {
		return "", false
	}
	return strconv.FormatFloat(eps, 'g', -1, 64), true
}

// kvLoraRank is the config's kv_lora_rank (DeepSeek MLA's compressed kv width), or
// defaultKVLoraRank.
func kvLoraRank(configJSON []byte) int {
	raw, err := hf.ReadRaw(configJSON)
	if err != nil {
		return defaultKVLoraRank
	}
	if r, ok := raw.KVLoRARank(); ok && r >= 1 && r <= 1<<16 && r == math.Trunc(r) {
		return int(r)
	}
	return defaultKVLoraRank
}

// intArg is an Int parameter's value (normalized: it parses).
func (g *gen) intArg(name string) int {
	n, _ := g.args.int(name)
	return n
}

package rotary

import (
	"fmt"
	"math"
	"sync"

	_ "github.com/rotary-go/rotary/backend/cpu"    // the fast CPU kernels
	_ "github.com/rotary-go/rotary/backend/native" // the reference implementation of every op
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// Embedding is a model's RoPE ready to apply: the spec plus its cos/sin cache, built once.
// An Embedding is immutable after New and safe for concurrent use by many goroutines.
type Embedding struct {
	spec     Spec
	invFreq  []float64
	attn     float64
	cache    ops.CosSinCache // the static table (LongRoPE: the short factors)
	long     ops.CosSinCache // LongRoPE's long-factor table; Rows == 0 otherwise
	longInv  []float64
	longAttn float64
	scratch  sync.Pool // *CosSin for Forward calls the cache cannot serve
	disp     *ops.Dispatcher
	rows     []int // accepted 2-D position row counts
}

// Option configures New.
type Option func(*options)

type options struct {
	cacheLen    int
	cacheLenSet bool
	disp        *ops.Dispatcher
}

// WithDispatcher routes the embedding's ops through d (which backends, which ops enabled)
// instead of ops.Default.
func WithDispatcher(d *ops.Dispatcher) Option { return func(o *options) { o.disp = d } }

// WithCacheLen sets how many positions the cos/sin cache covers (default Spec.DefaultCacheLen).
// Positions past the cache still work: their cos/sin are computed per call, exactly as the
// cache would hold them, only slower.
func WithCacheLen(n int) Option { return func(o *options) { o.cacheLen, o.cacheLenSet = n, true } }

// maxCacheElems bounds the cache at 2^31 float32 (8 GiB; what int can count on 32-bit
// platforms): a config asking for more is a typo.
const maxCacheElems = min(1<<31, math.MaxInt)

// MaxCacheLen is the most rows a cos/sin table of the rotary dim may have (New's cache,
// CosSinCache): 2^31 float32 values in all, or what int counts on a 32-bit platform.
func MaxCacheLen(rotaryDim int) int {
	if rotaryDim <= 0 {
		return 0
	}
	return maxCacheElems / rotaryDim
}

// checkCacheRows refuses a table of rows × 2·half float32 over maxCacheElems. It divides rather
// than multiplies: rows comes from user input (a config, a flag) and the product could wrap.
func checkCacheRows(what string, rows, rotaryDim int) error {
	limit := MaxCacheLen(rotaryDim)
	if rows < 0 || rows > limit {
		return fmt.Errorf("%s %d: want 0..%d (a cos/sin cache of at most %d float32 values)", what, rows, limit, maxCacheElems)
	}
	return nil
}

// New checks spec and builds its cos/sin cache: one RoPE, for one layer or for every layer of a
// model whose layers all rotate alike. A spec with per-layer rules (Spec.Local: Gemma 3's
// sliding layers, Llama 4's layers without RoPE, any layer_types model) is refused with an
// error wrapping ErrSpec, since one table would give every layer the same RoPE: build a layer's
// with New(spec.ForLayer(l)), or the whole model with NewLayers.
func New(spec Spec, opts ...Option) (*Embedding, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Local != nil {
		return nil, errPerLayer
	}
	o := options{disp: ops.Default}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.disp == nil {
		o.disp = ops.Default
	}
	if spec.NoRoPE {
		if o.cacheLenSet && o.cacheLen < 0 {
			return nil, fmt.Errorf("cache length %d: want ≥ 0", o.cacheLen)
		}
		return newNoRoPE(spec, o.disp), nil
	}
	n := o.cacheLen
	if !o.cacheLenSet {
		n = spec.DefaultCacheLen()
	}
	if err := checkCacheRows("cache length", n, spec.RotaryDim); err != nil {
		if !o.cacheLenSet {
			return nil, fmt.Errorf("%w (the default, from max_position_embeddings and the scaling; choose one with WithCacheLen)", err)
		}
		return nil, err
	}
	e := &Embedding{spec: spec, disp: o.disp}
	if spec.MRoPE != nil {
		e.rows = []int{len(spec.MRoPE.Sections)}
	}
	e.invFreq, e.attn = spec.Frequencies(-1)
	short := n
	if spec.Scaling.Type == ScalingLongRoPE {
		// The short factors serve only positions below the original length.
		short = min(n, spec.OriginalMax())
		e.longInv, e.longAttn = spec.Frequencies(spec.OriginalMax())
		e.long = buildCache(n, e.longInv, e.longAttn)
	}
	e.cache = buildCache(short, e.invFreq, e.attn)
	e.scratch.New = func() any { return new(CosSin) }
	return e, nil
}

// newNoRoPE is the embedding of a layer without RoPE: no frequencies and no cache, only what
// checks the arguments (head size, position rows).
func newNoRoPE(spec Spec, disp *ops.Dispatcher) *Embedding {
	e := &Embedding{spec: spec, disp: disp, attn: 1}
	if spec.MRoPE != nil {
		e.rows = []int{len(spec.MRoPE.Sections)}
	}
	e.scratch.New = func() any { return new(CosSin) }
	return e
}

// ready refuses a nil Embedding or one not built by New (the zero value has no dispatcher), so
// that every method fails with one clear error instead of dereferencing nothing.
func (e *Embedding) ready() error {
	if e == nil || e.disp == nil {
		return errNotBuilt
	}
	return nil
}

func buildCache(rows int, inv []float64, attn float64) ops.CosSinCache {
	c := ops.CosSinCache{Data: make([]float32, rows*2*len(inv)), Rows: rows, Half: len(inv)}
	fillCache(c.Data, 0, rows, inv, attn)
	return c
}

// Spec returns the embedding's spec (the zero Spec for a nil Embedding).
func (e *Embedding) Spec() Spec {
	if e == nil {
		return Spec{}
	}
	return e.spec
}

// InvFreq returns a copy of the static inverse frequencies (LongRoPE: the short ones); nil for a
// nil Embedding.
func (e *Embedding) InvFreq() []float64 {
	if e == nil {
		return nil
	}
	return append([]float64(nil), e.invFreq...)
}

// LongInvFreq returns LongRoPE's long-factor inverse frequencies, nil for other variants and for
// a nil Embedding.
func (e *Embedding) LongInvFreq() []float64 {
	if e == nil {
		return nil
	}
	return append([]float64(nil), e.longInv...)
}

// AttentionFactor is the factor the static table's cos and sin carry (0 for a nil Embedding).
func (e *Embedding) AttentionFactor() float64 {
	if e == nil {
		return 0
	}
	return e.attn
}

// CacheLen is the number of positions the cache covers (0 for a nil Embedding).
func (e *Embedding) CacheLen() int {
	if e == nil {
		return 0
	}
	return max(e.cache.Rows, e.long.Rows)
}

// CosSinCache returns a copy of the first n rows of the cache in vLLM's layout ([n, RotaryDim]:
// cos half, then sin half, attention factor applied), computing rows past the cache. long selects
// LongRoPE's long-factor table.
func (e *Embedding) CosSinCache(n int, long bool) ([]float32, error) {
	if err := e.ready(); err != nil {
		return nil, err
	}
	if e.spec.NoRoPE {
		return nil, errNoRoPE
	}
	if err := checkCacheRows("positions", n, e.spec.RotaryDim); err != nil {
		return nil, err
	}
	out := make([]float32, n*e.spec.RotaryDim)
	return out, e.CosSinCacheAt(0, out, long)
}

// CosSinCacheAt fills dst with the rows first, first+1, ... of the table CosSinCache gives
// (len(dst)/RotaryDim of them), the same values whichever rows a call starts at, so that a
// table too large to hold can be written in pieces. len(dst) must be a multiple of RotaryDim.
func (e *Embedding) CosSinCacheAt(first int, dst []float32, long bool) error {
	if err := e.ready(); err != nil {
		return err
	}
	if e.spec.NoRoPE {
		return errNoRoPE
	}
	d := e.spec.RotaryDim
	if len(dst)%d != 0 {
		return fmt.Errorf("dst: %d values: want a multiple of the rotary dim %d", len(dst), d)
	}
	n := len(dst) / d
	if first < 0 || first > math.MaxInt-n {
		return fmt.Errorf("first row %d: want ≥ 0, with %d rows after it within int", first, n)
	}
	if long && e.longInv == nil {
		return fmt.Errorf("the long cos/sin table exists only for longrope scaling, not %q", e.spec.Scaling.Type)
	}
	c, inv, attn := e.cache, e.invFreq, e.attn
	if long {
		c, inv, attn = e.long, e.longInv, e.longAttn
	}
	have := 0 // rows the built table holds
	if first < c.Rows {
		have = min(n, c.Rows-first)
		copy(dst, c.Data[first*d:(first+have)*d])
	}
	fillCache(dst[have*d:], first+have, n-have, inv, attn)
	return nil
}

// positionRows is the set of position-tensor row counts the spec accepts in 2-D form.
func (e *Embedding) positionRows() []int { return e.rows }

// table picks the cos/sin table for a call whose largest position is maxPos; ok is false when
// the call needs frequencies no table holds (dynamic NTK per call past the trained length).
func (e *Embedding) table(maxPos int64) (c ops.CosSinCache, ok bool) {
	if t := e.tableFor(maxPos); t != nil {
		return *t, true
	}
	return ops.CosSinCache{}, false
}

// tableFor is table as a pointer into e, nil for no table: Forward copies the table into the
// op's arguments from e, not from a value just returned in registers and spilled.
func (e *Embedding) tableFor(maxPos int64) *ops.CosSinCache {
	sc := &e.spec.Scaling // a copy of the whole Scaling would cost more than the choice
	switch {
	case sc.Type == ScalingLongRoPE && maxPos >= int64(e.spec.OriginalMax()):
		return &e.long
	case sc.Type == ScalingDynamic && sc.Dynamic == DynamicPerCall && maxPos >= int64(e.spec.DynamicMax()):
		return nil
	}
	return &e.cache
}

// Forward rotates query and key (may be the zero Tensor) in place at the given positions: vLLM's
// RotaryEmbedding.forward (op rotary_embedding), or MRoPE's when the spec has sections.
//
// positions is [T] (int32 or int64), or [len(sections), T] for an MRoPE model; 1-D positions
// for an MRoPE model are text-only input (every axis equals the position; under llama.cpp's
// IMROPE layout the fourth row too, which is HF's text rotation and not llama.cpp's: see
// MRoPE.GGMLFourth). query and key are
// [T, H, D] or [T, H·D] in F32, F16 or BF16 with D the spec's head size; heads and tokens may be
// strided. On error nothing is written. An embedding of a layer without RoPE (Spec.NoRoPE)
// checks the arguments the same way and leaves query and key untouched.
func (e *Embedding) Forward(positions, query, key tensor.Tensor) error {
	if err := e.ready(); err != nil {
		return err
	}
	// The arguments are checked straight into the op's: a decode call rotates one token, and
	// copying views from layer to layer would cost more than the rotation.
	var a ops.RotaryEmbeddingArgs
	if err := ops.QueryKeyInto(&a.Query, &a.Key, &query, &key, e.spec.HeadSize); err != nil {
		return err
	}
	if err := ops.PositionsInto(&a.Positions, &positions, a.Query.Tokens, e.positionRows(), ops.NoLimit); err != nil {
		return err
	}
	if e.spec.NoRoPE {
		return nil // the arguments were checked; a layer without RoPE leaves q and k as they are
	}
	if e.spec.DualChunk != nil {
		return errDualChunk
	}
	if e.fromTable(&a) {
		// Passed from this variable, the arguments are copied once, into the call; through a
		// pointer they would be copied twice.
		_, err := ops.Run(e.disp, ops.RotaryEmbedding, a)
		return err
	}
	return e.run(&a)
}

// rope is the spec's rotation of checked q and k, as every op's arguments carry it.
func (e *Embedding) rope(q, k ops.Heads) ops.RoPE {
	return ops.RoPE{RotaryDim: e.spec.RotaryDim, GPTJ: e.spec.Style == GPTJ, Query: q, Key: k}
}

// forward rotates checked q and k at checked positions.
func (e *Embedding) forward(pos *ops.Positions, q, k ops.Heads) error {
	a := ops.RotaryEmbeddingArgs{Positions: *pos}
	a.Query, a.Key = q, k
	if e.fromTable(&a) {
		_, err := ops.Run(e.disp, ops.RotaryEmbedding, a)
		return err
	}
	return e.run(&a)
}

// fromTable fills in the rest of a for op rotary_embedding and reports whether that op serves
// it: one row of positions, all of them in the table the largest one picks.
func (e *Embedding) fromTable(a *ops.RotaryEmbeddingArgs) bool {
	a.RotaryDim, a.GPTJ = e.spec.RotaryDim, e.spec.Style == GPTJ
	c := e.tableFor(a.Positions.Max)
	if c == nil || a.Positions.Rows > 1 || a.Positions.Max >= int64(c.Rows) {
		return false
	}
	a.Cache = *c
	return true
}

// run rotates what fromTable leaves: MRoPE positions from the table, and positions the table
// cannot serve through the gather.
func (e *Embedding) run(a *ops.RotaryEmbeddingArgs) error {
	pos := &a.Positions
	if c := e.tableFor(pos.Max); c != nil && pos.Max < int64(c.Rows) {
		m := e.spec.MRoPE
		_, err := ops.Run(e.disp, ops.MRoPE, ops.MRoPEArgs{RoPE: a.RoPE, Positions: *pos, Cache: *c, Sections: m.Sections, Interleaved: m.Interleaved, AlternateHW: m.AlternateHW, GGMLFourth: m.GGMLFourth})
		return err
	}
	cs := e.scratch.Get().(*CosSin)
	defer e.scratch.Put(cs)
	e.gather(pos, cs)
	_, err := ops.Run(e.disp, ops.RotaryEmbeddingGather, ops.GatheredArgs{RoPE: a.RoPE, Cos: cs.cos, Sin: cs.sin, Half: cs.half})
	return err
}

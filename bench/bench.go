package bench

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// Case is one operator on one model shape.
type Case struct {
	Op, Model string
	// MaxTokens bounds the token counts the case accepts.
	MaxTokens int
	// Setup builds inputs for `tokens` tokens of dtype d and returns the call to time and the
	// bytes it must move (read plus write).
	Setup func(d tensor.DType, tokens int, disp *ops.Dispatcher) (call func() error, bytes int, err error)
}

var cases []Case

// Register adds a case to the suite (from an init function of the file that defines it).
func Register(c Case) {
	for _, have := range cases {
		if have.Op == c.Op && have.Model == c.Model {
			panic("bench: duplicate case " + c.Op + " " + c.Model)
		}
	}
	cases = append(cases, c)
}

// llama3 and qwen3VL are the benchmark's shapes: 32 query and 8 key/value heads of 128.
var (
	llama3  = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 16384}
	qwen3VL = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5000000, Style: rotary.NeoX, MaxPositions: 16384,
		MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}
)

func init() {
	Register(Case{Op: ops.RotaryEmbedding.Name(), Model: "llama-3-8b", MaxTokens: 16384, Setup: forwardSetup(llama3, 32, 8, false)})
	Register(Case{Op: ops.MRoPE.Name(), Model: "qwen3-vl", MaxTokens: 16384, Setup: forwardSetup(qwen3VL, 32, 8, false)})
}

// forwardSetup times Embedding.Forward of q and k, or with qkNorm Embedding.ForwardQKNorm. The
// bytes are q's and k's read and write either way: the fused norm moves no more memory.
func forwardSetup(spec rotary.Spec, heads, kvHeads int, qkNorm bool) func(tensor.DType, int, *ops.Dispatcher) (func() error, int, error) {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, int, error) {
		emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
		if err != nil {
			return nil, 0, err
		}
		D := spec.HeadSize
		q := Filled(d, T, heads, D)
		k := Filled(d, T, kvHeads, D)
		pos := positions(spec, T)
		bytes := 2 * (q.Len() + k.Len()) * d.Size()
		if qkNorm {
			qw, kw := signs(d, D), signs(d, D)
			return func() error { return emb.ForwardQKNorm(pos, q, k, qw, kw, 1e-6) }, bytes, nil
		}
		return func() error { return emb.Forward(pos, q, k) }, bytes, nil
	}
}

// signs is a norm weight of ±1 (random signs). The bench applies qk_rmsnorm_rope to the same
// tensors over and over, in place: with weights of other magnitudes each application scales
// elements apart and renormalizes, so the data would converge to a few large elements and
// zeros and subnormals everywhere else, and the figures would time the kernels' subnormal
// fallback instead of the op. Unit weights keep every element's scale; the arithmetic done is
// the same for any weight.
func signs(d tensor.DType, n int) tensor.Tensor {
	w := Filled(d, n)
	for i := range n {
		v := float32(1)
		if w.Float64At(i) < 0 {
			v = -1
		}
		if d == tensor.F32 {
			w.F32[i] = v
		} else {
			w.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return w
}

// Config selects what to run. Empty lists mean everything.
type Config struct {
	Ops      []string
	Models   []string
	Backends []string // "native", "cpu", or "cpu/<impl>" for one kernel set
	DTypes   []tensor.DType
	Tokens   []int
	// Time is the minimum measured time per figure (op and copy each).
	Time time.Duration
	// CustomOps is the enable spec for the dispatchers (vLLM's custom_ops).
	CustomOps string
}

// DefaultOps are what a bare `rotary bench` measures: the rotations on Llama-3-8B
// and Qwen3-VL shapes. "all" selects every registered case.
var DefaultOps = []string{"rotary_embedding", "mrope"}

// DefaultTokens are the benchmark's token counts.
var DefaultTokens = []int{1, 16, 512, 4096, 16384}

// Result is one measured figure; the JSON names are a contract (README, Benchmarks).
type Result struct {
	Op        string  `json:"op"`
	Backend   string  `json:"backend"`
	DType     string  `json:"dtype"`
	Model     string  `json:"model"`
	Tokens    int     `json:"tokens"`
	Threads   int     `json:"threads"`
	NsPerCall float64 `json:"ns_per_call"`
	GBps      float64 `json:"gbps"`
	CopyGBps  float64 `json:"copy_gbps"`
	Ratio     float64 `json:"ratio"`
	Served    string  `json:"served_by"`
}

// Backends lists the backend choices the suite knows on this machine.
func Backends() []string {
	b := []string{ops.Native, cpu.Name}
	impls := cpu.Implementations()
	if len(impls) > 1 {
		for _, i := range impls {
			b = append(b, cpu.Name+"/"+i)
		}
	}
	return b
}

type task struct {
	c       Case
	backend string
	dtype   tensor.DType
	tokens  int
}

func (c *Config) tasks() ([]task, error) {
	for _, m := range c.Models {
		if !slices.Contains(ModelNames(), m) {
			return nil, fmt.Errorf("model %q: want one of %v", m, ModelNames())
		}
	}
	opsWanted := c.Ops
	switch {
	case len(opsWanted) == 0:
		opsWanted = DefaultOps
	case slices.Contains(opsWanted, "all"):
		opsWanted = OpNames()
	}
	for _, o := range opsWanted {
		if !slices.Contains(OpNames(), o) {
			return nil, fmt.Errorf("op %q: want all or one of %v", o, OpNames())
		}
	}
	backends := c.Backends
	if len(backends) == 0 {
		backends = []string{ops.Native, cpu.Name}
	}
	for _, b := range backends {
		if !slices.Contains(Backends(), b) {
			return nil, fmt.Errorf("backend %q: want one of %v", b, Backends())
		}
	}
	dtypes := c.DTypes
	if len(dtypes) == 0 {
		dtypes = []tensor.DType{tensor.F32, tensor.BF16, tensor.F16}
	}
	tokens := c.Tokens
	if len(tokens) == 0 {
		tokens = DefaultTokens
	}
	var ts []task
	for _, cs := range cases {
		if len(c.Models) > 0 && !slices.Contains(c.Models, cs.Model) || !slices.Contains(opsWanted, cs.Op) {
			continue
		}
		for _, d := range dtypes {
			for _, T := range tokens {
				if T <= 0 || T > cs.MaxTokens {
					return nil, fmt.Errorf("tokens %d: %s on %s takes 1..%d", T, cs.Op, cs.Model, cs.MaxTokens)
				}
				for _, b := range backends {
					ts = append(ts, task{c: cs, backend: b, dtype: d, tokens: T})
				}
			}
		}
	}
	return ts, nil
}

// ModelNames lists the benchmark shapes.
func ModelNames() []string { return names(func(c Case) string { return c.Model }) }

// OpNames lists the benchmarked ops.
func OpNames() []string { return names(func(c Case) string { return c.Op }) }

func names(f func(Case) string) []string {
	var n []string
	for _, c := range cases {
		if !slices.Contains(n, f(c)) {
			n = append(n, f(c))
		}
	}
	sort.Strings(n)
	return n
}

// Count is the number of figures c produces.
func (c *Config) Count() (int, error) {
	ts, err := c.tasks()
	return len(ts), err
}

// Run measures every figure; progress (may be nil) is called after each.
func Run(c Config, progress func(done, total int, r Result)) ([]Result, error) {
	ts, err := c.tasks()
	if err != nil {
		return nil, err
	}
	if c.Time <= 0 {
		c.Time = 100 * time.Millisecond
	}
	prevImpl := cpu.Active()
	defer cpu.SetImplementation(prevImpl)
	var out []Result
	for i, t := range ts {
		r, err := measure(c, t)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if progress != nil {
			progress(i+1, len(ts), r)
		}
	}
	return out, nil
}

func measure(c Config, t task) (Result, error) {
	backend := t.backend
	if impl, ok := cutPrefix(backend, cpu.Name+"/"); ok {
		if err := cpu.SetImplementation(impl); err != nil {
			return Result{}, err
		}
		backend = cpu.Name
	} else if backend == cpu.Name {
		cpu.SetImplementation(cpu.Implementations()[0])
	}
	spec := c.CustomOps
	if spec == "" {
		spec = "all"
	}
	disp, err := ops.NewDispatcher(spec, backend)
	if err != nil {
		return Result{}, err
	}
	call, bytes, err := t.c.Setup(t.dtype, t.tokens, disp)
	if err != nil {
		return Result{}, err
	}
	if err := call(); err != nil {
		return Result{}, err
	}
	op, T := t.c.Op, t.tokens
	threads := 1
	if disp.Which(op) == cpu.Name && T > 1 {
		threads = cpu.ThreadsFor(bytes) // the copy gets the threads the op gets
	}
	// The copy reads real bytes: a never-written src would map every page to the kernel's one
	// zero page, whose reads always hit the cache, and the baseline would not move the bytes.
	src := make([]byte, bytes/2)
	for i := range src {
		src[i] = byte(i*131 + i>>12)
	}
	dst := make([]byte, bytes/2)
	cp := func() error {
		if threads > 1 {
			cpu.Copy(dst, src) // same pool, same threads as the op
		} else {
			copy(dst, src)
		}
		return nil
	}
	// Interleave op and copy rounds so both see the same machine state; keep the best of each.
	best := func(f func() error, n int) time.Duration {
		start := time.Now()
		for range n {
			f()
		}
		return time.Since(start) / time.Duration(n)
	}
	n := calibrate(call, c.Time/5)
	nc := calibrate(cp, c.Time/5)
	var tOp, tCopy time.Duration
	for r := 0; r < 5; r++ {
		if d := best(call, n); tOp == 0 || d < tOp {
			tOp = d
		}
		if d := best(cp, nc); tCopy == 0 || d < tCopy {
			tCopy = d
		}
	}
	ns := float64(tOp.Nanoseconds())
	if ns == 0 {
		ns = 1
	}
	cns := max(float64(tCopy.Nanoseconds()), 1)
	return Result{
		Op: op, Backend: t.backend, DType: t.dtype.String(), Model: t.c.Model, Tokens: T, Threads: threads,
		NsPerCall: ns, GBps: float64(bytes) / ns, CopyGBps: float64(bytes) / cns, Ratio: cns / ns,
		Served: disp.Which(op),
	}, nil
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

// calibrate finds a repetition count that takes about d.
func calibrate(f func() error, d time.Duration) int {
	n := 1
	for {
		start := time.Now()
		for range n {
			f()
		}
		el := time.Since(start)
		if el >= d || n >= 1<<30 {
			return n
		}
		if el <= 0 {
			n *= 100
			continue
		}
		n = max(n+1, min(n*100, int(float64(n)*float64(d)/float64(el)*1.1)))
	}
}

// Filled makes a tensor of pseudo-random values in (-1, 1) (not zeros: they take slow paths).
func Filled(d tensor.DType, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	x := uint32(12345)
	for i := range t.Len() {
		x = x*1664525 + 1013904223
		v := float32(int32(x>>8)-(1<<23)) / (1 << 23)
		if d == tensor.F32 {
			t.F32[i] = v
		} else {
			t.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return t
}

func positions(spec rotary.Spec, T int) tensor.Tensor {
	if spec.MRoPE == nil {
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(i)
		}
		return tensor.FromI64(p, T)
	}
	rows := len(spec.MRoPE.Sections)
	p := make([]int64, rows*T)
	for r := range rows {
		for i := range T {
			p[r*T+i] = int64(i / (r + 1)) // distinct axes, as image tokens have
		}
	}
	return tensor.FromI64(p, rows, T)
}

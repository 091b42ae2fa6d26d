package rotarytest

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// Options tunes the comparison. The zero value demands bit-identical results, which a backend
// that keeps the reference's order of operations (no fused multiply-add) achieves.
type Options struct {
	// MaxULP is how many units in the last place of the output dtype an element may differ.
	MaxULP int64
	// Short runs a reduced sweep (for -short and slow backends).
	Short bool
}

// Result is one case of the sweep.
type Result struct {
	Op      string
	Case    string
	MaxULP  int64  // worst element difference, in ULP of the output dtype
	Skipped string // why the case did not run, if it did not
	Err     error  // the backend failed outright (a panic, a guard overwritten)
}

// Failed reports whether r fails under opts.
func (r Result) Failed(opts Options) bool {
	return r.Skipped == "" && (r.Err != nil || r.MaxULP > opts.MaxULP)
}

func (r Result) String() string {
	switch {
	case r.Skipped != "":
		return fmt.Sprintf("%s %s: skipped (%s)", r.Op, r.Case, r.Skipped)
	case r.Err != nil:
		return fmt.Sprintf("%s %s: %v", r.Op, r.Case, r.Err)
	}
	return fmt.Sprintf("%s %s: max %d ULP", r.Op, r.Case, r.MaxULP)
}

// Run runs the sweep against backend as subtests of t and fails each case over tolerance.
func Run(t *testing.T, backend string, opts Options) {
	t.Helper()
	if testing.Short() {
		opts.Short = true
	}
	results, err := Sweep(backend, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		t.Run(r.Op+"/"+r.Case, func(t *testing.T) {
			switch {
			case r.Skipped != "":
				t.Skip(r.Skipped)
			case r.Failed(opts):
				t.Errorf("%v (tolerance %d ULP)", r, opts.MaxULP)
			}
		})
	}
}

// Sweep runs every case and returns the results; an error means the backend is unknown.
func Sweep(backend string, opts Options) ([]Result, error) {
	under, err := ops.NewDispatcher("all", backend)
	if err != nil {
		return nil, err
	}
	ref, err := ops.NewDispatcher("none", ops.Auto)
	if err != nil {
		return nil, err
	}
	s := &sweep{under: under, ref: ref, backend: backend, opts: opts}
	s.rotaryEmbedding()
	s.mrope()
	s.applyRotaryEmb()
	for _, name := range sortedKeys(extraCases) {
		extraCases[name](s)
	}
	return s.results, nil
}

// extraCases holds the sweeps of further ops, each file adding its own from init.
var extraCases = map[string]func(*sweep){}

// addCases registers an op's sweep under a unique name; it runs after the built-in ones.
func addCases(name string, f func(*sweep)) {
	if _, dup := extraCases[name]; dup {
		panic("rotarytest: duplicate cases " + name)
	}
	extraCases[name] = f
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type sweep struct {
	under, ref *ops.Dispatcher
	backend    string
	opts       Options
	results    []Result
}

// lacks reports (and records) that the backend does not serve op.
func (s *sweep) lacks(op, name string) bool {
	if s.under.Which(op) != s.backend {
		s.results = append(s.results, Result{Op: op, Case: name, Skipped: fmt.Sprintf("backend %s does not implement %s here", s.backend, op)})
		return true
	}
	return false
}

// guarded is a strided [T, H, D] tensor whose gaps hold guard values that must survive.
type guarded struct {
	t     tensor.Tensor
	guard []bool // backing index is a guard
}

const (
	guardBits   = 0x7fc0dead // NaN payloads no kernel produces
	guardBits16 = 0x7dad
)

func newGuarded(d tensor.DType, T, H, D, pad int, seed uint64) guarded {
	ts := H*D + pad
	n := T*ts + pad
	t := tensor.Zeros(d, n)
	t.Shape, t.Strides, t.Offset = []int{T, H, D}, []int{ts, D, 1}, pad/2
	g := guarded{t: t, guard: make([]bool, n)}
	for i := range g.guard {
		g.guard[i] = true
	}
	r := rng(seed)
	for tok := range T {
		for h := range H {
			for j := range D {
				i := t.Index(tok, h, j)
				g.guard[i] = false
				v := r.value()
				if d == tensor.F32 {
					t.F32[i] = v
				} else {
					t.Bits[i] = tensor.FromFloat32(d, v)
				}
			}
		}
	}
	for i, isGuard := range g.guard {
		if !isGuard {
			continue
		}
		if d == tensor.F32 {
			t.F32[i] = math.Float32frombits(guardBits)
		} else {
			t.Bits[i] = guardBits16
		}
	}
	return g
}

func (g guarded) clone() guarded {
	c := g
	c.t.F32 = append([]float32(nil), g.t.F32...)
	c.t.Bits = append([]uint16(nil), g.t.Bits...)
	return c
}

// compare returns the worst ULP difference between two runs and checks the guards.
func compare(ref, got guarded) (int64, error) {
	d := ref.t.DType
	worst := int64(0)
	for i, isGuard := range ref.guard {
		var a, b float64
		var same bool
		if d == tensor.F32 {
			same = math.Float32bits(ref.t.F32[i]) == math.Float32bits(got.t.F32[i])
			a, b = float64(ref.t.F32[i]), float64(got.t.F32[i])
		} else {
			same = ref.t.Bits[i] == got.t.Bits[i]
			a, b = float64(tensor.ToFloat32(d, ref.t.Bits[i])), float64(tensor.ToFloat32(d, got.t.Bits[i]))
		}
		if same {
			continue
		}
		if isGuard {
			return 0, fmt.Errorf("wrote outside the view (backing index %d)", i)
		}
		worst = max(worst, tensor.ULPDiff(d, a, b))
	}
	return worst, nil
}

// xorshift generator: deterministic inputs without math/rand's global state.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	*r = rng(x)
	return x
}

// value is uniform in (-4, 4) with some exact zeros and wide-magnitude values mixed in.
func (r *rng) value() float32 {
	x := r.next()
	switch x % 61 {
	case 0:
		return 0
	case 1:
		return float32(int64(x>>11)-(1<<52)) / (1 << 30) // large
	}
	return float32(int64(x>>40)-(1<<23)) / (1 << 21)
}

func spec(hd, rd int, style rotary.Style) rotary.Spec {
	return rotary.Spec{HeadSize: hd, RotaryDim: rd, Base: 10000, Style: style, MaxPositions: 4096}
}

var (
	dtypes  = []tensor.DType{tensor.F32, tensor.BF16, tensor.F16}
	styles  = []rotary.Style{rotary.NeoX, rotary.GPTJ}
	headDim = []int{64, 80, 96, 112, 128, 192, 256}
)

// tokenCounts covers 1 token (decode), every count up to past twice a 512-bit vector of f32,
// and a large batch.
func (s *sweep) tokenCounts() []int {
	if s.opts.Short {
		return []int{1, 3, 17, 33}
	}
	return []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 257}
}

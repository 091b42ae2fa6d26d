package bench

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// Case is one operator on one model shape.
type Case struct {
	Op, Model string
	// MaxTokens bounds the token counts the case accepts.
	MaxTokens int
	// Setup builds inputs for `tokens` tokens of dtype d and returns the call to time and every
	// tensor the call must read or write: they give the bytes it moves (Traffic) and are the
	// bytes the limit pass streams, so the two cannot disagree.
	Setup func(d tensor.DType, tokens int, disp *ops.Dispatcher) (call func() error, touched []Operand, err error)
	// Derive, when set, makes the case's Setup for a model's shape instead of the built-in one
	// (Config.Shape); an error says why the op does not apply to that model.
	Derive func(s Shape) (SetupFunc, error)
}

// Access is how an op touches an operand.
type Access uint8

const (
	// Read: loaded, never stored (cos/sin, positions, the input of an out-of-place op).
	Read Access = iota + 1
	// Write: stored, never loaded (an output).
	Write
	// Update: loaded and stored back in place (q and k of a rotation).
	Update
)

// Operand is the bytes of one tensor an op reads or writes. A tensor the op touches only in
// part (the cache slots an update fills) is described by that part.
type Operand struct {
	Access Access
	Bytes  []byte
}

// Traffic is the bytes an op with these operands moves: each read or written once, an Update
// both.
func Traffic(touched []Operand) int {
	n := 0
	for _, o := range touched {
		n += len(o.Bytes)
		if o.Access == Update {
			n += len(o.Bytes)
		}
	}
	return n
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

// Config selects what to run. Empty lists mean everything, except Ops and Backends: their
// defaults (DefaultOps, DefaultBackends).
type Config struct {
	Ops    []string
	Models []string
	// Backends: "native", "cpu", "cpu/<impl>" for one kernel set, or "all" (every choice
	// Backends lists); empty means DefaultBackends.
	Backends []string
	DTypes   []tensor.DType
	Tokens   []int
	// Time is the minimum measured time per figure (op, copy and limit each).
	Time time.Duration
	// CustomOps is the enable spec for the dispatchers (vLLM's custom_ops).
	CustomOps string
	// Shape, when set, times the ops on a model's shape instead of the built-in ones (Models
	// must be empty); only the ops whose cases have a Derive can.
	Shape *Shape
}

// DefaultOps are what a bare `rotary bench` measures: the rotations on Llama-3-8B
// and Qwen3-VL shapes. "all" selects every registered case.
var DefaultOps = []string{"rotary_embedding", "mrope"}

// DefaultBackends are what a run without Backends times: the fast backend, whose figures are
// the point; the reference kernels are timed when asked (ops.Native, or "all").
var DefaultBackends = []string{cpu.Name}

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
	Ratio     float64 `json:"ratio"` // t(copy) / t(op)
	// LimitGBps is the limit pass's rate: the op's bytes loaded and stored in place (read-only
	// ones loaded) with no arithmetic. LimitRatio = t(limit) / t(op), 1.0 at the limit.
	LimitGBps  float64 `json:"limit_gbps"`
	LimitRatio float64 `json:"limit_ratio"`
	Served     string  `json:"served_by"`
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
	if c == nil {
		c = &Config{}
	}
	for _, m := range c.Models {
		if !slices.Contains(ModelNames(), m) {
			return nil, fmt.Errorf("model %q: want one of the built-in shapes %v, or a Config.Shape for any other model", m, ModelNames())
		}
	}
	opsWanted, listed := c.ops()
	for _, o := range opsWanted {
		if !slices.Contains(Ops(), o) {
			return nil, fmt.Errorf("op %q: want all or one of %v", o, Ops())
		}
	}
	backends := c.backends()
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
	candidates := cases
	if c.Shape != nil {
		if len(c.Models) > 0 {
			return nil, fmt.Errorf("models %v and a model's shape: give one", c.Models)
		}
		var err error
		if candidates, err = derivedCases(opsWanted, *c.Shape, !listed); err != nil {
			return nil, err
		}
	}
	// Figures come in the order of the ops asked for, not of the files that register the cases.
	var ts []task
	var seen []string
	for _, op := range opsWanted {
		if slices.Contains(seen, op) {
			continue
		}
		seen = append(seen, op)
		matched := false
		for _, cs := range candidates {
			if cs.Op != op || len(c.Models) > 0 && !slices.Contains(c.Models, cs.Model) {
				continue
			}
			matched = true
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
		if !matched && listed && len(c.Models) > 0 {
			return nil, fmt.Errorf("op %s: no case on %s (its cases: %s)", op, strings.Join(c.Models, ", "), strings.Join(caseModels(op), ", "))
		}
	}
	if len(ts) == 0 && len(c.Models) > 0 {
		return nil, fmt.Errorf("no case of %s on %s", strings.Join(seen, ", "), strings.Join(c.Models, ", "))
	}
	return ts, nil
}

// caseModels are the models op has a built-in case on.
func caseModels(op string) []string {
	var m []string
	for _, cs := range cases {
		if cs.Op == op {
			m = append(m, cs.Model)
		}
	}
	return m
}

// ops are the ops c asks for, DefaultOps or "all" resolved; listed: the caller named them.
func (c *Config) ops() (ops []string, listed bool) {
	switch {
	case len(c.Ops) == 0:
		return slices.Clone(DefaultOps), false
	case slices.Contains(c.Ops, "all"):
		return Ops(), false
	}
	return c.Ops, true
}

// backends are the backends c asks for, DefaultBackends or "all" resolved.
func (c *Config) backends() []string {
	switch {
	case len(c.Backends) == 0:
		return slices.Clone(DefaultBackends)
	case slices.Contains(c.Backends, "all"):
		return Backends()
	}
	return c.Backends
}

// Names are the ops, backends and models c's figures can name, its defaults and "all"
// resolved (a Shape's Name for its model), unchecked: what a table of them sizes its columns
// for. A nil Config is the zero Config. The slices are the caller's: c's own, or copies of the
// defaults.
func (c *Config) Names() (ops, backends, models []string) {
	if c == nil {
		c = &Config{}
	}
	ops, _ = c.ops()
	models = c.Models
	switch {
	case c.Shape != nil:
		models = []string{c.Shape.Name}
	case len(models) == 0:
		models = ModelNames()
	}
	return ops, c.backends(), models
}

// ModelNames lists the benchmark shapes.
func ModelNames() []string { return names(func(c Case) string { return c.Model }) }

// Ops lists, sorted, the ops that have a case: read off the registered cases, so a test can
// hold it against ops.Names and catch an op added without one.
func Ops() []string { return names(func(c Case) string { return c.Op }) }

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

// Count is the number of figures c produces (a nil Config: the zero Config's).
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

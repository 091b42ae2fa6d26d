package ops

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// Dispatcher decides which implementation serves each op: the enable/disable spec (vLLM's
// custom_ops), a backend choice, and per-instance forced enabling. A disabled op runs the native
// implementation. A Dispatcher is safe for concurrent use; its choice is cached and recomputed
// only when the registry changes.
type Dispatcher struct {
	backend string // "auto" or a backend name
	all     bool   // the default for ops the spec does not name
	named   map[string]bool
	enforce bool
	spec    string

	cache atomic.Pointer[dispatchCache]
}

// dispatchCache is an immutable snapshot of resolved implementations for one registry
// generation; a miss copies it.
type dispatchCache struct {
	gen  uint64
	impl []any // op id → *Impl[A], nil until resolved
}

// Auto selects, per op, the available backend with the highest priority.
const Auto = "auto"

// NewDispatcher parses a custom-ops spec ("all", "none", "+name", "-name", comma-separated;
// empty means "all") and a backend ("auto" or a registered backend name).
func NewDispatcher(customOps, backend string) (*Dispatcher, error) {
	d := &Dispatcher{backend: backend, all: true, named: map[string]bool{}, spec: customOps}
	if backend == "" {
		d.backend = Auto
	}
	if d.backend != Auto && !slices.Contains(Backends(), d.backend) {
		return nil, fmt.Errorf("backend %q: unknown (want auto or one of %v)", backend, Backends())
	}
	sawAll, sawNone := false, false
	for _, tok := range strings.Split(customOps, ",") {
		tok = strings.TrimSpace(tok)
		switch {
		case tok == "":
			continue
		case tok == "all":
			sawAll, d.all = true, true
		case tok == "none":
			sawNone, d.all = true, false
		case tok[0] == '+' || tok[0] == '-':
			name := tok[1:]
			if _, ok := lookup(name); !ok {
				return nil, fmt.Errorf("custom ops %q: unknown op %q (known: %s)", customOps, name, strings.Join(Names(), ", "))
			}
			on := tok[0] == '+'
			if prev, seen := d.named[name]; seen && prev != on {
				return nil, fmt.Errorf("custom ops %q: %s is both enabled and disabled", customOps, name)
			}
			d.named[name] = on
		default:
			return nil, fmt.Errorf("custom ops %q: %q: want all, none, +name or -name", customOps, tok)
		}
	}
	if sawAll && sawNone {
		return nil, fmt.Errorf("custom ops %q: all and none together", customOps)
	}
	return d, nil
}

// Default is the dispatcher of callers that choose nothing: every op enabled, automatic backend.
var Default = must(NewDispatcher("all", Auto))

func must(d *Dispatcher, err error) *Dispatcher {
	if err != nil {
		panic(err)
	}
	return d
}

// Enforced returns a copy of d that keeps every op enabled whatever the spec says (vLLM's
// enforce_enable, for one instance).
func (d *Dispatcher) Enforced() *Dispatcher {
	c := &Dispatcher{backend: d.backend, all: d.all, named: d.named, enforce: true, spec: d.spec}
	return c
}

// Backend is the backend the dispatcher was asked for ("auto" or a name).
func (d *Dispatcher) Backend() string { return d.backend }

// Enabled reports whether the named op runs a custom (non-native) implementation.
func (d *Dispatcher) Enabled(op string) bool {
	if d.enforce {
		return true
	}
	if v, ok := d.named[op]; ok {
		return v
	}
	return d.all
}

// Which names the implementation that serves op under d on this machine.
func (d *Dispatcher) Which(op string) string {
	info, ok := lookup(op)
	if !ok {
		return ""
	}
	return info.resolveName(d)
}

func (o *Op[A]) resolveName(d *Dispatcher) string {
	if im := o.resolve(d); im != nil {
		return im.Backend
	}
	return ""
}

// resolve picks the implementation of o for d: an enabled op goes to its override, else to the
// requested backend (or the best available one under auto); a disabled op, or one the chosen
// backend lacks, goes to native.
func (o *Op[A]) resolve(d *Dispatcher) *Impl[A] {
	o.mu.RLock()
	defer o.mu.RUnlock()
	var native *Impl[A]
	for _, im := range o.impls {
		if im.Backend == Native {
			native = im
		}
	}
	if !d.Enabled(o.name) {
		return native
	}
	if o.oot != nil {
		return o.oot
	}
	best := native
	for _, im := range o.impls {
		if !im.available() {
			continue
		}
		if d.backend == Auto {
			if best == nil || im.Priority > best.Priority {
				best = im
			}
		} else if im.Backend == d.backend {
			return im
		}
	}
	return best
}

// Run dispatches one call of op with checked arguments a and returns the backend that served
// it. It fails only when no implementation at all is registered (backend/native not linked in).
func Run[A any](d *Dispatcher, op *Op[A], a A) (string, error) {
	im := cached(d, op)
	if im == nil {
		return "", fmt.Errorf("op %s: no implementation registered (import github.com/rotary-go/rotary)", op.name)
	}
	im.calls.Add(1)
	im.Fn(a)
	return im.Backend, nil
}

func cached[A any](d *Dispatcher, op *Op[A]) *Impl[A] {
	g := generation.Load()
	c := d.cache.Load()
	if c != nil && c.gen == g && op.id < len(c.impl) {
		if v := c.impl[op.id]; v != nil {
			return v.(*Impl[A])
		}
	}
	im := op.resolve(d)
	regMu.RLock()
	n := len(registry)
	regMu.RUnlock()
	next := &dispatchCache{gen: g, impl: make([]any, max(n, op.id+1))}
	if c != nil && c.gen == g {
		copy(next.impl, c.impl)
	}
	if im != nil {
		next.impl[op.id] = im
	}
	d.cache.Store(next)
	return im
}

// Status is one row of the registry table: an op, its backends, and what serves it.
type Status struct {
	Op       string   `json:"op"`
	Backends []string `json:"backends"`
	Override string   `json:"override,omitempty"`
	Enabled  bool     `json:"enabled"`
	Serves   string   `json:"serves"`
}

// Table describes every op under d.
func (d *Dispatcher) Table() []Status {
	var rows []Status
	for _, n := range Names() {
		info, _ := lookup(n)
		oot, _ := info.override()
		rows = append(rows, Status{Op: n, Backends: info.Backends(), Override: oot, Enabled: d.Enabled(n), Serves: info.resolveName(d)})
	}
	return rows
}

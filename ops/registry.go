package ops

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// The op registry: vLLM's CustomOp in Go (vllm/model_executor/custom_op.py). Each op has a reference implementation,
// registered by package backend/native under the backend name "native", and any number of
// backend implementations. A Dispatcher decides per op which one serves a call.

// Native is the backend name of the reference kernels.
const Native = "native"

// Impl is one implementation of an op.
type Impl[A any] struct {
	// Backend names the implementation ("native", "cpu", "cuda", or an out-of-tree name).
	Backend string
	// Fn runs the op on checked arguments. They travel by value: an indirect call would make a
	// pointer escape, and the hot path must not allocate.
	Fn func(A)
	// Available reports whether the implementation can run on this machine (nil: always).
	Available func() bool
	// Priority orders the available backends for automatic dispatch: highest wins.
	Priority int

	calls atomic.Uint64
}

func (im *Impl[A]) available() bool { return im.Available == nil || im.Available() }

// Op is a named operator with its implementations.
type Op[A any] struct {
	name  string
	id    int // index into dispatch caches
	mu    sync.RWMutex
	impls []*Impl[A] // sorted by backend name
	oot   *Impl[A]
}

// opInfo is what the registry needs of an Op regardless of its argument type.
type opInfo interface {
	Name() string
	Backends() []string
	override() (string, bool)
	resolveName(d *Dispatcher) string
	counts() map[string]uint64
	setOOT(backend string, fn any) error
}

var (
	regMu      sync.RWMutex
	registry   = map[string]opInfo{}
	generation atomic.Uint64 // bumps on every registration, invalidating dispatch caches
)

// NewOp declares an op; it panics if the name is taken (a programming error at init).
func NewOp[A any](name string) *Op[A] {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("ops: duplicate op " + name)
	}
	op := &Op[A]{name: name, id: len(registry)}
	registry[name] = op
	generation.Add(1)
	return op
}

// Name is the op's registry name.
func (o *Op[A]) Name() string { return o.name }

// Register adds a backend implementation; it panics on a duplicate backend for the op, like
// database/sql.Register.
func (o *Op[A]) Register(im *Impl[A]) {
	if im == nil || im.Fn == nil || im.Backend == "" {
		panic("ops: Register of " + o.name + " needs a backend name and a function")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, have := range o.impls {
		if have.Backend == im.Backend {
			panic("ops: duplicate backend " + im.Backend + " for op " + o.name)
		}
	}
	o.impls = append(o.impls, im)
	sort.Slice(o.impls, func(i, j int) bool { return o.impls[i].Backend < o.impls[j].Backend })
	generation.Add(1)
}

// Backends lists the registered backend names, sorted.
func (o *Op[A]) Backends() []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	names := make([]string, len(o.impls))
	for i, im := range o.impls {
		names[i] = im.Backend
	}
	return names
}

func (o *Op[A]) override() (string, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.oot == nil {
		return "", false
	}
	return o.oot.Backend, true
}

func (o *Op[A]) setOOT(backend string, fn any) error {
	f, ok := fn.(func(A))
	if !ok {
		var want func(A)
		return fmt.Errorf("override of op %s: function is %T, want %T", o.name, fn, want)
	}
	if f == nil {
		return fmt.Errorf("override of op %s: nil function", o.name)
	}
	if backend == "" {
		return fmt.Errorf("override of op %s: empty backend name", o.name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.oot = &Impl[A]{Backend: backend, Fn: f}
	generation.Add(1)
	return nil
}

// RegisterOOT installs an out-of-tree override for the named op (vLLM's CustomOp.register_oot):
// when the op is enabled it serves every call instead of the in-tree backends. fn must be a
// func(Args) of the op's argument type, e.g. func(ops.RotaryEmbeddingArgs). Overriding an unknown op is an error that lists the
// known ones; a second override replaces the first.
func RegisterOOT(op, backend string, fn any) error {
	regMu.RLock()
	info, ok := registry[op]
	regMu.RUnlock()
	if !ok {
		return fmt.Errorf("override: unknown op %q (known: %v)", op, Names())
	}
	return info.setOOT(backend, fn)
}

// ClearOOT removes the override of the named op, if any (for tests and plugins that unload).
func ClearOOT(op string) {
	regMu.RLock()
	info, ok := registry[op]
	regMu.RUnlock()
	if ok {
		if o, ok := info.(interface{ clearOOT() }); ok {
			o.clearOOT()
		}
	}
}

func (o *Op[A]) clearOOT() {
	o.mu.Lock()
	o.oot = nil
	o.mu.Unlock()
	generation.Add(1)
}

// Names lists the registered ops, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Backends lists every backend name any op has, sorted ("native" included).
func Backends() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var all []string
	for _, info := range registry {
		for _, b := range info.Backends() {
			if !slices.Contains(all, b) {
				all = append(all, b)
			}
		}
	}
	sort.Strings(all)
	return all
}

func lookup(op string) (opInfo, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	info, ok := registry[op]
	return info, ok
}

// Calls returns how many calls each implementation of the named op has served since start,
// keyed by backend name (an override under its own name).
func Calls(op string) map[string]uint64 {
	info, ok := lookup(op)
	if !ok {
		return nil
	}
	return info.counts()
}

func (o *Op[A]) counts() map[string]uint64 {
	o.mu.RLock()
	defer o.mu.RUnlock()
	m := make(map[string]uint64, len(o.impls)+1)
	for _, im := range o.impls {
		m[im.Backend] = im.calls.Load()
	}
	if o.oot != nil {
		m[o.oot.Backend] = o.oot.calls.Load()
	}
	return m
}

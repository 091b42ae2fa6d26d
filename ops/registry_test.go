package ops_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// The registry is global state: every test here that registers something does it on an op of
// its own (regOp), under names no other test uses, so it cannot change what serves the real ops
// in other tests of this binary. Tests that override a real op clear the override on cleanup and
// do not run in parallel.

// regArgs are the arguments of the test ops: each implementation records that it ran.
type regArgs struct {
	hits *regHits
}

// regHits counts the calls each implementation of a test op served.
type regHits struct {
	mu sync.Mutex
	m  map[string]int
}

func (h *regHits) add(backend string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]int{}
	}
	h.m[backend]++
}

func (h *regHits) get(backend string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[backend]
}

// regSeq makes test op and backend names unique across tests and -count=N runs.
var regSeq atomic.Uint64

func regName(prefix string) string { return fmt.Sprintf("%s_%d", prefix, regSeq.Add(1)) }

// regImpl is an implementation of a test op that records its backend name.
func regImpl(backend string, priority int, available func() bool) *ops.Impl[regArgs] {
	return &ops.Impl[regArgs]{
		Backend:   backend,
		Priority:  priority,
		Available: available,
		Fn:        func(a regArgs) { a.hits.add(backend) },
	}
}

// regOp declares a fresh op with a native implementation, like backend/native does for the
// real ones.
func regOp(t *testing.T) *ops.Op[regArgs] {
	t.Helper()
	op := ops.NewOp[regArgs](regName("test_op"))
	op.Register(regImpl(ops.Native, 0, nil))
	return op
}

// regRun runs op once under d and checks that the reported backend is the one that ran and
// the one Which names.
func regRun(t *testing.T, d *ops.Dispatcher, op *ops.Op[regArgs]) string {
	t.Helper()
	h := &regHits{}
	which := d.Which(op.Name())
	got, err := ops.Run(d, op, regArgs{hits: h})
	if err != nil {
		t.Fatalf("Run %s: %v", op.Name(), err)
	}
	if h.get(got) != 1 {
		t.Fatalf("Run %s reported backend %q, but the calls were %v", op.Name(), got, h.m)
	}
	if which != got {
		t.Fatalf("Which(%s) = %q, but Run used %q", op.Name(), which, got)
	}
	return got
}

func mustDispatcher(t *testing.T, spec, backend string) *ops.Dispatcher {
	t.Helper()
	d, err := ops.NewDispatcher(spec, backend)
	if err != nil {
		t.Fatalf("NewDispatcher(%q, %q): %v", spec, backend, err)
	}
	return d
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

func TestRegistryRealOps(t *testing.T) {
	want := []string{"apply_rotary_emb", "apply_rotary_emb_backward", "mrope", "rotary_embedding", "rotary_embedding_gathered"}
	names := ops.Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() not sorted: %v", names)
	}
	for _, n := range want {
		if !slices.Contains(names, n) {
			t.Errorf("Names() = %v lacks %s", names, n)
		}
	}
	for _, op := range []interface {
		Name() string
		Backends() []string
	}{ops.RotaryEmbedding, ops.RotaryEmbeddingGather, ops.MRoPE, ops.ApplyRotaryEmb, ops.ApplyRotaryEmbBackward} {
		b := op.Backends()
		if !slices.Contains(b, ops.Native) || !slices.IsSorted(b) {
			t.Errorf("%s.Backends() = %v: want sorted, with native", op.Name(), b)
		}
	}
	if b := ops.Backends(); !slices.Contains(b, ops.Native) || !slices.IsSorted(b) {
		t.Errorf("Backends() = %v: want sorted, with native", b)
	}
	if ops.Calls("no_such_op") != nil {
		t.Errorf("Calls of an unknown op is not nil")
	}
}

func TestNewDispatcherSpec(t *testing.T) {
	const re, mr = "rotary_embedding", "mrope"
	for _, c := range []struct {
		spec     string
		re, mr   bool // Enabled of rotary_embedding and mrope
		errParts []string
	}{
		{spec: "", re: true, mr: true},
		{spec: "all", re: true, mr: true},
		{spec: "none", re: false, mr: false},
		{spec: "all,-mrope", re: true, mr: false},
		{spec: "none,+rotary_embedding", re: true, mr: false},
		{spec: "none,+rotary_embedding,+mrope", re: true, mr: true},
		{spec: "-mrope", re: true, mr: false}, // no all/none: the default is all
		{spec: "+mrope", re: true, mr: true},
		{spec: "-mrope,none", re: false, mr: false},
		{spec: "+rotary_embedding,none", re: true, mr: false}, // order of all/none and names does not matter
		{spec: " none , +rotary_embedding ", re: true, mr: false},
		{spec: "\tall,\n-mrope\t", re: true, mr: false},
		{spec: "all,all", re: true, mr: true},
		{spec: ",,", re: true, mr: true},
		{spec: "all,none", errParts: []string{"all and none"}},
		{spec: "none,all", errParts: []string{"all and none"}},
		{spec: "none, +mrope , all", errParts: []string{"all and none"}},
		{spec: "+no_such_op", errParts: append([]string{"no_such_op"}, ops.Names()...)},
		{spec: "all,-rotary_embeding", errParts: append([]string{"rotary_embeding"}, ops.Names()...)},
		{spec: "rotary_embedding", errParts: []string{"rotary_embedding", "+name", "-name"}},
		{spec: "none,mrope", errParts: []string{"mrope", "+name"}},
		{spec: "ALL", errParts: []string{"ALL"}},
		{spec: "+", errParts: []string{"unknown op"}},
		{spec: "*", errParts: []string{"*"}},
	} {
		d, err := ops.NewDispatcher(c.spec, ops.Auto)
		if c.errParts != nil {
			if err == nil {
				t.Errorf("NewDispatcher(%q): no error", c.spec)
				continue
			}
			for _, p := range c.errParts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("NewDispatcher(%q): error %q does not mention %q", c.spec, err, p)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("NewDispatcher(%q): %v", c.spec, err)
			continue
		}
		if got := d.Enabled(re); got != c.re {
			t.Errorf("NewDispatcher(%q).Enabled(%s) = %v, want %v", c.spec, re, got, c.re)
		}
		if got := d.Enabled(mr); got != c.mr {
			t.Errorf("NewDispatcher(%q).Enabled(%s) = %v, want %v", c.spec, mr, got, c.mr)
		}
		if d.Backend() != ops.Auto {
			t.Errorf("NewDispatcher(%q).Backend() = %q, want auto", c.spec, d.Backend())
		}
	}
}

func TestNewDispatcherBackend(t *testing.T) {
	for _, b := range []string{"", ops.Auto, ops.Native} {
		d := mustDispatcher(t, "all", b)
		want := b
		if b == "" {
			want = ops.Auto
		}
		if d.Backend() != want {
			t.Errorf("NewDispatcher(all, %q).Backend() = %q, want %q", b, d.Backend(), want)
		}
	}
	for _, b := range []string{"tpu", "Native", " native", "AUTO"} {
		_, err := ops.NewDispatcher("all", b)
		if err == nil {
			t.Errorf("NewDispatcher(all, %q): no error", b)
			continue
		}
		if !strings.Contains(err.Error(), "native") || !strings.Contains(err.Error(), "auto") {
			t.Errorf("NewDispatcher(all, %q): error %q does not list the choices", b, err)
		}
	}
}

func TestEnabledTruthTable(t *testing.T) {
	ds := struct {
		none, all, allMinus, nonePlus, plusOnly, minusOnly *ops.Dispatcher
	}{
		none:      mustDispatcher(t, "none", ""),
		all:       mustDispatcher(t, "all", ""),
		allMinus:  mustDispatcher(t, "all,-mrope", ""),
		nonePlus:  mustDispatcher(t, "none,+rotary_embedding", ""),
		plusOnly:  mustDispatcher(t, "+rotary_embedding", ""),
		minusOnly: mustDispatcher(t, "-rotary_embedding", ""),
	}
	type row struct {
		name string
		d    interface{ Enabled(string) bool }
		// want for rotary_embedding, mrope, apply_rotary_emb
		want [3]bool
	}
	rows := []row{
		{"none", ds.none, [3]bool{false, false, false}},
		{"all", ds.all, [3]bool{true, true, true}},
		{"all,-mrope", ds.allMinus, [3]bool{true, false, true}},
		{"none,+rotary_embedding", ds.nonePlus, [3]bool{true, false, false}},
		{"+rotary_embedding", ds.plusOnly, [3]bool{true, true, true}},
		{"-rotary_embedding", ds.minusOnly, [3]bool{false, true, true}},
		// enforce_enable wins over every spec.
		{"none enforced", ds.none.Enforced(), [3]bool{true, true, true}},
		{"all,-mrope enforced", ds.allMinus.Enforced(), [3]bool{true, true, true}},
		{"none,+rotary_embedding enforced", ds.nonePlus.Enforced(), [3]bool{true, true, true}},
	}
	names := [3]string{"rotary_embedding", "mrope", "apply_rotary_emb"}
	for _, r := range rows {
		for i, n := range names {
			if got := r.d.Enabled(n); got != r.want[i] {
				t.Errorf("%s: Enabled(%s) = %v, want %v", r.name, n, got, r.want[i])
			}
		}
	}
	// Enforced is a copy: the original keeps its spec.
	if ds.none.Enabled("rotary_embedding") {
		t.Errorf("Enforced changed the dispatcher it was called on")
	}
	if e := ds.allMinus.Enforced(); e.Backend() != ds.allMinus.Backend() {
		t.Errorf("Enforced dropped the backend: %q, want %q", e.Backend(), ds.allMinus.Backend())
	}
}

func TestWhichRealOps(t *testing.T) {
	none := mustDispatcher(t, "none", ops.Auto)
	all := mustDispatcher(t, "all", ops.Auto)
	allNative := mustDispatcher(t, "all", ops.Native)
	nonePlus := mustDispatcher(t, "none,+rotary_embedding", ops.Auto)
	for _, n := range ops.Names() {
		if !strings.HasPrefix(n, "test_") && none.Which(n) != ops.Native {
			t.Errorf("none: Which(%s) = %q, want native", n, none.Which(n))
		}
		if allNative.Which(n) != ops.Native && !strings.HasPrefix(n, "test_") {
			t.Errorf("all, backend native: Which(%s) = %q, want native", n, allNative.Which(n))
		}
	}
	for _, n := range []string{"rotary_embedding", "mrope", "apply_rotary_emb"} {
		info := ops.RotaryEmbedding.Backends()
		switch n {
		case "mrope":
			info = ops.MRoPE.Backends()
		case "apply_rotary_emb":
			info = ops.ApplyRotaryEmb.Backends()
		}
		if w := all.Which(n); !slices.Contains(info, w) {
			t.Errorf("all: Which(%s) = %q, not one of its backends %v", n, w, info)
		}
	}
	if a, b := all.Which("rotary_embedding"), nonePlus.Which("rotary_embedding"); a != b {
		t.Errorf("Which(rotary_embedding): all %q, none,+rotary_embedding %q: want the same", a, b)
	}
	if w := nonePlus.Which("mrope"); w != ops.Native {
		t.Errorf("none,+rotary_embedding: Which(mrope) = %q, want native", w)
	}
	if w := all.Which("no_such_op"); w != "" {
		t.Errorf("Which(no_such_op) = %q, want empty", w)
	}
	// The table agrees with Which and Enabled.
	for _, d := range []*ops.Dispatcher{none, all, nonePlus} {
		rows := d.Table()
		if len(rows) != len(ops.Names()) {
			t.Errorf("Table has %d rows for %d ops", len(rows), len(ops.Names()))
		}
		for _, r := range rows {
			if r.Serves != d.Which(r.Op) || r.Enabled != d.Enabled(r.Op) {
				t.Errorf("Table row %+v disagrees with Which %q / Enabled %v", r, d.Which(r.Op), d.Enabled(r.Op))
			}
		}
	}
}

func TestBackendPriorityAndAvailability(t *testing.T) {
	op := regOp(t)
	fast, gone := regName("test-double"), regName("test-unavailable")
	op.Register(regImpl(fast, 100, func() bool { return true }))
	op.Register(regImpl(gone, 1000, func() bool { return false }))
	if b := op.Backends(); !slices.IsSorted(b) || len(b) != 3 {
		t.Errorf("Backends() = %v: want 3, sorted", b)
	}
	if !slices.Contains(ops.Backends(), fast) {
		t.Errorf("ops.Backends() = %v lacks %s", ops.Backends(), fast)
	}
	for _, c := range []struct {
		spec, backend, want string
	}{
		{"all", ops.Auto, fast}, // the unavailable one has the higher priority but cannot run
		{"all", fast, fast},
		{"all", ops.Native, ops.Native},
		{"all", gone, ops.Native},  // asked for by name but unavailable: native
		{"none", fast, ops.Native}, // disabled: native whatever the backend
		{"none", ops.Auto, ops.Native},
		{"all," + "-" + op.Name(), ops.Auto, ops.Native},
		{"none,+" + op.Name(), ops.Auto, fast},
		{"all", "cpu", ops.Native}, // a backend this op lacks: native
	} {
		if c.backend == "cpu" && !slices.Contains(ops.Backends(), "cpu") {
			continue
		}
		d := mustDispatcher(t, c.spec, c.backend)
		if got := regRun(t, d, op); got != c.want {
			t.Errorf("spec %q backend %q: served by %q, want %q", c.spec, c.backend, got, c.want)
		}
		// Enforced: a disabled op goes to the backend as if enabled.
		if c.spec == "none" {
			want := c.backend
			if want == ops.Auto {
				want = fast
			}
			if got := regRun(t, d.Enforced(), op); got != want {
				t.Errorf("spec %q backend %q enforced: served by %q, want %q", c.spec, c.backend, got, want)
			}
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	op := regOp(t)
	mustPanic(t, "duplicate Register of native", func() { op.Register(regImpl(ops.Native, 5, nil)) })
	mustPanic(t, "Register of nil", func() { op.Register(nil) })
	mustPanic(t, "Register without a function", func() { op.Register(&ops.Impl[regArgs]{Backend: regName("test-nofn")}) })
	mustPanic(t, "Register without a name", func() { op.Register(&ops.Impl[regArgs]{Fn: func(regArgs) {}}) })
	mustPanic(t, "duplicate NewOp", func() { ops.NewOp[regArgs](op.Name()) })
	mustPanic(t, "NewOp of a real op's name", func() { ops.NewOp[ops.RotaryEmbeddingArgs]("rotary_embedding") })
	// The failed registrations changed nothing.
	if b := op.Backends(); !slices.Equal(b, []string{ops.Native}) {
		t.Errorf("Backends() after failed registrations = %v", b)
	}
	if got := regRun(t, ops.Default, op); got != ops.Native {
		t.Errorf("served by %q, want native", got)
	}
}

func TestRegisterOOTErrors(t *testing.T) {
	err := ops.RegisterOOT("no_such_op", "x", func(ops.RotaryEmbeddingArgs) {})
	if err == nil {
		t.Fatal("RegisterOOT of an unknown op: no error")
	}
	for _, n := range append([]string{"no_such_op"}, ops.Names()...) {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("RegisterOOT of an unknown op: error %q does not name %s", err, n)
		}
	}
	for _, fn := range []any{
		nil,
		42,
		func() {},
		func(ops.MRoPEArgs) {},
		func(*ops.RotaryEmbeddingArgs) {},
		func(ops.RotaryEmbeddingArgs) error { return nil },
	} {
		err := ops.RegisterOOT("rotary_embedding", regName("test-oot-bad"), fn)
		if err == nil {
			ops.ClearOOT("rotary_embedding")
			t.Errorf("RegisterOOT(rotary_embedding, %T): no error", fn)
			continue
		}
		if !strings.Contains(err.Error(), "RotaryEmbeddingArgs") {
			t.Errorf("RegisterOOT(rotary_embedding, %T): error %q does not name the wanted type", fn, err)
		}
	}
	if err := ops.RegisterOOT("rotary_embedding", "", func(ops.RotaryEmbeddingArgs) {}); err == nil {
		ops.ClearOOT("rotary_embedding")
		t.Errorf("RegisterOOT with an empty backend name: no error")
	}
	// None of that installed anything.
	for _, r := range ops.Default.Table() {
		if r.Op == "rotary_embedding" && r.Override != "" {
			t.Errorf("a failed RegisterOOT left override %q", r.Override)
		}
	}
	ops.ClearOOT("no_such_op") // no effect, no panic
}

func TestOverride(t *testing.T) {
	op := regOp(t)
	fast := regName("test-double")
	op.Register(regImpl(fast, 100, nil))
	oot := regName("test-oot")
	h := &regHits{}
	all := mustDispatcher(t, "all", ops.Auto)
	none := mustDispatcher(t, "none", ops.Auto)
	named := mustDispatcher(t, "all", fast)
	minus := mustDispatcher(t, "all,-"+op.Name(), ops.Auto)
	// Use every dispatcher before the override, so their caches hold the old choice.
	for _, d := range []*ops.Dispatcher{all, none, named, minus} {
		regRun(t, d, op)
	}
	if err := ops.RegisterOOT(op.Name(), oot, func(a regArgs) { a.hits.add(oot); h.add("direct") }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ops.ClearOOT(op.Name()) })
	before := ops.Calls(op.Name())[oot]
	for _, c := range []struct {
		name string
		d    *ops.Dispatcher
		want string
	}{
		{"all", all, oot},
		{"all, backend by name", named, oot}, // an override replaces every in-tree backend
		{"none", none, ops.Native},
		{"-op", minus, ops.Native},
		{"none enforced", none.Enforced(), oot},
		{"-op enforced", minus.Enforced(), oot},
	} {
		if got := regRun(t, c.d, op); got != c.want {
			t.Errorf("%s: served by %q, want %q", c.name, got, c.want)
		}
	}
	if got := ops.Calls(op.Name())[oot] - before; got != 4 {
		t.Errorf("Calls[%s] grew by %d, want 4", oot, got)
	}
	if h.get("direct") != 4 {
		t.Errorf("the override function ran %d times, want 4", h.get("direct"))
	}
	var row ops.Status
	for _, r := range all.Table() {
		if r.Op == op.Name() {
			row = r
		}
	}
	if row.Override != oot || row.Serves != oot || slices.Contains(row.Backends, oot) {
		t.Errorf("Table row %+v: want override and serves %s, not listed as a backend", row, oot)
	}

	// A second override replaces the first.
	oot2 := regName("test-oot")
	if err := ops.RegisterOOT(op.Name(), oot2, func(a regArgs) { a.hits.add(oot2) }); err != nil {
		t.Fatal(err)
	}
	if got := regRun(t, all, op); got != oot2 {
		t.Errorf("after a second override: served by %q, want %q", got, oot2)
	}

	ops.ClearOOT(op.Name())
	for _, c := range []struct {
		name string
		d    *ops.Dispatcher
		want string
	}{
		{"all", all, fast},
		{"all, backend by name", named, fast},
		{"none", none, ops.Native},
		{"none enforced", none.Enforced(), fast},
	} {
		if got := regRun(t, c.d, op); got != c.want {
			t.Errorf("after ClearOOT, %s: served by %q, want %q", c.name, got, c.want)
		}
	}
	if _, ok := ops.Calls(op.Name())[oot2]; ok {
		t.Errorf("Calls still lists the cleared override: %v", ops.Calls(op.Name()))
	}
}

func TestDispatchCacheInvalidation(t *testing.T) {
	op := regOp(t)
	d := mustDispatcher(t, "all", ops.Auto)
	for range 3 {
		if got := regRun(t, d, op); got != ops.Native {
			t.Fatalf("served by %q, want native", got)
		}
	}
	// A backend registered after d was used takes over at once.
	b1 := regName("test-late")
	op.Register(regImpl(b1, 1, nil))
	if got := regRun(t, d, op); got != b1 {
		t.Errorf("after registering %s: served by %q", b1, got)
	}
	// A better one registered later still.
	b2 := regName("test-later")
	op.Register(regImpl(b2, 2, nil))
	if got := regRun(t, d, op); got != b2 {
		t.Errorf("after registering %s: served by %q", b2, got)
	}
	// A registration on another op invalidates too, without changing this op's choice.
	other := regOp(t)
	other.Register(regImpl(regName("test-other"), 50, nil))
	if got := regRun(t, d, op); got != b2 {
		t.Errorf("after a registration elsewhere: served by %q, want %q", got, b2)
	}
	// A backend that did not exist when the dispatcher was made cannot be named by it, but a
	// dispatcher made afterwards can.
	b3 := regName("test-named")
	if _, err := ops.NewDispatcher("all", b3); err == nil {
		t.Errorf("NewDispatcher with the not yet registered backend %s: no error", b3)
	}
	op.Register(regImpl(b3, 0, nil))
	if got := regRun(t, mustDispatcher(t, "all", b3), op); got != b3 {
		t.Errorf("backend %s by name: served by %q", b3, got)
	}
	if got := regRun(t, d, op); got != b2 {
		t.Errorf("auto after registering a lower priority backend: served by %q, want %q", got, b2)
	}
}

// regLlama is a Llama-3-like spec small enough for quick tests.
func regLlama() rotary.Spec {
	return rotary.Spec{HeadSize: 64, RotaryDim: 64, Base: 500000, Style: rotary.NeoX, MaxPositions: 256}
}

func regInputs(tokens, qHeads, kHeads, d int, seed uint64) (pos tensor.Tensor, q, k []float32) {
	x := seed*0x9E3779B97F4A7C15 + 1
	next := func() float32 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float32(int64(x>>40)-(1<<23)) / (1 << 22)
	}
	p := make([]int64, tokens)
	for i := range p {
		p[i] = int64(i * 7 % 200)
	}
	q = make([]float32, tokens*qHeads*d)
	k = make([]float32, tokens*kHeads*d)
	for i := range q {
		q[i] = next()
	}
	for i := range k {
		k[i] = next()
	}
	return tensor.FromI64(p, tokens), q, k
}

func TestCallsCountEmbeddingForward(t *testing.T) {
	const T, H, K, N = 9, 4, 2, 5
	spec := regLlama()
	for _, c := range []struct{ spec, backend string }{
		{"none", ops.Auto},
		{"all", ops.Auto},
		{"all", ops.Native},
		{"none,+rotary_embedding", ops.Auto},
		{"all,-rotary_embedding", ops.Auto},
	} {
		d := mustDispatcher(t, c.spec, c.backend)
		emb, err := rotary.New(spec, rotary.WithDispatcher(d))
		if err != nil {
			t.Fatal(err)
		}
		serving := d.Which("rotary_embedding")
		if !d.Enabled("rotary_embedding") && serving != ops.Native {
			t.Errorf("%s: disabled rotary_embedding served by %q", c.spec, serving)
		}
		before := ops.Calls("rotary_embedding")
		gathered := ops.Calls("rotary_embedding_gathered")
		for range N {
			pos, q, k := regInputs(T, H, K, spec.HeadSize, 1)
			if err := emb.Forward(pos, tensor.FromF32(q, T, H, spec.HeadSize), tensor.FromF32(k, T, K*spec.HeadSize)); err != nil {
				t.Fatal(err)
			}
		}
		after := ops.Calls("rotary_embedding")
		for b, n := range after {
			want := uint64(0)
			if b == serving {
				want = N
			}
			if n-before[b] != want {
				t.Errorf("%s/%s: Calls(rotary_embedding)[%s] grew by %d, want %d", c.spec, c.backend, b, n-before[b], want)
			}
		}
		if g := ops.Calls("rotary_embedding_gathered"); !mapsEqual(g, gathered) {
			t.Errorf("%s: positions within the cache went through the gathered op: %v → %v", c.spec, gathered, g)
		}
	}
}

func mapsEqual(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestEnforcedRealOpOverride(t *testing.T) {
	const T, H, K = 3, 2, 1
	spec := regLlama()
	oot := regName("test-oot-real")
	var served atomic.Int64
	none := mustDispatcher(t, "none", ops.Auto)
	emb, err := rotary.New(spec, rotary.WithDispatcher(none))
	if err != nil {
		t.Fatal(err)
	}
	enforced, err := rotary.New(spec, rotary.WithDispatcher(none.Enforced()))
	if err != nil {
		t.Fatal(err)
	}
	// Reference output before any override, through native.
	pos, q0, _ := regInputs(T, H, K, spec.HeadSize, 3)
	wantQ := slices.Clone(q0)
	if err := emb.Forward(pos, tensor.FromF32(wantQ, T, H, spec.HeadSize), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}

	// The override marks its output so the test can tell which ran: it negates every element
	// after no rotation at all.
	if err := ops.RegisterOOT("rotary_embedding", oot, func(a ops.RotaryEmbeddingArgs) {
		served.Add(1)
		h := a.Query
		for tk := range h.Tokens {
			for hd := range h.NumHeads {
				base := h.Off + tk*h.TokenStride + hd*h.HeadStride
				for j := range h.HeadSize {
					h.F32[base+j] = -1
				}
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ops.ClearOOT("rotary_embedding") })

	if w := none.Which("rotary_embedding"); w != ops.Native {
		t.Errorf("none: Which = %q with an override, want native", w)
	}
	if w := none.Enforced().Which("rotary_embedding"); w != oot {
		t.Errorf("none enforced: Which = %q, want %q", w, oot)
	}
	got := slices.Clone(q0)
	if err := emb.Forward(pos, tensor.FromF32(got, T, H, spec.HeadSize), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	if served.Load() != 0 || !slices.Equal(got, wantQ) {
		t.Errorf("disabled op: the override ran (%d calls)", served.Load())
	}
	got = slices.Clone(q0)
	if err := enforced.Forward(pos, tensor.FromF32(got, T, H, spec.HeadSize), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	if served.Load() != 1 || got[0] != -1 {
		t.Errorf("enforced: the override did not serve (%d calls)", served.Load())
	}
	ops.ClearOOT("rotary_embedding")
	got = slices.Clone(q0)
	if err := enforced.Forward(pos, tensor.FromF32(got, T, H, spec.HeadSize), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	if served.Load() != 1 || !bitsEqual(got, wantQ) {
		t.Errorf("after ClearOOT: the override still ran, or the result differs from native")
	}
}

func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestConcurrentRun(t *testing.T) {
	op := regOp(t)
	const G, N = 16, 200
	d := mustDispatcher(t, "all", ops.Auto)
	var served sync.Map // backend → *atomic.Int64
	var wg sync.WaitGroup
	var stop atomic.Bool
	// While the calls run, backends and overrides come and go on the same op: every call must
	// still be served by exactly one implementation and counted once.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			switch i % 3 {
			case 0:
				op.Register(regImpl(regName("test-conc"), i, nil))
			case 1:
				if err := ops.RegisterOOT(op.Name(), regName("test-conc-oot"), func(regArgs) {}); err != nil {
					t.Error(err)
					return
				}
			case 2:
				ops.ClearOOT(op.Name())
			}
			_ = d.Which(op.Name())
			_ = d.Table()
			if i > 60 {
				return
			}
		}
	}()
	t.Cleanup(func() { ops.ClearOOT(op.Name()) })
	spec := regLlama()
	emb, err := rotary.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	pos, q0, _ := regInputs(4, 2, 1, spec.HeadSize, 9)
	want := slices.Clone(q0)
	if err := emb.Forward(pos, tensor.FromF32(want, 4, 2, spec.HeadSize), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	before := sumCalls(ops.Calls("rotary_embedding"))
	var bad atomic.Int64
	for g := range G {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := &regHits{}
			for range N {
				b, err := ops.Run(d, op, regArgs{hits: h})
				if err != nil {
					t.Error(err)
					return
				}
				v, _ := served.LoadOrStore(b, new(atomic.Int64))
				v.(*atomic.Int64).Add(1)
			}
			if g%4 == 0 {
				for range N / 10 {
					q := slices.Clone(q0)
					if err := emb.Forward(pos, tensor.FromF32(q, 4, 2, spec.HeadSize), tensor.Tensor{}); err != nil {
						t.Error(err)
						return
					}
					if !bitsEqual(q, want) {
						bad.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	total := int64(0)
	served.Range(func(_, v any) bool { total += v.(*atomic.Int64).Load(); return true })
	if total != G*N {
		t.Errorf("%d calls reported, want %d", total, G*N)
	}
	if bad.Load() != 0 {
		t.Errorf("%d concurrent Forward calls gave a different result", bad.Load())
	}
	if got := sumCalls(ops.Calls("rotary_embedding")) - before; got != uint64((G+3)/4*(N/10)) {
		t.Errorf("Calls(rotary_embedding) grew by %d, want %d", got, (G+3)/4*(N/10))
	}
}

func sumCalls(m map[string]uint64) uint64 {
	var s uint64
	for _, v := range m {
		s += v
	}
	return s
}

// FuzzNewDispatcher: any spec and backend give a dispatcher or an error, never a panic, and an
// accepted spec means what it says.
func FuzzNewDispatcher(f *testing.F) {
	for _, s := range []string{"", "all", "none", "all,-mrope", "none,+rotary_embedding", "all,none", "+", "-", ",", " , +mrope ,", "rotary_embedding", "+no_such", "none,+mrope,-mrope", "\x00", "+\xff"} {
		for _, b := range []string{"", "auto", "native", "cpu", "tpu"} {
			f.Add(s, b)
		}
	}
	f.Fuzz(func(t *testing.T, spec, backend string) {
		d, err := ops.NewDispatcher(spec, backend)
		if err != nil {
			if d != nil {
				t.Errorf("NewDispatcher(%q, %q): a dispatcher and an error", spec, backend)
			}
			if err.Error() == "" {
				t.Errorf("NewDispatcher(%q, %q): empty error", spec, backend)
			}
			return
		}
		var sawAll, sawNone bool
		for _, tok := range strings.Split(spec, ",") {
			tok = strings.TrimSpace(tok)
			sawAll = sawAll || tok == "all"
			sawNone = sawNone || tok == "none"
			if tok != "" && tok != "all" && tok != "none" && tok[0] != '+' && tok[0] != '-' {
				t.Errorf("NewDispatcher(%q): accepted token %q", spec, tok)
			}
		}
		if sawAll && sawNone {
			t.Errorf("NewDispatcher(%q): accepted all and none together", spec)
		}
		if backend != "" && backend != ops.Auto && !slices.Contains(ops.Backends(), backend) {
			t.Errorf("NewDispatcher(_, %q): accepted an unknown backend", backend)
		}
		for _, n := range ops.Names() {
			w := d.Which(n)
			if w == "" {
				t.Errorf("NewDispatcher(%q, %q).Which(%s) is empty", spec, backend, n)
			}
			if !d.Enabled(n) && w != ops.Native {
				t.Errorf("NewDispatcher(%q, %q): disabled %s served by %q", spec, backend, n, w)
			}
			if !d.Enforced().Enabled(n) {
				t.Errorf("enforced dispatcher disables %s", n)
			}
		}
		_ = d.Table()
	})
}

// TestRegisterOOTRejectsNilFunc: a nil function of the right type must be refused like
// Register refuses one; accepted, it makes every later enabled call panic.
func TestRegisterOOTRejectsNilFunc(t *testing.T) {
	var fn func(ops.RotaryEmbeddingArgs)
	err := ops.RegisterOOT("rotary_embedding", regName("test-oot-nil"), fn)
	if err == nil {
		ops.ClearOOT("rotary_embedding")
		t.Fatalf("RegisterOOT(rotary_embedding, nil func(RotaryEmbeddingArgs)): no error; every enabled rotary_embedding call would then panic")
	}
}

// TestNewHeadsNonPositiveHeadSize: a head size ≤ 0 is an error, not a division by zero or a
// view with a negative head count.
func TestNewHeadsNonPositiveHeadSize(t *testing.T) {
	for _, d := range []int{0, -2} {
		for _, shape := range [][]int{{2, 4}, {2, 1, 4}, {2, 0}, {2, 1, 0}} {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("NewHeads(shape %v, head size %d) panicked: %v", shape, d, r)
					}
				}()
				h, err := ops.NewHeads("query", tensor.FromF32(make([]float32, 8), shape...), d)
				if err == nil {
					t.Errorf("NewHeads(shape %v, head size %d): no error (view %d tokens × %d heads × %d)", shape, d, h.Tokens, h.NumHeads, h.HeadSize)
				}
			}()
		}
	}
}

package rotarytest

import (
	"fmt"
	"sort"
	"testing"

	"github.com/rotary-go/rotary/ops"
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
	for _, op := range Ops() {
		sweeps[op](s)
	}
	return s.results, nil
}

// Ops lists, sorted, the registry names of the ops the suite sweeps. It is read off the sweeps
// themselves, so a test can hold it against ops.Names and catch an op added without one.
func Ops() []string {
	names := make([]string, 0, len(sweeps))
	for name := range sweeps {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// sweeps holds each op's sweep under the op's registry name; the op's file adds it from init.
var sweeps = map[string]func(*sweep){}

// register adds op's sweep. It takes the op itself rather than a name so that a sweep cannot
// be filed under a misspelt one.
func register(op interface{ Name() string }, f func(*sweep)) {
	if _, dup := sweeps[op.Name()]; dup {
		panic("rotarytest: two sweeps of " + op.Name())
	}
	sweeps[op.Name()] = f
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

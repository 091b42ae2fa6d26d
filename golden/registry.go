package golden

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
)

// Kind is the type of an op's parameter value.
type Kind int

const (
	String Kind = iota
	Int
	Float
	// OptFloat is a number that may be absent: a parameter that belongs to one variant of the
	// op, refused when given with another rather than silently ignored.
	OptFloat
	Bool
)

// Param is one parameter of an op, named as `rotary apply` names its flag.
type Param struct {
	Name string
	Kind Kind
	// Default is the value when Args lacks it, in the text a flag shows ("" for OptFloat: absent).
	Default string
	// Usage is the flag's help text, the back-quoted word naming its value.
	Usage string
}

// ModelUse says what an op takes from a model.
type ModelUse int

const (
	// ModelNone: cos/sin (or whatever the op needs) come from the input tensors.
	ModelNone ModelUse = iota
	// ModelRequired: the op rotates by the model's RoPE at the chosen layer.
	ModelRequired
	// ModelOptional: the op reads a model when one is given; its parameters say everything
	// otherwise.
	ModelOptional
)

// Op is one operator as a golden bundle makes and applies it.
type Op struct {
	Name    string
	Summary string
	Model   ModelUse
	// Params are the parameters the op declares; Reads every parameter it reads, its own and
	// those it shares with other ops (another op's parameter given with it is refused).
	Params []Param
	Reads  []string
	// run computes the output tensors from c's inputs.
	run func(c *Call) ([]safetensors.Tensor, error)
	// inputs makes the op's inputs for a bundle, named and shaped as run reads them, setting
	// through gen.opFlag the parameters that describe them (TestEveryOpMakesInputs).
	inputs func(g *gen) ([]input, error)
	// table: the bundle holds a cos/sin table up to the largest position, which grows with it.
	table bool
	// withoutRoPE: the op has a meaning on a layer without RoPE (query and key pass through, or
	// are only scaled); the others take cos/sin.
	withoutRoPE bool
}

var registry = map[string]*Op{}

// register adds an op; each op's file calls it from init. A duplicate name or parameter is a
// bug: it panics.
func register(op *Op) {
	if _, dup := registry[op.Name]; dup {
		panic("golden: duplicate op " + op.Name)
	}
	for _, p := range op.Params {
		if _, dup := paramOf(p.Name); dup {
			panic("golden: duplicate parameter " + p.Name)
		}
	}
	registry[op.Name] = op
}

// Lookup finds an op by its registry name or another stack's name for it (ops.Canonical). The
// Op describes the registry's entry: read it, do not change it.
func Lookup(name string) (*Op, bool) {
	canon, ok := ops.Canonical(name)
	if !ok {
		return nil, false
	}
	op, ok := registry[canon]
	return op, ok
}

// Names lists the ops, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParamNames are the parameters some op reads, sorted.
func ParamNames() []string {
	var names []string
	for _, op := range registry {
		for _, f := range op.Reads {
			if !slices.Contains(names, f) {
				names = append(names, f)
			}
		}
	}
	sort.Strings(names)
	return names
}

// paramOf finds a declared parameter by name.
func paramOf(name string) (Param, bool) {
	for _, op := range registry {
		for _, p := range op.Params {
			if p.Name == name {
				return p, true
			}
		}
	}
	return Param{}, false
}

// CheckParams refuses a parameter of another op given (given reports which were) with op.
func (op *Op) CheckParams(given func(name string) bool) error {
	if op == nil || given == nil {
		return fmt.Errorf("golden: CheckParams: want an op from Lookup and a given function")
	}
	for _, f := range ParamNames() {
		if !given(f) || slices.Contains(op.Reads, f) {
			continue
		}
		var readers []string
		for _, n := range Names() {
			if slices.Contains(registry[n].Reads, f) {
				readers = append(readers, n)
			}
		}
		return fmt.Errorf("--%s: --op %s does not read it (it is a flag of %s)", f, op.Name, strings.Join(readers, ", "))
	}
	return nil
}

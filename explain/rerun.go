package explain

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

// RerunCase is one failed call of an op given by a function that reruns it: the readings change
// its inputs and parameters and call Rerun. Of the ops, kv_rmsnorm_rope_cache (torch_npu
// npu_kv_rmsnorm_rope_cache: DeepSeek MLA's norm, rope and cache scatter in one) is read this
// way: its rope part turned the wrong way, cos and sin swapped, no rotation, no norm weight,
// the other epsilon, the cache slots off by one.
type RerunCase struct {
	Op string
	// Inputs are the op's input tensors by name, Args its parameters in their flag text.
	Inputs map[string]tensor.Tensor
	Args   map[string]string
	// Rerun computes the outputs by name from inputs (copies, which it may write) and args.
	Rerun func(inputs map[string]tensor.Tensor, args map[string]string) (map[string]tensor.Tensor, error)
	// Want and Got hold the exact and the candidate's outputs by name.
	Want, Got map[string]tensor.Tensor
}

// rerunOps are the ops RerunCase has readings for.
var rerunOps = []string{"kv_rmsnorm_rope_cache"}

// ExplainRerun is Explain for an op given by its rerun.
func ExplainRerun(c RerunCase, opts compare.Options) (Report, error) {
	if !slices.Contains(rerunOps, c.Op) {
		return Report{}, fmt.Errorf("%w: Op %q: want one of %v", ErrCase, c.Op, rerunOps)
	}
	if c.Rerun == nil || len(c.Want) == 0 {
		return Report{}, fmt.Errorf("%w: want Rerun and Want", ErrCase)
	}
	// The readings change these inputs before Rerun checks anything: each must be there, of a
	// float dtype (the index of an integer one), with a last dimension.
	for _, n := range []string{"kv", "gamma", "cos", "sin", "index"} {
		t := c.Inputs[n]
		if t.Rank() < 1 || t.Check(n) != nil || (n == "index") == isFloat(t) {
			return Report{}, fmt.Errorf("%w: Inputs[%q]: want a tensor of rank ≥ 1, %s", ErrCase, n, map[bool]string{true: "of an integer dtype", false: "F32, F16 or BF16"}[n == "index"])
		}
	}
	s := blankState(opts)
	names := make([]string, 0, len(c.Want))
	for n := range c.Want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		// The output is its own "input": no reading of this kind leaves an output unchanged.
		if err := s.mark(n, c.Want[n], c.Want[n], c.Got[n]); err != nil {
			return Report{}, err
		}
	}
	s.rr = &c
	return s.report(), nil
}

// rerun reruns the op with the inputs and args changed by mutate (on copies).
func (s *state) rerun(mutate func(in map[string]tensor.Tensor, args map[string]string) bool) (map[string]tensor.Tensor, error) {
	in := map[string]tensor.Tensor{}
	for n, t := range s.rr.Inputs {
		in[n] = t.Clone()
	}
	args := map[string]string{}
	for k, v := range s.rr.Args {
		args[k] = v
	}
	if !mutate(in, args) {
		return nil, nil
	}
	return s.rr.Rerun(in, args)
}

// kvOp: the case is kv_rmsnorm_rope_cache's.
func kvOp(s *state) bool { return s.rr != nil && s.rr.Op == "kv_rmsnorm_rope_cache" }

// filled is a tensor of t's dtype and shape holding v everywhere.
func filled(t tensor.Tensor, v float32) tensor.Tensor {
	f := tensor.Zeros(t.DType, t.Shape...)
	for i := range f.Len() {
		f.SetFloat32(i, v)
	}
	return f
}

// shiftedIndex is an index tensor with every slot but −1 (skip) moved by d.
func shiftedIndex(t tensor.Tensor, d int64) tensor.Tensor {
	v := make([]int64, t.Len())
	for i := range v {
		if v[i] = t.Int64At(i); v[i] >= 0 {
			v[i] += d
		}
	}
	return tensor.FromI64(v, t.Shape...)
}

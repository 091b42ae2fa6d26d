package main

import (
	"io"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

const applyUsage = "--config CONFIG.json --in IN.safetensors --out OUT.safetensors [--layer N] [--backend NAME] [--custom-ops SPEC]"

func runApply(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("apply", applyUsage, stderr)
	var m modelFlags
	m.register(fs)
	in := fs.String("in", "", "input `IN.safetensors` with positions, query and optional key")
	out := fs.String("out", "", "output `OUT.safetensors` for the rotated query and key")
	var df dispatchFlags
	df.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if err := requireFlag("in", *in); err != nil {
		return err
	}
	if err := requireFlag("out", *out); err != nil {
		return err
	}
	disp, err := df.dispatcher()
	if err != nil {
		return err
	}
	_, spec, err := m.load()
	if err != nil {
		return err
	}
	inputs, err := readInputs(*in)
	if err != nil {
		return err
	}
	positions, ok := inputs["positions"]
	if !ok {
		return usagef("%s: missing tensor \"positions\"", *in)
	}
	query, ok := inputs["query"]
	if !ok {
		return usagef("%s: missing tensor \"query\"", *in)
	}
	key := inputs["key"] // optional: the zero Tensor means none

	emb, err := rotary.New(spec, rotary.WithCacheLen(cacheLenFor(spec, positions)), rotary.WithDispatcher(disp))
	if err != nil {
		return usageError{err}
	}
	results := []safetensors.Tensor{}
	if spec.DualChunk != nil {
		extra := rotary.DualChunkQueries{
			Succ: tensor.Zeros(query.DType, query.Shape...), Inter: tensor.Zeros(query.DType, query.Shape...),
			SuccCritical: tensor.Zeros(query.DType, query.Shape...), InterCritical: tensor.Zeros(query.DType, query.Shape...),
		}
		if err := emb.DualChunk(positions, query, key, extra); err != nil {
			return usageError{err}
		}
		results = append(results, toFile("query_succ", extra.Succ), toFile("query_inter", extra.Inter),
			toFile("query_succ_critical", extra.SuccCritical), toFile("query_inter_critical", extra.InterCritical))
	} else if err := emb.Forward(positions, query, key); err != nil {
		return usageError{err}
	}
	results = append(results, toFile("query", query))
	if !key.IsZero() {
		results = append(results, toFile("key", key))
	}
	if err := safetensors.WriteFile(*out, results, nil); err != nil {
		return usagef("--out: %v", err)
	}
	return nil
}

// cacheLenFor sizes the cache to the positions of this one call: building rows nobody reads
// would cost more than the rotation. Positions past it are computed exactly the same way.
func cacheLenFor(spec rotary.Spec, positions tensor.Tensor) int {
	maxPos := int64(0)
	for i := range positions.Len() {
		maxPos = max(maxPos, positions.Int64At(i))
	}
	return int(min(maxPos+1, int64(spec.DefaultCacheLen())))
}

package main

import (
	"io"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
)

const cacheUsage = "--config CONFIG.json --out OUT.safetensors [--positions N | --gather range:N|FILE [--layout BSND|BNSD|SBND|THD] [--rotary-mode half|interleave] [--dtype F32|BF16|F16]] [--layer N] [--style neox|gptj] [--rope main|indexer]"

func runCache(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cache", cacheUsage, stderr)
	var m modelFlags
	m.register(fs.FlagSet)
	out := fs.String("out", "", "output `OUT.safetensors`")
	n := fs.Int("positions", -1, "number of positions `N` (default: the model's cache length)")
	var g gatherFlags
	g.register(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if err := requireFlag("out", *out); err != nil {
		return err
	}
	if err := checkSafetensorsOut(*out, ""); err != nil {
		return err
	}
	model, spec, err := m.load()
	if err != nil {
		return err
	}
	warnModel(stderr, "cache", model)
	if !flagGiven(fs.FlagSet, "layer") {
		noteLayerKinds(stderr, "cache", m.layer, model, m.rope)
	}
	if spec.NoRoPE {
		// An empty table would read as a layer rotated by nothing in particular; refusing says
		// what the layer is.
		return usagef("--layer %d: the layer has no RoPE, so there is no cos/sin table to write", m.layer)
	}
	if g.positions != "" {
		if *n != -1 {
			return usagef("--positions and --gather: give one (--gather range:N for positions 0..N−1)")
		}
		tensors, err := g.gather(spec)
		if err != nil {
			return err
		}
		if err := safetensors.WriteFile(*out, tensors, nil); err != nil {
			return usagef("--out: %v", err)
		}
		return nil
	}
	if g.given(fs.FlagSet) {
		return usagef("--layout, --rotary-mode and --dtype shape the rows of --gather: give --gather")
	}
	if *n < 0 {
		if *n != -1 {
			return usagef("--positions %d: want ≥ 0", *n)
		}
		*n = spec.DefaultCacheLen()
	}
	// The cache rows are computed here, not by New: New's own cache is left empty.
	emb, err := rotary.New(spec, rotary.WithCacheLen(0))
	if err != nil {
		return usageError{err}
	}
	d := spec.RotaryDim
	if rows := rotary.MaxCacheLen(d); *n > rows {
		return usagef("--positions %d: want 0..%d (a cos/sin table of at most %d float32 values)", *n, rows, rows*d)
	}
	tensors := []safetensors.Tensor{
		streamedCache("cos_sin_cache", emb, *n, false),
		safetensors.FromFloat64s("inv_freq", []int{d / 2}, emb.InvFreq()),
	}
	if spec.Scaling.Type == rotary.ScalingLongRoPE {
		tensors = append(tensors,
			streamedCache("cos_sin_cache_long", emb, *n, true),
			safetensors.FromFloat64s("inv_freq_long", []int{d / 2}, emb.LongInvFreq()))
	}
	if err := safetensors.WriteFile(*out, tensors, nil); err != nil {
		return usagef("--out: %v", err)
	}
	return nil
}

// streamedCache is the F32 tensor name holding rows 0..n−1 of emb's table (long: LongRoPE's
// long one), written as it streams (Embedding.WriteCosSinCache).
func streamedCache(name string, emb *rotary.Embedding, n int, long bool) safetensors.Tensor {
	return safetensors.Tensor{Name: name, DType: "F32", Shape: []int{n, emb.Spec().RotaryDim},
		Stream: func(w io.Writer) error { return emb.WriteCosSinCache(w, n, long) }}
}

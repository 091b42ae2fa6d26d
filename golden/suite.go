package golden

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/tensor"
)

// suiteTokens are the token counts of a suite's bundles at positions 0..N−1: one token
// (decode), the default, and an odd count that leaves tails for vector kernels.
var suiteTokens = []int{1, DefaultTokens, 67}

// suiteTableLimit bounds the cos/sin table (rows × rotary dim) a suite bundle of a table op
// (mrope, the THD ops) may hold, since the table grows with the largest position: boundary cases
// past it are left out with a note, and random positions are drawn below it (random:ROWS).
const suiteTableLimit = 1 << 21

// Vary says which options a suite varies rather than takes as given.
type Vary struct {
	// DType: F32, BF16 and F16.
	DType bool
	// Tokens: 1, DefaultTokens and 67 tokens at positions 0..N−1 (the other positions cases
	// take Options.Tokens, or DefaultTokens).
	Tokens bool
	// Layer: the first layer of each of the model's layer kinds (LayerKinds).
	Layer bool
	// Positions: 0..N−1, then random positions, positions straddling the scaling's original
	// length, and the last positions of the model's cache length.
	Positions bool
}

// Suite makes a suite of bundles: o's bundle for each layer, dtype, token count and positions
// that vary says to vary. Each bundle's Entry.File is a stem naming them.
func Suite(o Options, vary Vary) ([]Bundle, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	op, _ := Lookup(o.Op)
	dtypes := []tensor.DType{o.DType}
	if vary.DType {
		dtypes = []tensor.DType{tensor.F32, tensor.BF16, tensor.F16}
	}
	n := o.Tokens
	if n == 0 {
		n = DefaultTokens
	}
	counts := []int{n}
	if vary.Tokens {
		counts = suiteTokens
	}
	layers := []int{o.Layer}
	if vary.Layer {
		model, _, err := o.Model.Load(o.Layer)
		if err != nil {
			return nil, err
		}
		if model == nil {
			return nil, fmt.Errorf("golden: Options.Model.Load(%d) returned no model", o.Layer)
		}
		layers = layers[:0]
		for _, k := range LayerKinds(o.Model.base(model), model.NumLayers) {
			layers = append(layers, k.Layers[0])
		}
		if len(layers) == 0 {
			layers = append(layers, o.Layer)
		}
	}
	var cases []bundleCase
	for _, layer := range layers {
		if _, spec, err := o.Model.Load(layer); err == nil && spec.NoRoPE && !op.withoutRoPE {
			if !vary.Layer {
				return nil, fmt.Errorf("--layer %d: the layer has no RoPE, so --op %s has no cos/sin to take", layer, o.Op)
			}
			fmt.Fprintf(o.Notes, "--suite: layer %d left out: it has no RoPE, so --op %s has no cos/sin to take\n", layer, o.Op)
			continue
		}
		for _, d := range dtypes {
			for _, p := range o.suitePositions(op, layer, counts, vary) {
				cases = append(cases, bundleCase{dtype: d, tokens: p.tokens, positions: p.positions, layer: layer})
			}
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("--suite: no layer of the model has RoPE for --op %s", o.Op)
	}
	var out []Bundle
	for _, c := range cases {
		b, err := o.bundle(c, true)
		if err != nil {
			return nil, err
		}
		b.Entry.File = fmt.Sprintf("%s_L%d_%s_T%d_%s", o.Op, c.layer, c.dtype, b.Entry.Tokens, fileLabel(b.Entry.Positions))
		out = append(out, b)
	}
	return out, nil
}

// suitePositions is one positions case of a suite.
type suitePositions struct {
	tokens    int
	positions Positions
}

// suitePositions lists a layer's positions cases.
func (o *Options) suitePositions(op *Op, layer int, counts []int, vary Vary) []suitePositions {
	if !vary.Positions {
		if o.Positions.kind == "file" {
			return []suitePositions{{o.Tokens, o.Positions}} // the file gives the token count
		}
		var out []suitePositions
		for _, n := range counts {
			out = append(out, suitePositions{n, o.Positions})
		}
		return out
	}
	named := func(s string) Positions {
		p, _, _ := ParsePositions(s) // the forms below parse
		return p
	}
	var out []suitePositions
	for _, n := range counts {
		out = append(out, suitePositions{n, named("range")})
	}
	n := o.Tokens
	if n == 0 {
		n = DefaultTokens
	}
	_, spec, err := o.Model.Load(layer)
	if err != nil || spec.NoRoPE {
		// A layer without RoPE has no length to straddle; load errors are the bundle's to report.
		return append(out, suitePositions{n, named("random")})
	}
	random := "random"
	if rows := int64(suiteTableLimit / max(spec.RotaryDim, 1)); op.table && int64(spec.DefaultCacheLen()) > rows {
		random = "random:" + strconv.FormatInt(rows, 10) // the table grows with the largest position
	}
	out = append(out, suitePositions{n, named(random)})
	orig, maxLen := int64(spec.OriginalMax()), int64(spec.DefaultCacheLen())
	var starts []int64
	if orig > 0 && orig < maxLen {
		starts = append(starts, max(orig-int64(n/2), 0)) // across the scaling's switch (LongRoPE's table, YaRN's length)
	}
	if maxLen >= int64(n) {
		starts = append(starts, maxLen-int64(n)) // the last positions the cache has
	}
	for i, s := range starts {
		if s == 0 || (i > 0 && s == starts[0]) {
			continue // range already covers it, or the two lengths meet
		}
		if op.table && (s+int64(n)+1)*int64(spec.RotaryDim) > suiteTableLimit {
			fmt.Fprintf(o.Notes, "--suite: layer %d, positions from %d: left out (the %s bundle would hold a cos/sin table of %d rows)\n", layer, s, o.Op, s+int64(n)+1)
			continue
		}
		out = append(out, suitePositions{n, named("range:" + strconv.FormatInt(s, 10))})
	}
	return out
}

// fileLabel is the positions part of a suite file's name: range, random, range-START or file.
func fileLabel(positions string) string {
	if strings.HasPrefix(positions, "file:") {
		return "file"
	}
	return strings.ReplaceAll(positions, ":", "-")
}

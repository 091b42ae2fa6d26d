package explain

import (
	"cmp"
	"errors"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/internal/errs"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// GoldenCase is a candidate that failed against a golden bundle: one golden.Make made, or one
// `rotary golden` wrote, read back (safetensors.ReadTensors, npy.ReadDir).
type GoldenCase struct {
	// Golden holds the bundle's tensors by name: the op's inputs, and its expected outputs
	// under golden.OutPrefix. Metadata is the bundle's metadata: the op, apply_args (the op's
	// recorded parameters) and the layout.
	Golden   map[string]tensor.Tensor
	Metadata map[string]string
	// Candidate holds the candidate's outputs, each as golden.CandidateOutput finds it: under
	// out.NAME, or NAME.
	Candidate map[string]tensor.Tensor
	// Model rebuilds the golden's model and reads its layer from apply_args, for the ops that
	// rotate by a model's RoPE: rotary_embedding, rotary_embedding_gathered, qk_rmsnorm_rope,
	// and query_scale made from a model. nil: the model flags apply_args record
	// (golden.ReadModelArgs), the model read as rotary apply --in reads it, its config refused
	// when its sha256 is not the bundle's config_sha256 (golden.ModelArgs.CheckConfig). Give it for a
	// golden whose model apply_args cannot name: golden.Make takes any Model.Load.
	Model func(applyArgs string) (golden.Model, int, error)
}

// ErrGolden is wrapped by the errors ExplainGolden returns for a bundle it cannot rebuild a
// case from (an op it does not cover, recorded parameters or a model it cannot read) or a
// candidate that lacks an output it reads. Its message is the package's prefix, so that these
// errors read as the line rotary verify prints.
var ErrGolden = errors.New("explain")

// goldenOps are the ops ExplainGolden covers: every op golden registers (of the backward
// passes, dx alone).
var goldenOps = map[string]bool{"rotary_embedding": true, "rotary_embedding_gathered": true, "qk_rmsnorm_rope": true,
	"apply_rotary_emb": true, "apply_rotary_emb_backward": true, "interleave_rope": true, "mrope": true,
	"apply_rotary_emb_thd": true, "apply_rotary_emb_thd_backward": true, "vision_rope_2d": true, "query_scale": true,
	"kv_rmsnorm_rope_cache": true}

// ReadsOutput reports whether ExplainGolden reads output (NAME or out.NAME) of a golden of op:
// the rotated query and key, out, or a backward pass's dx (not its dcos and dsin); of
// kv_rmsnorm_rope_cache, its caches and optional outputs.
func ReadsOutput(op, output string) bool {
	switch strings.TrimPrefix(output, golden.OutPrefix) {
	case "query", "key":
		return goldenOps[op] && !strings.HasPrefix(op, "apply_rotary_emb") && op != "interleave_rope"
	case "out":
		return op == "apply_rotary_emb" || op == "interleave_rope" || op == "apply_rotary_emb_thd"
	case "dx":
		return op == "apply_rotary_emb_backward" || op == "apply_rotary_emb_thd_backward"
	case "k_cache", "ckv_cache", "k_rope", "c_kv":
		return op == "kv_rmsnorm_rope_cache"
	}
	return false
}

// ExplainGolden rebuilds the case of the bundle's op from its inputs and its recorded
// apply_args, and explains the candidate as the op's explainer does (Explain, ExplainQKNorm,
// ExplainCosSin, ExplainCache, ExplainTHD, ExplainVision, ExplainQueryScale, ExplainRerun).
// Tolerances are opts's, as the candidate was judged. An error says why nothing was
// explained; it wraps ErrGolden, or ErrCase when the op's explainer refuses the case.
func ExplainGolden(c GoldenCase, opts compare.Options) (Report, error) {
	op := c.Metadata["op"]
	if !goldenOps[op] {
		return Report{}, errs.Wrapf(ErrGolden, "op %q is not covered", op)
	}
	if c.Model == nil {
		c.Model = recordedModel(c.Metadata)
	}
	switch op {
	case "apply_rotary_emb", "apply_rotary_emb_backward", "interleave_rope":
		return explainGoldenCosSin(c, opts)
	case "mrope":
		return explainGoldenCache(c, opts)
	case "apply_rotary_emb_thd", "apply_rotary_emb_thd_backward":
		return explainGoldenTHD(c, opts)
	case "vision_rope_2d":
		return explainGoldenVision(c, opts)
	case "query_scale":
		return explainGoldenQueryScale(c, opts)
	case "kv_rmsnorm_rope_cache":
		return explainGoldenRerun(op, c, opts)
	}
	applyArgs := c.Metadata["apply_args"]
	m, layer, err := c.Model(applyArgs)
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "%v", err)
	}
	_, spec, err := load(m, layer)
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "cannot rebuild the golden's RoPE: %v", err)
	}
	k := Case{Spec: spec, Query: c.Golden["query"], Key: c.Golden["key"]}
	if k.Positions, err = golden.BatchPositions(c.Golden["positions"]); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "%v", err)
	}
	if k.Want, k.Got, err = queryKeyOutputs(c); err != nil {
		return Report{}, err
	}
	if layout := golden.ApplyArg(applyArgs, "layout"); layout != "" && op != "qk_rmsnorm_rope" {
		if k, err = tokenMajorCase(op, layout, k); err != nil {
			return Report{}, errs.Wrapf(ErrGolden, "%v", err)
		}
	}
	if op != "qk_rmsnorm_rope" {
		return Explain(k, opts)
	}
	eps := 1e-6 // apply's --epsilon-qk default
	if v := golden.ApplyArg(applyArgs, "epsilon-qk"); v != "" {
		if eps, err = strconv.ParseFloat(v, 64); err != nil {
			return Report{}, errs.Wrapf(ErrGolden, "the golden's --epsilon-qk: %v", err)
		}
	}
	return ExplainQKNorm(QKNormCase{Case: k, QWeight: c.Golden["q_weight"], KWeight: c.Golden["k_weight"], Epsilon: eps}, opts)
}

// recordedModel is GoldenCase.Model's default for a bundle's metadata: the model of the flags
// apply_args record, read when the case needs it, so that a model that cannot be read is said
// as such. A config whose sha256 is not the bundle's config_sha256 is refused, as rotary apply
// --in refuses it: readings recomputed from another config can name the wrong mistake. A
// bundle that records no config_sha256 has nothing to check it against.
func recordedModel(metadata map[string]string) func(applyArgs string) (golden.Model, int, error) {
	return func(applyArgs string) (golden.Model, int, error) {
		a, err := golden.ReadModelArgs(applyArgs)
		if err != nil {
			return golden.Model{}, 0, err
		}
		// A config that cannot be read is said by Load, as the case's rebuilding. One that can
		// is read once: the bytes checked are the bytes every layer's Load parses.
		if pinned, err := a.Pin(); err == nil {
			a = pinned
			if metadata["config_sha256"] != "" {
				if err := a.CheckConfig(metadata); err != nil {
					return golden.Model{}, 0, err
				}
			}
		}
		return golden.Model{Load: a.LoadAt}, a.Layer, nil
	}
}

// load is m's model and RoPE at layer; a Model without Load is an error, not a panic.
func load(m golden.Model, layer int) (*hf.Model, rotary.Spec, error) {
	if m.Load == nil {
		return nil, rotary.Spec{}, errors.New("GoldenCase.Model: the golden.Model has no Load")
	}
	return m.Load(layer)
}

// tokenMajorCase views a case recorded in a 4-D --layout ([B,H,S,D] and the like, position_ids
// [B,S]) as the op takes it: query and key [T,H,D], positions [T]. A candidate output of
// another shape but the same element count is read in the golden's.
func tokenMajorCase(op, layout string, c Case) (Case, error) {
	p, q, k, _, err := golden.TokenMajor(op, layout, c.Positions, c.Query, c.Key)
	if err != nil {
		return c, err
	}
	out := Case{Spec: c.Spec, Positions: p, Query: q, Key: k, Want: map[string]tensor.Tensor{}, Got: map[string]tensor.Tensor{}}
	for _, side := range []struct{ from, to map[string]tensor.Tensor }{{c.Want, out.Want}, {c.Got, out.Got}} {
		sq, sk := side.from["query"].Clone(), side.from["key"].Clone()
		if sq, err = sq.Reshape(c.Want["query"].Shape...); err != nil {
			return c, err
		}
		if !sk.IsZero() {
			if sk, err = sk.Reshape(c.Want["key"].Shape...); err != nil {
				return c, err
			}
		}
		if _, side.to["query"], side.to["key"], _, err = golden.TokenMajor(op, layout, c.Positions, sq, sk); err != nil {
			return c, err
		}
		if side.to["key"].IsZero() {
			delete(side.to, "key")
		}
	}
	return out, nil
}

// queryKeyOutputs pairs the golden's expected query and key with the candidate's, or says which
// the candidate lacks.
func queryKeyOutputs(c GoldenCase) (want, got map[string]tensor.Tensor, err error) {
	want, got = map[string]tensor.Tensor{}, map[string]tensor.Tensor{}
	for _, x := range []string{"query", "key"} {
		w, ok := c.Golden[golden.OutPrefix+x]
		if !ok {
			continue
		}
		g, err := candidateOutput(c, x)
		if err != nil {
			return nil, nil, err
		}
		want[x], got[x] = w, g
	}
	return want, got, nil
}

// candidateOutput is the candidate's output x, or the error saying it lacks it.
func candidateOutput(c GoldenCase, x string) (tensor.Tensor, error) {
	t, _, ok := golden.CandidateOutput(c.Candidate, x)
	if !ok {
		return tensor.Tensor{}, errs.Wrapf(ErrGolden, "the candidate lacks %s", x)
	}
	return t, nil
}

// explainGoldenCosSin explains an apply_rotary_emb golden (its layout and pairing are the
// recorded --layout and --rotary-mode), its backward pass's dx, or an interleave_rope golden.
func explainGoldenCosSin(c GoldenCase, opts compare.Options) (Report, error) {
	style, err := rope.ParseRotaryMode(cmp.Or(golden.ApplyArg(c.Metadata["apply_args"], "rotary-mode"), "half"))
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --rotary-mode: %v", err)
	}
	op := c.Metadata["op"]
	in, out := "x", "out"
	if op == "apply_rotary_emb_backward" {
		in, out = "dy", "dx"
	}
	got, err := candidateOutput(c, out)
	if err != nil {
		return Report{}, err
	}
	return ExplainCosSin(CosSinCase{
		Layout: ops.Layout(compare.AxesOf(c.Metadata).Layout), Style: style,
		Interleaved: op == "interleave_rope", Backward: op == "apply_rotary_emb_backward",
		X: c.Golden[in], Cos: c.Golden["cos"], Sin: c.Golden["sin"],
		Want: c.Golden[golden.OutPrefix+out], Got: got,
	}, opts)
}

// explainGoldenCache explains an mrope golden from its recorded --head-size, --rotary-mode,
// --mrope-section and --mrope-cache-mode.
func explainGoldenCache(c GoldenCase, opts compare.Options) (Report, error) {
	args := c.Metadata["apply_args"]
	p := rotary.NPUMRoPEParams{Query: c.Golden["query"], Key: c.Golden["key"], CosSinCache: c.Golden["cos_sin_cache"]}
	var err error
	if p.HeadSize, err = strconv.Atoi(golden.ApplyArg(args, "head-size")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's apply_args have no --head-size")
	}
	if p.Sections, err = golden.ParseMRoPESection(golden.ApplyArg(args, "mrope-section")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's %v", err)
	}
	if p.Style, err = rope.ParseRotaryMode(cmp.Or(golden.ApplyArg(args, "rotary-mode"), "half")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --rotary-mode: %v", err)
	}
	if p.Interleaved, err = ops.ParseMRoPECacheMode(cmp.Or(golden.ApplyArg(args, "mrope-cache-mode"), "default")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --mrope-cache-mode: %v", err)
	}
	if p.Positions, err = golden.BatchPositions(c.Golden["positions"]); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "%v", err)
	}
	k := CacheCase{Params: p}
	if k.Want, k.Got, err = queryKeyOutputs(c); err != nil {
		return Report{}, err
	}
	return ExplainCache(k, opts)
}

// explainGoldenRerun explains a golden of an op explain reads through its rerun
// (kv_rmsnorm_rope_cache): the bundle's inputs and recorded parameters, golden.Run to recompute.
func explainGoldenRerun(op string, c GoldenCase, opts compare.Options) (Report, error) {
	o, ok := golden.Lookup(op)
	if !ok {
		return Report{}, errs.Wrapf(ErrGolden, "op %q is not registered", op)
	}
	k := RerunCase{Op: op, Inputs: map[string]tensor.Tensor{}, Args: map[string]string{}, Want: map[string]tensor.Tensor{}, Got: map[string]tensor.Tensor{}}
	for n, t := range c.Golden {
		name, isOut := strings.CutPrefix(n, golden.OutPrefix)
		if !isOut {
			k.Inputs[n] = t
			continue
		}
		got, err := candidateOutput(c, name)
		if err != nil {
			return Report{}, err
		}
		k.Want[name], k.Got[name] = t, got
	}
	for _, p := range o.Params {
		if v := golden.ApplyArg(c.Metadata["apply_args"], p.Name); v != "" {
			k.Args[p.Name] = v
		}
	}
	k.Rerun = func(in map[string]tensor.Tensor, args map[string]string) (map[string]tensor.Tensor, error) {
		files, err := golden.Run(op, golden.Call{Inputs: in, Args: golden.Args(args)})
		if err != nil {
			return nil, err
		}
		out := map[string]tensor.Tensor{}
		for _, f := range files {
			if out[f.Name], err = safetensors.ToTensor(f); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return ExplainRerun(k, opts)
}

// explainGoldenQueryScale explains a query_scale golden made from a model: the rule is the
// model's at the recorded --layer, with the recorded --query-scale-cast.
func explainGoldenQueryScale(c GoldenCase, opts compare.Options) (Report, error) {
	args := c.Metadata["apply_args"]
	if golden.ApplyArg(args, "query-scale") != "" {
		return Report{}, errs.Wrapf(ErrGolden, "a query_scale golden made with --query-scale (no model) is not covered")
	}
	m, layer, err := c.Model(args)
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "%v", err)
	}
	model, _, err := load(m, layer)
	if err == nil && model == nil {
		err = errors.New("GoldenCase.Model: Load returned no model")
	}
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "cannot rebuild the golden's model: %v", err)
	}
	rule, err := model.QueryScaleAt(layer)
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "%v", err)
	}
	if rule.Cast, err = rope.ParseQueryScaleCast(cmp.Or(golden.ApplyArg(args, "query-scale-cast"), "default")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --query-scale-cast: %v", err)
	}
	got, err := candidateOutput(c, "query")
	if err != nil {
		return Report{}, err
	}
	return ExplainQueryScale(QueryScaleCase{
		Params: rotary.QueryScaleParams{Positions: c.Golden["positions"], Query: c.Golden["query"], Rule: rule},
		Want:   c.Golden[golden.OutPrefix+"query"], Got: got,
	}, opts)
}

// explainGoldenVision explains a vision_rope_2d golden from its recorded --vision-layout,
// --vision-theta and --rotary-mode; the head size is the query's last dimension, as apply takes
// it.
func explainGoldenVision(c GoldenCase, opts compare.Options) (Report, error) {
	args := c.Metadata["apply_args"]
	p := rotary.VisionRoPE2DParams{Positions: c.Golden["positions"], Query: c.Golden["query"], Key: c.Golden["key"]}
	var err error
	if p.Style, err = rope.ParseRotaryMode(cmp.Or(golden.ApplyArg(args, "rotary-mode"), "half")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --rotary-mode: %v", err)
	}
	if p.Layout, err = ops.ParseVisionLayout(cmp.Or(golden.ApplyArg(args, "vision-layout"), "split")); err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --vision-layout: %v", err)
	}
	if v := golden.ApplyArg(args, "vision-theta"); v != "" {
		if p.Theta, err = strconv.ParseFloat(v, 64); err != nil {
			return Report{}, errs.Wrapf(ErrGolden, "the golden's --vision-theta: %v", err)
		}
	}
	if p.Query.Rank() == 3 {
		p.HeadSize = p.Query.Shape[2]
	}
	k := VisionCase{Params: p}
	if k.Want, k.Got, err = queryKeyOutputs(c); err != nil {
		return Report{}, err
	}
	return ExplainVision(k, opts)
}

// explainGoldenTHD explains an apply_rotary_emb_thd golden (or its backward pass's dx) from its
// recorded --rotary-mode, --cp-size and --cp-rank.
func explainGoldenTHD(c GoldenCase, opts compare.Options) (Report, error) {
	args := c.Metadata["apply_args"]
	style, err := rope.ParseRotaryMode(cmp.Or(golden.ApplyArg(args, "rotary-mode"), "half"))
	if err != nil {
		return Report{}, errs.Wrapf(ErrGolden, "the golden's --rotary-mode: %v", err)
	}
	seqs := ops.PackedSeqs{CuSeqlens: c.Golden["cu_seqlens"], StartPositions: c.Golden["start_positions"], CPSize: 1}
	for _, f := range []struct {
		name string
		v    *int
	}{{"cp-size", &seqs.CPSize}, {"cp-rank", &seqs.CPRank}} {
		if a := golden.ApplyArg(args, f.name); a != "" {
			if *f.v, err = strconv.Atoi(a); err != nil {
				return Report{}, errs.Wrapf(ErrGolden, "the golden's --%s: %v", f.name, err)
			}
		}
	}
	backward := c.Metadata["op"] == "apply_rotary_emb_thd_backward"
	in, out := "x", "out"
	if backward {
		in, out = "dy", "dx"
	}
	got, err := candidateOutput(c, out)
	if err != nil {
		return Report{}, err
	}
	return ExplainTHD(THDCase{
		Params:   rotary.ApplyRotaryEmbTHDParams{X: c.Golden[in], Cos: c.Golden["cos"], Sin: c.Golden["sin"], Seqs: seqs, Style: style},
		Backward: backward, Want: c.Golden[golden.OutPrefix+out], Got: got,
	}, opts)
}

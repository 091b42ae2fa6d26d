package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/explain"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// explainedOps are the golden ops verify explains: every registered op (of the backward passes,
// dx alone).
var explainedOps = map[string]bool{"rotary_embedding": true, "rotary_embedding_gathered": true, "qk_rmsnorm_rope": true,
	"apply_rotary_emb": true, "apply_rotary_emb_backward": true, "interleave_rope": true, "mrope": true,
	"apply_rotary_emb_thd": true, "apply_rotary_emb_thd_backward": true, "vision_rope_2d": true, "query_scale": true,
	"kv_rmsnorm_rope_cache": true}

// explainReads reports whether explain reads output (out.X) of a golden of op: the rotated
// query and key, out, or a backward pass's dx (not its dcos and dsin).
func explainReads(op, output string) bool {
	switch strings.TrimPrefix(output, outPrefix) {
	case "query", "key":
		return explainedOps[op] && !strings.HasPrefix(op, "apply_rotary_emb") && op != "interleave_rope"
	case "out":
		return op == "apply_rotary_emb" || op == "interleave_rope" || op == "apply_rotary_emb_thd"
	case "dx":
		return op == "apply_rotary_emb_backward" || op == "apply_rotary_emb_thd_backward"
	case "k_cache", "ckv_cache", "k_rope", "c_kv":
		return op == "kv_rmsnorm_rope_cache"
	}
	return false
}

// explainVerify runs package explain on a failed golden and candidate. It returns the report,
// or why there is none (a golden of another op, a model it cannot rebuild).
func explainVerify(bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	op := bundle.metadata["op"]
	if !explainedOps[op] {
		return explain.Report{}, fmt.Sprintf("explain: op %q is not covered", op)
	}
	switch op {
	case "apply_rotary_emb", "apply_rotary_emb_backward", "interleave_rope":
		return explainCosSin(bundle, cand, opts)
	case "mrope":
		return explainCache(bundle, cand, opts)
	case "apply_rotary_emb_thd", "apply_rotary_emb_thd_backward":
		return explainTHD(bundle, cand, opts)
	case "vision_rope_2d":
		return explainVision(bundle, cand, opts)
	case "query_scale":
		return explainQueryScale(bundle, cand, opts)
	case "kv_rmsnorm_rope_cache":
		return explainRerun(op, bundle, cand, opts)
	}
	m, err := goldenModelFlags(bundle.metadata["apply_args"])
	if err != nil {
		return explain.Report{}, "explain: " + err.Error()
	}
	_, spec, err := m.load()
	if err != nil {
		return explain.Report{}, "explain: cannot rebuild the golden's RoPE: " + err.Error()
	}
	c := explain.Case{Spec: spec, Query: bundle.tensors["query"], Key: bundle.tensors["key"]}
	if c.Positions, err = golden.BatchPositions(bundle.tensors["positions"]); err != nil {
		return explain.Report{}, "explain: " + err.Error()
	}
	var why string
	if c.Want, c.Got, why = queryKeyOutputs(bundle, cand); why != "" {
		return explain.Report{}, why
	}
	if layout := applyArg(bundle.metadata["apply_args"], "layout"); layout != "" && op != "qk_rmsnorm_rope" {
		if c, err = tokenMajorCase(op, layout, c); err != nil {
			return explain.Report{}, "explain: " + err.Error()
		}
	}
	if op != "qk_rmsnorm_rope" {
		return reported(explain.Explain(c, opts))
	}
	eps := 1e-6 // apply's --epsilon-qk default
	if v := applyArg(bundle.metadata["apply_args"], "epsilon-qk"); v != "" {
		if eps, err = strconv.ParseFloat(v, 64); err != nil {
			return explain.Report{}, "explain: the golden's --epsilon-qk: " + err.Error()
		}
	}
	return reported(explain.ExplainQKNorm(explain.QKNormCase{Case: c, QWeight: bundle.tensors["q_weight"], KWeight: bundle.tensors["k_weight"], Epsilon: eps}, opts))
}

// tokenMajorCase views a case recorded in a 4-D --layout ([B,H,S,D] and the like, position_ids
// [B,S]) as the op takes it: query and key [T,H,D], positions [T]. A candidate output of
// another shape but the same element count is read in the golden's.
func tokenMajorCase(op, layout string, c explain.Case) (explain.Case, error) {
	p, q, k, _, err := golden.TokenMajor(op, layout, c.Positions, c.Query, c.Key)
	if err != nil {
		return c, err
	}
	out := explain.Case{Spec: c.Spec, Positions: p, Query: q, Key: k, Want: map[string]tensor.Tensor{}, Got: map[string]tensor.Tensor{}}
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
func queryKeyOutputs(bundle, cand *inputSet) (want, got map[string]tensor.Tensor, why string) {
	want, got = map[string]tensor.Tensor{}, map[string]tensor.Tensor{}
	for _, x := range []string{"query", "key"} {
		w, ok := bundle.tensors[outPrefix+x]
		if !ok {
			continue
		}
		g, _, ok := candidateFor(cand, outPrefix+x, x)
		if !ok {
			return nil, nil, "explain: the candidate lacks " + x
		}
		want[x], got[x] = w, g
	}
	return want, got, ""
}

// explainCosSin explains an apply_rotary_emb golden (its layout and pairing are the recorded
// --layout and --rotary-mode), its backward pass's dx, or an interleave_rope golden.
func explainCosSin(bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	style, err := rope.ParseRotaryMode(cmp.Or(applyArg(bundle.metadata["apply_args"], "rotary-mode"), "half"))
	if err != nil {
		return explain.Report{}, "explain: the golden's --rotary-mode: " + err.Error()
	}
	op := bundle.metadata["op"]
	in, out := "x", "out"
	if op == "apply_rotary_emb_backward" {
		in, out = "dy", "dx"
	}
	got, _, ok := candidateFor(cand, outPrefix+out, out)
	if !ok {
		return explain.Report{}, "explain: the candidate lacks " + out
	}
	return reported(explain.ExplainCosSin(explain.CosSinCase{
		Layout: ops.Layout(compare.AxesOf(bundle.metadata).Layout), Style: style,
		Interleaved: op == "interleave_rope", Backward: op == "apply_rotary_emb_backward",
		X: bundle.tensors[in], Cos: bundle.tensors["cos"], Sin: bundle.tensors["sin"],
		Want: bundle.tensors[outPrefix+out], Got: got,
	}, opts))
}

// explainCache explains an mrope golden from its recorded --head-size, --rotary-mode,
// --mrope-section and --mrope-cache-mode.
func explainCache(bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	args := bundle.metadata["apply_args"]
	p := rotary.NPUMRoPEParams{Query: bundle.tensors["query"], Key: bundle.tensors["key"], CosSinCache: bundle.tensors["cos_sin_cache"]}
	var err error
	if p.HeadSize, err = strconv.Atoi(applyArg(args, "head-size")); err != nil {
		return explain.Report{}, "explain: the golden's apply_args have no --head-size"
	}
	if p.Sections, err = golden.ParseMRoPESection(applyArg(args, "mrope-section")); err != nil {
		return explain.Report{}, "explain: the golden's " + err.Error()
	}
	if p.Style, err = rope.ParseRotaryMode(cmp.Or(applyArg(args, "rotary-mode"), "half")); err != nil {
		return explain.Report{}, "explain: the golden's --rotary-mode: " + err.Error()
	}
	if p.Interleaved, err = ops.ParseMRoPECacheMode(cmp.Or(applyArg(args, "mrope-cache-mode"), "default")); err != nil {
		return explain.Report{}, "explain: the golden's --mrope-cache-mode: " + err.Error()
	}
	if p.Positions, err = golden.BatchPositions(bundle.tensors["positions"]); err != nil {
		return explain.Report{}, "explain: " + err.Error()
	}
	c := explain.CacheCase{Params: p}
	var why string
	if c.Want, c.Got, why = queryKeyOutputs(bundle, cand); why != "" {
		return explain.Report{}, why
	}
	return reported(explain.ExplainCache(c, opts))
}

// explainRerun explains a golden of an op explain reads through its rerun
// (kv_rmsnorm_rope_cache): the bundle's inputs and recorded parameters, golden.Run to recompute.
func explainRerun(op string, bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	o, ok := golden.Lookup(op)
	if !ok {
		return explain.Report{}, fmt.Sprintf("explain: op %q is not registered", op)
	}
	c := explain.RerunCase{Op: op, Inputs: map[string]tensor.Tensor{}, Args: map[string]string{}, Want: map[string]tensor.Tensor{}, Got: map[string]tensor.Tensor{}}
	for n, t := range bundle.tensors {
		name, isOut := strings.CutPrefix(n, outPrefix)
		if !isOut {
			c.Inputs[n] = t
			continue
		}
		got, _, ok := candidateFor(cand, n, name)
		if !ok {
			return explain.Report{}, "explain: the candidate lacks " + name
		}
		c.Want[name], c.Got[name] = t, got
	}
	for _, p := range o.Params {
		if v := applyArg(bundle.metadata["apply_args"], p.Name); v != "" {
			c.Args[p.Name] = v
		}
	}
	c.Rerun = func(in map[string]tensor.Tensor, args map[string]string) (map[string]tensor.Tensor, error) {
		files, err := golden.Run(op, golden.Call{Inputs: in, Args: golden.Args(args)})
		if err != nil {
			return nil, err
		}
		out := map[string]tensor.Tensor{}
		for _, f := range files {
			if out[f.Name], err = decoded(f); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return reported(explain.ExplainRerun(c, opts))
}

// decoded is an op's output as a tensor (an output is encoded as it is written).
func decoded(f safetensors.Tensor) (tensor.Tensor, error) {
	if f.Stream != nil {
		var b bytes.Buffer
		if err := f.Stream(&b); err != nil {
			return tensor.Tensor{}, err
		}
		f.Data, f.Stream = b.Bytes(), nil
	}
	return safetensors.ToTensor(f)
}

// explainQueryScale explains a query_scale golden made from a model: the rule is the model's at
// the recorded --layer, with the recorded --query-scale-cast.
func explainQueryScale(bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	args := bundle.metadata["apply_args"]
	if applyArg(args, "query-scale") != "" {
		return explain.Report{}, "explain: a query_scale golden made with --query-scale (no model) is not covered"
	}
	m, err := goldenModelFlags(args)
	if err != nil {
		return explain.Report{}, "explain: " + err.Error()
	}
	model, _, err := m.load()
	if err != nil {
		return explain.Report{}, "explain: cannot rebuild the golden's model: " + err.Error()
	}
	rule, err := model.QueryScaleAt(m.layer)
	if err != nil {
		return explain.Report{}, "explain: " + err.Error()
	}
	if rule.Cast, err = rope.ParseQueryScaleCast(cmp.Or(applyArg(args, "query-scale-cast"), "default")); err != nil {
		return explain.Report{}, "explain: the golden's --query-scale-cast: " + err.Error()
	}
	got, _, ok := candidateFor(cand, outPrefix+"query", "query")
	if !ok {
		return explain.Report{}, "explain: the candidate lacks query"
	}
	return reported(explain.ExplainQueryScale(explain.QueryScaleCase{
		Params: rotary.QueryScaleParams{Positions: bundle.tensors["positions"], Query: bundle.tensors["query"], Rule: rule},
		Want:   bundle.tensors[outPrefix+"query"], Got: got,
	}, opts))
}

// explainVision explains a vision_rope_2d golden from its recorded --vision-layout,
// --vision-theta and --rotary-mode; the head size is the query's last dimension, as apply takes
// it.
func explainVision(bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	args := bundle.metadata["apply_args"]
	p := rotary.VisionRoPE2DParams{Positions: bundle.tensors["positions"], Query: bundle.tensors["query"], Key: bundle.tensors["key"]}
	var err error
	if p.Style, err = rope.ParseRotaryMode(cmp.Or(applyArg(args, "rotary-mode"), "half")); err != nil {
		return explain.Report{}, "explain: the golden's --rotary-mode: " + err.Error()
	}
	if p.Layout, err = ops.ParseVisionLayout(cmp.Or(applyArg(args, "vision-layout"), "split")); err != nil {
		return explain.Report{}, "explain: the golden's --vision-layout: " + err.Error()
	}
	if v := applyArg(args, "vision-theta"); v != "" {
		if p.Theta, err = strconv.ParseFloat(v, 64); err != nil {
			return explain.Report{}, "explain: the golden's --vision-theta: " + err.Error()
		}
	}
	if p.Query.Rank() == 3 {
		p.HeadSize = p.Query.Shape[2]
	}
	c := explain.VisionCase{Params: p}
	var why string
	if c.Want, c.Got, why = queryKeyOutputs(bundle, cand); why != "" {
		return explain.Report{}, why
	}
	return reported(explain.ExplainVision(c, opts))
}

// explainTHD explains an apply_rotary_emb_thd golden (or its backward pass's dx) from its
// recorded --rotary-mode, --cp-size and --cp-rank.
func explainTHD(bundle, cand *inputSet, opts compare.Options) (explain.Report, string) {
	args := bundle.metadata["apply_args"]
	style, err := rope.ParseRotaryMode(cmp.Or(applyArg(args, "rotary-mode"), "half"))
	if err != nil {
		return explain.Report{}, "explain: the golden's --rotary-mode: " + err.Error()
	}
	seqs := ops.PackedSeqs{CuSeqlens: bundle.tensors["cu_seqlens"], StartPositions: bundle.tensors["start_positions"], CPSize: 1}
	for _, f := range []struct {
		name string
		v    *int
	}{{"cp-size", &seqs.CPSize}, {"cp-rank", &seqs.CPRank}} {
		if a := applyArg(args, f.name); a != "" {
			if *f.v, err = strconv.Atoi(a); err != nil {
				return explain.Report{}, "explain: the golden's --" + f.name + ": " + err.Error()
			}
		}
	}
	backward := bundle.metadata["op"] == "apply_rotary_emb_thd_backward"
	in, out := "x", "out"
	if backward {
		in, out = "dy", "dx"
	}
	got, _, ok := candidateFor(cand, outPrefix+out, out)
	if !ok {
		return explain.Report{}, "explain: the candidate lacks " + out
	}
	return reported(explain.ExplainTHD(explain.THDCase{
		Params:   rotary.ApplyRotaryEmbTHDParams{X: bundle.tensors[in], Cos: bundle.tensors["cos"], Sin: bundle.tensors["sin"], Seqs: seqs, Style: style},
		Backward: backward, Want: bundle.tensors[outPrefix+out], Got: got,
	}, opts))
}

// applyArg is the value of flag --name in a golden's apply_args, "" when absent or unreadable.
func applyArg(applyArgs, name string) string {
	fs := flag.NewFlagSet("apply_args", flag.ContinueOnError)
	v := fs.String(name, "", "")
	if _, err := setRecordedArgs(fs, applyArgs, func(n string) bool { return n == name }); err != nil {
		return ""
	}
	return *v
}

// printExplained prints the report under verify's table.
func printExplained(w io.Writer, rep explain.Report, why string, opts compare.Options) {
	if why != "" {
		fmt.Fprintln(w, why)
		return
	}
	if rep.Failing == 0 {
		fmt.Fprintln(w, "explain: the outputs it reads pass; the failing ones are not among them (of a backward pass it reads dx)")
		return
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintf(w, "explain: no known porting mistake reproduces the candidate (%d readings tried)\n", rep.Tried)
		return
	}
	within := "within tolerance"
	if opts.ATol < 0 {
		within = fmt.Sprintf("within %d ULP", opts.MaxULP)
	}
	for _, f := range rep.Findings {
		lead := "explained by"
		if !f.Reproduces() {
			lead = "partly explained by"
		}
		fmt.Fprintf(w, "%s: %s (%d of %d failing elements %s of that reading", lead, f.Reading, f.Explained, f.Failing, within)
		if f.Residual > 0 {
			fmt.Fprintf(w, "; %d elements it does not account for", f.Residual)
		}
		fmt.Fprintln(w, ")")
		if p := f.Precision; p != nil {
			fmt.Fprintf(w, "  a precision finding, not a bug: it moves %d of %d elements (%.1f%%)", p.Moved, p.Elements, 100*float64(p.Moved)/float64(max(p.Elements, 1)))
			if p.FromPosition >= 0 {
				fmt.Fprintf(w, " and puts elements over tolerance from position %d on", p.FromPosition)
			}
			fmt.Fprintf(w, "; a kernel computing this way passes verify with --ulp %d, or with --atol %s\n", p.ULP, strconv.FormatFloat(p.MaxAbs, 'g', -1, 64))
		}
		fmt.Fprintf(w, "  fix: %s\n", f.Fix)
	}
}

// withExplained adds the report's findings to a JSON row as "explained_by".
func withExplained(row []byte, rep explain.Report) ([]byte, error) {
	if len(rep.Findings) == 0 {
		return row, nil
	}
	fs, err := json.Marshal(rep.Findings)
	if err != nil {
		return nil, err
	}
	row = bytes.TrimRight(row, "\n")
	if len(row) < 2 || row[len(row)-1] != '}' {
		return nil, fmt.Errorf("verify: a row that is not a JSON object")
	}
	out := append(row[:len(row)-1:len(row)-1], `,"explained_by":`...)
	return append(append(out, fs...), '}', '\n'), nil
}

// reported is an explanation's report, or its error as the line verify prints.
func reported(rep explain.Report, err error) (explain.Report, string) {
	if err != nil {
		return explain.Report{}, err.Error()
	}
	return rep, ""
}

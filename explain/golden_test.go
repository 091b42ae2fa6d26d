package explain_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/explain"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// verifyOpts are rotary verify's default tolerances.
var verifyOpts = compare.Options{MaxULP: 1, ATol: -1}

// bundle is a golden made by golden.Make, decoded.
type bundle struct {
	tensors  map[string]tensor.Tensor
	metadata map[string]string
}

func makeBundle(t *testing.T, o golden.Options) bundle {
	t.Helper()
	b, err := golden.Make(o)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, b)
}

func decode(t *testing.T, b golden.Bundle) bundle {
	t.Helper()
	out := bundle{tensors: map[string]tensor.Tensor{}, metadata: b.Metadata}
	for _, f := range b.Tensors {
		x, err := safetensors.ToTensor(f)
		if err != nil {
			t.Fatal(err)
		}
		out.tensors[f.Name] = x
	}
	return out
}

func preset(t *testing.T, name string) golden.Model {
	t.Helper()
	m, err := golden.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func positions(t *testing.T, s string) golden.Positions {
	t.Helper()
	p, ok, err := golden.ParsePositions(s)
	if !ok || err != nil {
		t.Fatalf("positions %q: %v", s, err)
	}
	return p
}

// goldenPairs are goldens and candidates golden.Make made under a wrong reading of the
// golden's (each with six BF16 tokens): the mistake ExplainGolden should name.
func goldenPairs(t *testing.T) []struct {
	mistake           string
	golden, candidate bundle
} {
	llama, gptj := preset(t, "llama-3.1-8b"), preset(t, "llama-3.1-8b")
	gptj.Load = func(layer int) (*hf.Model, rotary.Spec, error) {
		m, spec, err := llama.Load(layer)
		spec.Style = rope.GPTJ
		return m, spec, err
	}
	qwen3, qwen2vl, scout := preset(t, "qwen3-8b"), preset(t, "qwen2-vl-7b"), preset(t, "llama-4-scout-17b-16e")
	o := func(op string, m golden.Model, pos string, args golden.Args) golden.Options {
		return golden.Options{Op: op, Model: m, DType: tensor.BF16, Tokens: 6, Positions: positions(t, pos), Args: args}
	}
	interleave := golden.Args{"rotary-mode": "interleave"}
	scaled := func(pos string) golden.Options {
		x := o("query_scale", scout, pos, nil)
		x.Layer = 3
		return x
	}
	thd := golden.Args{"cp-size": "2", "cp-rank": "1"}
	var pairs []struct {
		mistake           string
		golden, candidate bundle
	}
	for _, c := range []struct {
		mistake       string
		golden, cand  golden.Options
		shiftKVIndex  bool
		deepseekCache bool
	}{
		{mistake: "positions_plus_one", golden: o("rotary_embedding", llama, "range:100", nil), cand: o("rotary_embedding", llama, "range:101", nil)},
		{mistake: "pairing", golden: o("rotary_embedding", llama, "range:100", nil), cand: o("rotary_embedding", gptj, "range:100", nil)},
		{mistake: "positions_from_zero", golden: o("rotary_embedding_gathered", llama, "range:50", nil), cand: o("rotary_embedding_gathered", llama, "range:0", nil)},
		{mistake: "positions_plus_one", golden: o("rotary_embedding", llama, "range:100", golden.Args{"layout": "BNSD"}), cand: o("rotary_embedding", llama, "range:101", golden.Args{"layout": "BNSD"})},
		{mistake: "positions_plus_one", golden: o("qk_rmsnorm_rope", qwen3, "range:40", nil), cand: o("qk_rmsnorm_rope", qwen3, "range:41", nil)},
		{mistake: "positions_minus_one", golden: o("mrope", qwen2vl, "range:30", nil), cand: o("mrope", qwen2vl, "range:29", nil)},
		{mistake: "pairing_and_cos_sin_layout", golden: o("apply_rotary_emb", llama, "range", nil), cand: o("apply_rotary_emb", llama, "range", interleave)},
		{mistake: "pairing_and_cos_sin_layout", golden: o("apply_rotary_emb_backward", llama, "range", nil), cand: o("apply_rotary_emb_backward", llama, "range", interleave)},
		{mistake: "pairing", golden: o("vision_rope_2d", qwen2vl, "range", nil), cand: o("vision_rope_2d", qwen2vl, "range", interleave)},
		{mistake: "positions_minus_one", golden: scaled("range:16380"), cand: scaled("range:16379")},
		{mistake: "start_positions_ignored", golden: o("apply_rotary_emb_thd", llama, "range:30", thd), cand: o("apply_rotary_emb_thd", llama, "range:0", thd)},
		{mistake: "cache_slot_plus_one", golden: golden.Options{Op: "kv_rmsnorm_rope_cache", Model: preset(t, "deepseek-v3"), DType: tensor.BF16, Tokens: 4}, shiftKVIndex: true},
	} {
		g := makeBundle(t, c.golden)
		var cand bundle
		if c.shiftKVIndex {
			// The candidate is the golden's op rerun with every slot one further on.
			in := map[string]tensor.Tensor{}
			for n, x := range g.tensors {
				if !strings.HasPrefix(n, golden.OutPrefix) {
					in[n] = x.Clone()
				}
			}
			for i := range in["index"].Len() {
				in["index"].I64[i]++
			}
			out, err := golden.Run(c.golden.Op, golden.Call{Inputs: in})
			if err != nil {
				t.Fatal(err)
			}
			cand = decode(t, golden.Bundle{Tensors: out})
		} else {
			cand = makeBundle(t, c.cand)
		}
		pairs = append(pairs, struct {
			mistake           string
			golden, candidate bundle
		}{c.mistake, g, cand})
	}
	return pairs
}

// TestExplainGolden: a candidate golden.Make computed under a wrong reading of the golden's is
// named, the reading reproducing every failing element, through the bundle alone (the model
// read back from apply_args by golden.ReadModelArgs).
func TestExplainGolden(t *testing.T) {
	for i, p := range goldenPairs(t) {
		t.Run(fmt.Sprint(i, " ", p.golden.metadata["op"], " ", p.mistake), func(t *testing.T) {
			rep, err := explain.ExplainGolden(explain.GoldenCase{Golden: p.golden.tensors, Metadata: p.golden.metadata, Candidate: p.candidate.tensors}, verifyOpts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != p.mistake || !rep.Findings[0].Reproduces() {
				t.Fatalf("report %+v, want %s first, reproducing the candidate", rep, p.mistake)
			}
			// The candidate's outputs alone, without its inputs and out. (the kv candidate is
			// golden.Run's outputs already), name the same mistake.
			outputs := map[string]tensor.Tensor{}
			for n, x := range p.candidate.tensors {
				if name, ok := strings.CutPrefix(n, golden.OutPrefix); ok {
					outputs[name] = x
				}
			}
			if len(outputs) == 0 {
				outputs = p.candidate.tensors
			}
			if rep2, err := explain.ExplainGolden(explain.GoldenCase{Golden: p.golden.tensors, Metadata: p.golden.metadata, Candidate: outputs}, verifyOpts); err != nil || len(rep2.Findings) == 0 || rep2.Findings[0].Mistake != p.mistake {
				t.Errorf("the outputs alone: %+v, %v", rep2, err)
			}
			// The golden against itself has nothing to explain.
			if rep, err := explain.ExplainGolden(explain.GoldenCase{Golden: p.golden.tensors, Metadata: p.golden.metadata, Candidate: p.golden.tensors}, verifyOpts); err != nil || rep.Failing != 0 || len(rep.Findings) != 0 {
				t.Errorf("the golden itself: %+v, %v", rep, err)
			}
		})
	}
}

// plusOnePair is a rotary_embedding golden of the model a names at positions 100..105 and a
// candidate one position further on, with the model they were made with.
func plusOnePair(t *testing.T, a golden.ModelArgs) (g, cand bundle, m golden.Model) {
	t.Helper()
	m, err := a.Model()
	if err != nil {
		t.Fatal(err)
	}
	o := golden.Options{Op: "rotary_embedding", Model: m, DType: tensor.BF16, Tokens: 6, Positions: positions(t, "range:100")}
	g = makeBundle(t, o)
	o.Positions = positions(t, "range:101")
	return g, makeBundle(t, o), m
}

// TestExplainGoldenModelFlags: a golden made under a model flag (a dialect, a pairing, a dynamic
// NTK rule, the indexer's RoPE) is explained with the model its apply_args record, read as
// rotary apply --in reads it: a candidate one position further on is named.
func TestExplainGoldenModelFlags(t *testing.T) {
	for _, a := range []golden.ModelArgs{
		{Preset: "phi-3-mini-128k", As: "vllm"},
		{Preset: "llama-3.1-8b", Style: "gptj"},
		{Preset: "internlm3-8b-instruct", Dynamic: "per-call"},
		{Preset: "deepseek-v3.2-exp", RoPE: "indexer"},
	} {
		g, cand, _ := plusOnePair(t, a)
		rep, err := explain.ExplainGolden(explain.GoldenCase{Golden: g.tensors, Metadata: g.metadata, Candidate: cand.tensors}, verifyOpts)
		if err != nil || len(rep.Findings) == 0 || rep.Findings[0].Mistake != "positions_plus_one" || !rep.Findings[0].Reproduces() {
			t.Errorf("%+v: %+v, %v; want positions_plus_one, reproducing the candidate", a, rep, err)
		}
	}
}

// TestExplainGoldenModel: GoldenCase.Model rebuilds the model in place of the one apply_args
// name (here a model they cannot name: a config known only to the program that made the
// golden), and its errors are why nothing was explained.
func TestExplainGoldenModel(t *testing.T) {
	llama := preset(t, "llama-3.1-8b")
	o := golden.Options{Op: "rotary_embedding", Model: llama, DType: tensor.BF16, Tokens: 6, Positions: positions(t, "range:100")}
	o.Model.Source = []string{"--model", "my-finetune"}
	g := makeBundle(t, o)
	o.Positions = positions(t, "range:0")
	cand := makeBundle(t, o)
	c := explain.GoldenCase{Golden: g.tensors, Metadata: g.metadata, Candidate: cand.tensors}
	if _, err := explain.ExplainGolden(c, verifyOpts); !errors.Is(err, explain.ErrGolden) || !strings.Contains(err.Error(), `unknown preset "my-finetune"`) {
		t.Errorf("the recorded model: %v, want ErrGolden naming the unknown preset my-finetune", err)
	}
	calls := 0
	c.Model = func(applyArgs string) (golden.Model, int, error) {
		calls++
		if !strings.Contains(applyArgs, `"--model","my-finetune"`) {
			t.Errorf("Model given %s", applyArgs)
		}
		return llama, 0, nil
	}
	rep, err := explain.ExplainGolden(c, verifyOpts)
	if err != nil || calls != 1 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != "positions_from_zero" {
		t.Errorf("with Model: %+v, %v (%d calls)", rep, err, calls)
	}
	c.Model = func(string) (golden.Model, int, error) { return golden.Model{}, 0, errors.New("no such flag") }
	if _, err := explain.ExplainGolden(c, verifyOpts); !errors.Is(err, explain.ErrGolden) || err.Error() != "explain: no such flag" {
		t.Errorf("Model's error: %v, want explain: no such flag", err)
	}
	c.Model = func(string) (golden.Model, int, error) { return golden.Model{}, 0, nil }
	if _, err := explain.ExplainGolden(c, verifyOpts); !errors.Is(err, explain.ErrGolden) || !strings.Contains(err.Error(), "cannot rebuild the golden's RoPE") {
		t.Errorf("a Model without Load: %v", err)
	}
}

// TestExplainGoldenConfigChanged: a golden whose apply_args record a config file explains
// nothing once that file is no longer the config it was made from (its config_sha256), and
// says so; the recorded file unchanged, the same case is explained.
func TestExplainGoldenConfigChanged(t *testing.T) {
	js, err := hf.PresetJSON("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, js, 0o644); err != nil {
		t.Fatal(err)
	}
	g, cand, m := plusOnePair(t, golden.ModelArgs{Config: cfg})
	c := explain.GoldenCase{Golden: g.tensors, Metadata: g.metadata, Candidate: cand.tensors}
	if rep, err := explain.ExplainGolden(c, verifyOpts); err != nil || len(rep.Findings) == 0 || rep.Findings[0].Mistake != "positions_plus_one" {
		t.Fatalf("the recorded config: %+v, %v", rep, err)
	}
	edited := strings.Replace(string(js), "500000", "10000", 1)
	if edited == string(js) {
		t.Fatal("the preset has no rope_theta 500000 to edit")
	}
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := explain.ExplainGolden(c, verifyOpts)
	if !errors.Is(err, explain.ErrGolden) || !strings.Contains(err.Error(), "explain: --config "+cfg+": its config's sha256 is ") ||
		!strings.HasSuffix(err.Error(), ": not the config the bundle was made from") || len(rep.Findings) != 0 {
		t.Errorf("the config edited: %+v, %v; want ErrGolden saying it is not the bundle's config", rep, err)
	}
	// A hook is the caller's model: the bundle's config_sha256 is not asked of it.
	c.Model = func(string) (golden.Model, int, error) { return m, 0, nil }
	if _, err := explain.ExplainGolden(c, verifyOpts); err != nil {
		t.Errorf("with Model: %v", err)
	}
}

// TestExplainGoldenWhyNot: what ExplainGolden cannot explain is an error wrapping ErrGolden
// whose message is the line rotary verify prints.
func TestExplainGoldenWhyNot(t *testing.T) {
	llama := preset(t, "llama-3.1-8b")
	g := makeBundle(t, golden.Options{Op: "rotary_embedding", Model: llama, DType: tensor.BF16, Tokens: 6, Positions: positions(t, "range:100")})
	cand := makeBundle(t, golden.Options{Op: "rotary_embedding", Model: llama, DType: tensor.BF16, Tokens: 6, Positions: positions(t, "range:101")})
	noKey := maps.Clone(cand.tensors)
	delete(noKey, "out.key")
	delete(noKey, "key")
	for _, c := range []struct {
		md   map[string]string
		cand map[string]tensor.Tensor
		want string
	}{
		{map[string]string{"op": "nope"}, cand.tensors, `explain: op "nope" is not covered`},
		{nil, cand.tensors, `explain: op "" is not covered`},
		{map[string]string{"op": "rotary_embedding"}, cand.tensors, "explain: the golden has no apply_args (rotary golden writes them) to rebuild its RoPE from"},
		{g.metadata, noKey, "explain: the candidate lacks key"},
		{map[string]string{"op": "mrope", "apply_args": `["--op","mrope"]`}, cand.tensors, "explain: the golden's apply_args have no --head-size"},
		{map[string]string{"op": "query_scale", "apply_args": `["--op","query_scale","--query-scale","llama4"]`}, cand.tensors, "explain: a query_scale golden made with --query-scale (no model) is not covered"},
	} {
		_, err := explain.ExplainGolden(explain.GoldenCase{Golden: g.tensors, Metadata: c.md, Candidate: c.cand}, verifyOpts)
		if !errors.Is(err, explain.ErrGolden) || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.md, err, c.want)
		}
	}
}

// TestExplainGoldenNeverPanics: every op's golden with any one tensor missing from it or from
// the candidate, the zero GoldenCase, and a Model whose Load returns nothing, give a report or
// an error.
func TestExplainGoldenNeverPanics(t *testing.T) {
	if _, err := explain.ExplainGolden(explain.GoldenCase{}, compare.Options{}); err == nil {
		t.Error("the zero GoldenCase: no error")
	}
	nothing := func(string) (golden.Model, int, error) {
		return golden.Model{Load: func(int) (*hf.Model, rotary.Spec, error) { return nil, rotary.Spec{}, nil }}, 0, nil
	}
	for _, p := range goldenPairs(t) {
		for _, drop := range append(keys(p.golden.tensors), "") {
			g, cand := maps.Clone(p.golden.tensors), maps.Clone(p.candidate.tensors)
			delete(g, drop)
			delete(cand, drop)
			for _, c := range []explain.GoldenCase{
				{Golden: g, Metadata: p.golden.metadata, Candidate: p.candidate.tensors},
				{Golden: p.golden.tensors, Metadata: p.golden.metadata, Candidate: cand},
				{Golden: g, Metadata: p.golden.metadata, Candidate: cand, Model: nothing},
				{Metadata: p.golden.metadata},
			} {
				explain.ExplainGolden(c, verifyOpts) // must not panic
			}
		}
	}
}

func keys(m map[string]tensor.Tensor) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

package check

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// yarnLengths is a YaRN config whose factor differs from max_position_embeddings /
// original_max_position_embeddings.
//
// Transformers v4.51 to v4.55 replaced factor by that ratio whenever the rope object gave
// original_max_position_embeddings (modeling_rope_utils.py _compute_yarn_parameters, from
// eca74d1367 "add deepseek-v3", 4.51.0.dev0, until 6451294f6f "explicit factor > implicit
// factor in YaRN", 4.56.0.dev0). From v4.56 on transformers takes factor and only warns
// (_validate_yarn_parameters), as vLLM (rotary_embedding/__init__.py get_rope, 07b12f1b) and
// SGLang (layers/rotary_embedding/factory.py get_rope, 108c36c0) always did; hf-4.57, the
// oldest transformers dialect, is past that commit, so check --frameworks compares no reading
// that differs. max_position_embeddings is then only the length served: vLLM serves
// original × factor (config/model.py _get_and_verify_max_len, 0052a5b8), SGLang
// max_position_embeddings (utils/hf_transformers_utils.py get_context_length, 002fc100).
// Setting max_position_embeddings to original × factor keeps the extension the factor asks
// for and makes every one of those readings agree.
type yarnLengths struct {
	factor, ratio, maxPos, orig float64
}

// yarnLengthsOf reads r's YaRN lengths; ok is false unless factor, both lengths are given and
// factor differs from their ratio.
func yarnLengthsOf(r *hf.Raw) (yarnLengths, bool) {
	if k := r.RopeType(); k != "yarn" && k != "deepseek_yarn" {
		return yarnLengths{}, false
	}
	factor, okF := r.Factor()
	orig, okO := r.OriginalMax()
	maxPos, okM := r.MaxPositions()
	if !okF || !okO || !okM || orig <= 0 {
		return yarnLengths{}, false
	}
	y := yarnLengths{factor: factor, ratio: maxPos / orig, maxPos: maxPos, orig: orig}
	return y, math.Abs(y.ratio-y.factor) > 1e-9*y.factor
}

// ratioReaders names the releases that read the ratio, as the warning and the frameworks
// report both say.
const ratioReaders = "transformers v4.51–v4.55"

// note is the frameworks report's line for it: what the releases no dialect models do.
func (y yarnLengths) note() string {
	return fmt.Sprintf("%s: yarn factor %g read as max_position_embeddings / original_max_position_embeddings = %g (no dialect here is one of those releases; rotary check warns yarn-factor)",
		ratioReaders, y.factor, y.ratio)
}

func (c *checker) yarnFactor(r *hf.Raw, m *hf.Model) {
	y, ok := yarnLengthsOf(r)
	if !ok {
		return
	}
	attention := ""
	if m != nil && m.Spec.Scaling.Type == rope.ScalingYaRN {
		byRatio := m.Spec
		byRatio.Scaling.Factor = y.ratio
		_, a := m.Spec.Frequencies(-1)
		_, b := byRatio.Frequencies(-1)
		attention = fmt.Sprintf(" (attention factor %.6g, not %.6g)", b, a)
		if a == b {
			attention = fmt.Sprintf(" (the same attention factor %.6g)", a)
		}
	}
	c.add(Warning, "yarn-factor", fmt.Sprintf("yarn factor %g differs from max_position_embeddings / original_max_position_embeddings = %g / %g = %g", y.factor, y.maxPos, y.orig, y.ratio),
		fmt.Sprintf("%s replaced factor by that ratio whenever original_max_position_embeddings was set, so they rotate this config as factor %g%s; transformers v4.56 and later, vLLM and SGLang read factor, and no dialect check --frameworks compares is one of those releases (it lists them as not compared); the lengths served differ too: vLLM serves original × factor = %g positions, SGLang max_position_embeddings = %g",
			ratioReaders, y.ratio, attention, y.factor*y.orig, y.maxPos),
		fmt.Sprintf("keep factor %g and set max_position_embeddings to original × factor = %g: the %g× extension the factor asks for, and every reading above then agrees; factor %g instead only if %g positions is the extension the checkpoint was tuned for (rotary follows factor, like transformers v4.56 and later and vLLM)",
			y.factor, y.factor*y.orig, y.factor, y.ratio, y.maxPos))
}

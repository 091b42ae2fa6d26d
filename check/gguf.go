package check

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// GGUFReport is how the RoPE llama.cpp derives from a GGUF file differs from the one Hugging
// Face derives from the model's config (rotary check --gguf); its JSON form is a contract for
// tools.
type GGUFReport struct {
	GGUF         string `json:"gguf"`
	Config       string `json:"config"`
	Architecture string `json:"architecture"`
	RopeType     string `json:"rope_type"`
	// Rows: every rule on which the GGUF's RoPE (as llama.cpp reads it) and the config's (as
	// Hugging Face reads it) differ, each with the consequence of that difference alone.
	Rows []GGUFRow `json:"rows"`
	// Overall compares the two whole specs (every difference at once) on the first layer both
	// rotate, when more than one rule differs there.
	Overall *Comparison `json:"overall,omitempty"`
	Notes   []string    `json:"notes,omitempty"`
	Alike   bool        `json:"alike"`
}

// GGUFRow is one rule on which the two differ, with the consequence of that difference alone.
type GGUFRow struct {
	Rule   string `json:"rule"`
	GGUF   string `json:"gguf_value"`
	Config string `json:"config_value"`
	// StoredRounding: the two agree to the float32 rounding of the values the GGUF stores
	// (storedRounding), so the differences the comparison shows are that rounding.
	StoredRounding bool `json:"stored_rounding,omitempty"`
	Comparison
}

// checkpointLayout is the GGUF's spec as it rotates the Hugging Face checkpoint's weights:
// where the converter reordered q and k to adjacent pairs, llama.cpp's norm rotation is the
// checkpoint's NeoX one.
func checkpointLayout(s rope.Spec, arch string) (rope.Spec, bool) {
	if s.Style == rope.GPTJ && gguf.ConverterPermutesQK(arch) {
		s.Style = rope.NeoX
		return s, true
	}
	return s, false
}

// GGUF compares the RoPE llama.cpp derives from a GGUF file (gr, gguf.File.RoPE) with the one
// Hugging Face derives from the model's config (cfg, hf.Parse), rule by rule, on the first layer
// both rotate, and which layers rotate at all. A GGUF whose converter reordered q and k to
// adjacent pairs is compared as the checkpoint's NeoX rotation. Alike is false when they rotate
// differently beyond float32 noise. The caller names the two files in GGUF and Config. The error
// is a nil argument or a spec that is not valid (rope.Spec.Validate).
func GGUF(gr *gguf.RoPE, cfg *hf.Model) (*GGUFReport, error) {
	if gr == nil || cfg == nil {
		return nil, errors.New("check: GGUF needs the GGUF's RoPE and the config's model, got nil")
	}
	for _, s := range []rope.Spec{gr.Spec, cfg.Spec} {
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	r := &GGUFReport{Architecture: gr.Arch, RopeType: gr.Type.String(), Rows: []GGUFRow{}}
	gm := gr.Spec
	layers := max(gr.NumLayers, cfg.NumLayers, 1)
	// The rules are compared on the first layer both rotate; which layers rotate is a rule of
	// its own.
	var sa, sb rope.Spec
	found := false
	var noA, noB []int
	for l := range layers {
		a, errA := gm.ForLayer(l)
		b, errB := cfg.Spec.ForLayer(l)
		if errA != nil || errB != nil {
			break
		}
		if a.NoRoPE {
			noA = append(noA, l)
		}
		if b.NoRoPE {
			noB = append(noB, l)
		}
		if !found && !a.NoRoPE && !b.NoRoPE {
			sa, sb, found = a, b, true
		}
	}
	if !found {
		r.Notes = append(r.Notes, "no layer is rotated by both; only the layers without RoPE are compared")
	}
	if found {
		var permuted bool
		sa, permuted = checkpointLayout(sa, gr.Arch)
		if permuted {
			r.Notes = append(r.Notes, fmt.Sprintf("the converter reorders %s's q and k weights to adjacent pairs (llama.cpp's converter, conversion/*.py: LlamaModel.permute or the architecture's copy of it), so llama.cpp's norm rotation of the file is the checkpoint's NeoX rotation: compared as NeoX", gr.Arch))
		}
		r.Rows = append(r.Rows, fieldRows(sa, sb, gr)...)
		if len(r.Rows) > 1 {
			o := compareSpecs(sa, sb)
			r.Overall = &o
		}
	}
	if !slices.Equal(noA, noB) {
		row := GGUFRow{Rule: "layers without RoPE", GGUF: layerList(noA), Config: layerList(noB)}
		l := firstDifference(noA, noB)
		a, _ := gm.ForLayer(l)
		b, _ := cfg.Spec.ForLayer(l)
		a, _ = checkpointLayout(a, gr.Arch)
		row.Comparison = compareSpecs(a, b)
		row.Layer = l
		r.Rows = append(r.Rows, row)
	}
	// Each row is one difference alone; the overall comparison adds nothing a row does not
	// show, and float32 rounding of stored values is judged per row.
	r.Alike = true
	for _, row := range r.Rows {
		if row.Divergent {
			r.Alike = false
		}
	}
	for _, n := range gr.Notes {
		r.Notes = append(r.Notes, "gguf: "+n)
	}
	for _, n := range cfg.Notes {
		r.Notes = append(r.Notes, "config: "+n)
	}
	return r, nil
}

// fieldRows is one row per field of the two specs that differs, each measured as the config's
// spec with that one field taken from the GGUF's.
func fieldRows(a, b rope.Spec, gr *gguf.RoPE) []GGUFRow {
	var rows []GGUFRow
	add := func(rule, ga, cb string, with func(*rope.Spec)) {
		m := b
		with(&m)
		row := GGUFRow{Rule: rule, GGUF: ga, Config: cb}
		if err := m.Validate(); err != nil {
			row.Comparison = Comparison{FirstPosition: -1, Divergent: true, Structure: fmt.Sprintf("the config's spec with the GGUF's %s is not valid: %v", rule, err)}
		} else {
			row.Comparison = compareSpecs(m, b)
			if row.MaxOutputDiff == 0 && row.Structure == "" {
				return // a field that does not change the rotation (an attention factor given rather than derived)
			}
			if row.Divergent && storedRounding(m, b) {
				row.Divergent, row.StoredRounding = false, true
			}
		}
		rows = append(rows, row)
	}
	if a.HeadSize != b.HeadSize {
		rows = append(rows, GGUFRow{Rule: "head size", GGUF: fmt.Sprint(a.HeadSize), Config: fmt.Sprint(b.HeadSize),
			Comparison: Comparison{FirstPosition: -1, Divergent: true, Structure: fmt.Sprintf("head size %d vs %d: the heads are laid out differently", a.HeadSize, b.HeadSize)}})
	}
	if a.Style != b.Style {
		add("pairing", fmt.Sprintf("%s (llama.cpp rope type %s)", a.Style, gr.Type), b.Style.String(), func(s *rope.Spec) { s.Style = a.Style })
	}
	if a.RotaryDim != b.RotaryDim {
		add("rotary dim", fmt.Sprint(a.RotaryDim), fmt.Sprint(b.RotaryDim), func(s *rope.Spec) {
			s.RotaryDim = a.RotaryDim
			if a.Scaling.Type == rope.ScalingLongRoPE {
				s.Scaling = a.Scaling // one factor per pair
			}
			if a.MRoPE != nil {
				s.MRoPE = a.MRoPE // sections that sum to the pairs
			}
		})
	}
	if a.Base != b.Base {
		note := ""
		if float64(float32(b.Base)) == a.Base {
			note = " (the config's, rounded to the float32 GGUF stores)"
		}
		add("base", fmt.Sprintf("%.9g%s", a.Base, note), fmt.Sprintf("%.9g", b.Base), func(s *rope.Spec) { s.Base = a.Base })
	}
	if !reflect.DeepEqual(a.Scaling, b.Scaling) {
		ga := ScalingWords(a.Scaling) + scalingDetail(a, gr)
		switch {
		case slices.Contains(gr.Factors, gguf.TensorRopeFreqs):
			ga = fmt.Sprintf("frequency factors: pair i's frequency divided by %s[i] (attention factor %.9g; %s)", gguf.TensorRopeFreqs, a.Scaling.AttentionFactor, GGUFScalingType(gr.ScalingType))
		case len(gr.Factors) > 0:
			ga = fmt.Sprintf("longrope: pair i's frequency divided by %s[i], or %s[i] past the original %d (attention factor %.9g; %s)", gguf.TensorRopeFactorsShort, gguf.TensorRopeFactorsLong, a.OriginalMax(), a.Scaling.AttentionFactor, GGUFScalingType(gr.ScalingType))
		}
		add("scaling", ga, ScalingWords(b.Scaling)+scalingDetail(b, nil), func(s *rope.Spec) { s.Scaling = a.Scaling })
	}
	if !sameSections(a.MRoPE, b.MRoPE) {
		rows = append(rows, sectionsRow(a, b, gr))
	}
	if a.MaxPositions != b.MaxPositions {
		add("context length", fmt.Sprintf("%d (context_length)", a.MaxPositions), fmt.Sprintf("%d (max_position_embeddings)", b.MaxPositions), func(s *rope.Spec) { s.MaxPositions = a.MaxPositions })
	}
	return rows
}

// storedRelTol is how far apart two frequencies may be for the only cause to be that the GGUF
// stores its base, factors and attention factor as float32 (half an ULP each, 2^-24
// relative, and inv_freq = 1/(factor·base^(2i/d)) compounds at most two of them).
const storedRelTol = 0x1p-22

// storedRounding reports whether the two specs' frequency tables (each table a call can
// select: LongRoPE's short and long ones, per-call dynamic NTK at max positions) and attention
// factors agree to the float32 rounding of stored values, while rotating the same pairs.
func storedRounding(a, b rope.Spec) bool {
	if a.RotaryDim != b.RotaryDim || a.Style != b.Style || a.NoRoPE || b.NoRoPE || a.HeadSize != b.HeadSize || !sameSections(a.MRoPE, b.MRoPE) {
		return false
	}
	close := func(x, y float64) bool { return math.Abs(x-y) <= storedRelTol*math.Max(math.Abs(x), math.Abs(y)) }
	for _, p := range []int{0, max(a.OriginalMax(), b.OriginalMax()), max(a.MaxPositions, b.MaxPositions)} {
		ia, aa := a.Frequencies(p)
		ib, ab := b.Frequencies(p)
		if !close(aa, ab) {
			return false
		}
		for i := range ia {
			if !close(ia[i], ib[i]) {
				return false
			}
		}
	}
	return true
}

// scalingDetail names the parameters ScalingWords leaves out.
func scalingDetail(s rope.Spec, gr *gguf.RoPE) string {
	sc := s.Scaling
	var parts []string
	if sc.Type != "" && sc.Type != rope.ScalingDefault && sc.Type != rope.ScalingLinear {
		parts = append(parts, fmt.Sprintf("original %d", s.OriginalMax()))
	}
	switch sc.Type {
	case rope.ScalingYaRN:
		parts = append(parts, fmt.Sprintf("beta_fast %g, beta_slow %g, truncate %t", orDefault(sc.BetaFast, 32), orDefault(sc.BetaSlow, 1), !sc.NoTruncate))
	case rope.ScalingLlama3:
		parts = append(parts, fmt.Sprintf("low_freq_factor %g, high_freq_factor %g", sc.LowFreqFactor, sc.HighFreqFactor))
	}
	if sc.AttentionFactor != 0 {
		parts = append(parts, fmt.Sprintf("attention factor %.9g", sc.AttentionFactor))
	}
	if gr != nil {
		parts = append(parts, GGUFScalingType(gr.ScalingType))
		if len(gr.Factors) > 0 {
			parts = append(parts, "factors from "+strings.Join(gr.Factors, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// sectionsRow compares the MRoPE sections: text tokens, whose axes share one position, rotate
// alike; a token whose axes differ (image and video patches) rotates pair i by the position of
// the axis each side assigns it. Under llama.cpp's IMROPE layout text tokens differ too: the
// pairs on its fourth position row take 0 there (textUnrotated).
func sectionsRow(a, b rope.Spec, gr *gguf.RoPE) GGUFRow {
	row := GGUFRow{Rule: "multimodal sections", GGUF: sectionsDesc(a.MRoPE, a.Half()) + " (llama.cpp rope type " + gr.Type.String() + ")", Config: sectionsDesc(b.MRoPE, b.Half())}
	// No position of a text token shows an axis difference, so the comparison holds no
	// positions; its angle and q/k figures are for the largest gap between a token's axis
	// positions.
	row.Comparison = Comparison{FirstPosition: -1, Divergent: true}
	_, row.AttentionA = a.Frequencies(-1)
	inv, attB := b.Frequencies(-1)
	row.AttentionB = attB
	if a.MRoPE == nil || b.MRoPE == nil || a.RotaryDim != b.RotaryDim {
		row.Structure = "one side has no multimodal sections: it rotates every pair by one position"
		return row
	}
	fourth := FourthRowPairs(a.MRoPE, a.Half())
	differ, worst := 0, 0.0
	for i := range b.Half() {
		if a.MRoPE.Axis(i) != b.MRoPE.Axis(i) && !slices.Contains(fourth, i) {
			differ++
			worst = max(worst, inv[i])
		}
	}
	// Axis positions run over 0..max-1, so two axes of one token differ by up to max-1.
	d := max(a.MaxPositions, b.MaxPositions, 1) - 1
	angle := math.Min(worst*float64(d), math.Pi)
	image := fmt.Sprintf("%d of %d pairs take a different axis: text positions rotate alike, but for an image or video token pair i turns by inv_freq[i] times the difference of its axes' positions: %.6g rad per position of difference for the fastest such pair, up to %.6g rad (q/k diff %.6g for a unit vector) when they differ by %d", differ, b.Half(), worst, angle, 2*math.Sin(angle/2), d)
	if len(fourth) == 0 {
		row.MaxAngleDiff = &angle
		row.MaxOutputDiff = 2 * math.Sin(angle/2) // a unit vector, the attention factor aside
		row.Structure = image
		return row
	}
	// Text tokens show the fourth row, so the row is measured at text positions as the other
	// rules are: the config's spec with the GGUF's sections.
	m := b
	m.MRoPE = a.MRoPE
	row.Comparison = compareSpecs(m, b)
	row.Structure = fourthRowFinding(fourth, b.MRoPE)
	if differ > 0 {
		row.Structure += "; besides, " + image
	}
	return row
}

// fourthRowFinding says what llama.cpp's IMROPE does with the pairs on its fourth position row
// and what HF does with them. What llama.cpp puts in that row is its own choice, not ggml's:
// text tokens come in as 1-D positions, which llm_graph_input_pos::set_input (src/llama-graph.cpp,
// llama.cpp 434f71a5b) spreads over the first three rows with 0 in the fourth, and an image's
// rows come from decode_embd_batch::set_position_mrope_2d (tools/mtmd/mtmd-helper.cpp, llama.cpp
// 2de063ae8), which writes 0 there too ("last pos dim is unused").
func fourthRowFinding(fourth []int, hf *rope.MRoPE) string {
	byAxis := map[int][]int{}
	var axes []int
	for _, i := range fourth {
		a := hf.Axis(i)
		if _, ok := byAxis[a]; !ok {
			axes = append(axes, a)
		}
		byAxis[a] = append(byAxis[a], i)
	}
	parts := make([]string, len(axes))
	for k, a := range axes {
		parts[k] = fmt.Sprintf("%s take llama.cpp's fourth position where HF takes %s", PairList(byAxis[a]), axisName(a))
	}
	return strings.Join(parts, ", ") + ": llama.cpp fills that row with 0 for text tokens (src/llama-graph.cpp llm_graph_input_pos::set_input: the first three rows at the position, the fourth 0) and for image tokens (tools/mtmd/mtmd-helper.cpp set_position_mrope_2d), so it leaves these pairs unrotated where HF turns them by the token's position; the figures above are text positions"
}

// axisName names a position row as HF's Qwen-VL get_rope_index fills it.
func axisName(a int) string {
	switch a {
	case 0:
		return "t (the temporal position)"
	case 1:
		return "h (the height position)"
	case 2:
		return "w (the width position)"
	}
	return fmt.Sprintf("position row %d", a)
}

func sectionsDesc(m *rope.MRoPE, half int) string {
	if m == nil {
		return "none"
	}
	kind := "chunked"
	if m.Interleaved {
		kind = "interleaved"
	}
	if m.AlternateHW {
		kind = "h/w alternating"
	}
	s := fmt.Sprintf("%s %v", kind, m.Sections)
	if p := FourthRowPairs(m, half); len(p) > 0 {
		s += fmt.Sprintf(", %s on llama.cpp's fourth position row", PairList(p))
	}
	return s
}

func layerList(ls []int) string {
	if len(ls) == 0 {
		return "none"
	}
	return fmt.Sprint(ls)
}

// firstDifference is the first layer in one list and not the other.
func firstDifference(a, b []int) int {
	first := -1
	for _, x := range a {
		if !slices.Contains(b, x) && (first < 0 || x < first) {
			first = x
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) && (first < 0 || x < first) {
			first = x
		}
	}
	return first
}

// WriteText writes the report as rotary check --gguf prints it. A nil report or a nil w
// writes nothing.
func (r *GGUFReport) WriteText(w io.Writer) {
	if r == nil || w == nil {
		return
	}
	fmt.Fprintf(w, "gguf:   %s (general.architecture %s, llama.cpp rope type %s)\nconfig: %s\n", r.GGUF, r.Architecture, r.RopeType, r.Config)
	for _, row := range r.Rows {
		verdict := "differ"
		switch {
		case row.StoredRounding:
			verdict = "alike to the float32 rounding of the values the GGUF stores (every inv_freq and attention factor within 2^-22 relative; the angle differences below are that rounding)"
		case !row.Divergent:
			verdict = "alike within float32 noise"
		}
		fmt.Fprintf(w, "\n%s: %s\n", row.Rule, verdict)
		fmt.Fprintf(w, "  %-22s %s\n", "gguf (llama.cpp)", row.GGUF)
		fmt.Fprintf(w, "  %-22s %s\n", "config (HF)", row.Config)
		writeComparison(w, row.Comparison)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	fmt.Fprintln(w)
	switch {
	case len(r.Rows) == 0:
		fmt.Fprintln(w, "ok: the GGUF and the config give the same RoPE")
	case r.Alike:
		fmt.Fprintln(w, "ok: the GGUF and the config differ only by float32 rounding")
	default:
		n := divergent(r.Rows)
		together := ""
		if o := r.Overall; o != nil {
			together = fmt.Sprintf("; together: largest q/k diff %.6g at position %d", o.MaxOutputDiff, o.MaxOutputAt)
		}
		fmt.Fprintf(w, "the GGUF rotates differently from the config: %d difference(s) beyond float32 noise%s\n", n, together)
	}
}

func writeComparison(w io.Writer, c Comparison) {
	if c.Positions == 0 {
		if c.AttentionA != 0 {
			fmt.Fprintf(w, "  %-22s %.9g vs %.9g\n", "attention factor", c.AttentionA, c.AttentionB)
		}
		fmt.Fprintf(w, "  %-22s %s\n", "structure", c.Structure)
		return
	}
	fmt.Fprintf(w, "  %-22s %.9g vs %.9g\n", "attention factor", c.AttentionA, c.AttentionB)
	if c.MaxAngleDiff != nil {
		fmt.Fprintf(w, "  %-22s %.6g rad at position %d\n", "largest angle diff", *c.MaxAngleDiff, c.MaxAngleAt)
	}
	fmt.Fprintf(w, "  %-22s %.6g (unit vector) at position %d\n", "largest q/k diff", c.MaxOutputDiff, c.MaxOutputAt)
	if c.FirstPosition >= 0 {
		fmt.Fprintf(w, "  %-22s position %d\n", "first differs at", c.FirstPosition)
	}
	sampled := ""
	if c.Sampled {
		sampled = ", every position below 2^20 and an even sample past it"
	}
	fmt.Fprintf(w, "  %-22s positions 0..%d%s\n", "compared", c.Positions-1, sampled)
	if c.Structure != "" {
		fmt.Fprintf(w, "  %-22s %s\n", "structure", c.Structure)
	}
}

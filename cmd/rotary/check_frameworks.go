package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
)

// frameworksFlag is check's --frameworks: bare for every dialect, --frameworks=LIST (or a
// LIST argument after a bare --frameworks) for some.
type frameworksFlag struct {
	on   bool
	list []hf.Dialect
	// err is a bad list, reported by runCheckFrameworks: returned from Set, the flag package
	// would call it an invalid boolean value.
	err error
}

func (f *frameworksFlag) String() string {
	if !f.on {
		return ""
	}
	names := make([]string, len(f.list))
	for i, d := range f.list {
		names[i] = string(d)
	}
	return strings.Join(names, ",")
}

func (f *frameworksFlag) IsBoolFlag() bool { return true }

func (f *frameworksFlag) Set(s string) error {
	switch s {
	case "false":
		f.on, f.list = false, nil
		return nil
	case "true", "all":
		f.on, f.list = true, nil
		return nil
	}
	list, err := parseDialectList(s)
	if err != nil {
		f.on, f.list, f.err = true, nil, usagef("--frameworks=%s: %v", s, err)
		return nil
	}
	f.on, f.list, f.err = true, list, nil
	return nil
}

// takeList consumes a dialect list given as the argument after a bare --frameworks: check takes
// no other argument, so a lone one there is a list, and a bad one is reported as such.
func (f *frameworksFlag) takeList(args []string) []string {
	if !f.on || f.list != nil || f.err != nil || len(args) != 1 {
		return args
	}
	list, err := parseDialectList(args[0])
	if err != nil {
		f.err = usagef("--frameworks %s: %v", args[0], err)
	}
	f.list = list
	return nil
}

func parseDialectList(s string) ([]hf.Dialect, error) {
	var out []hf.Dialect
	for name := range strings.SplitSeq(s, ",") {
		d, err := hf.ParseDialect(strings.TrimSpace(name))
		if err != nil || d == hf.DialectReference && strings.TrimSpace(name) != "reference" {
			return nil, fmt.Errorf("dialect %q: want %s", name, dialectNames())
		}
		if d == hf.DialectReference {
			return nil, fmt.Errorf("dialect %q: the reference reading is not a framework; want %s", name, dialectNames())
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%q: want at least two dialects to compare", s)
	}
	return out, nil
}

// f32Noise is the largest difference float32 tables cannot tell apart: a few half-ULPs of a
// unit cos/sin. Readings closer than this rotate alike once rounded to the float32 cache.
const f32Noise = 0x1p-22

// maxExactPositions is how many positions a comparison visits one by one; past it, positions
// are sampled evenly (the last one always), so that a 10M-token model costs what a 1M one does.
const maxExactPositions = 1 << 20

// frameworksReport is check --frameworks' output; its JSON form is a contract for tools.
type frameworksReport struct {
	Source   string   `json:"source"`
	Dialects []string `json:"dialects"`
	// Rows: every rule on which the compared dialects read this config differently.
	Rows []frameworkRow `json:"rows"`
	// Agree: no row differs beyond float32 noise.
	Agree bool `json:"agree"`
	// Unverified lists, per dialect, the rules its source was not checked for: they are left
	// out of the comparison rather than guessed.
	Unverified map[string][]string `json:"unverified,omitempty"`
}

// frameworkRow is one rule read two ways, with the numeric consequence of the difference alone
// (every other rule read the reference way).
type frameworkRow struct {
	Rule hf.Rule     `json:"rule"`
	A    readingSide `json:"a"`
	B    readingSide `json:"b"`
	comparison
}

type readingSide struct {
	Choice   string   `json:"choice"`
	Dialects []string `json:"dialects"`
	Follows  []string `json:"follows"`
}

// comparison is how far two specs' rotations of a unit vector are apart over positions
// 0..max-1 (layers whose RoPE differs compared each).
type comparison struct {
	AttentionA float64 `json:"attention_factor_a"`
	AttentionB float64 `json:"attention_factor_b"`
	// MaxAngleDiff is the largest |θ_a − θ_b| in radians over positions and pairs, nil when the
	// two rotate different pairs (rotary dim, pairing or layers without RoPE differ).
	MaxAngleDiff *float64 `json:"max_angle_diff"`
	MaxAngleAt   int      `json:"max_angle_position"`
	// MaxOutputDiff is the largest |R_a x − R_b x| over unit vectors x along one head dim.
	MaxOutputDiff float64 `json:"max_output_diff"`
	MaxOutputAt   int     `json:"max_output_position"`
	// FirstPosition is the first position whose outputs differ beyond float32 noise; -1 none.
	FirstPosition int `json:"first_position"`
	Positions     int `json:"positions"`
	// Sampled: positions past 2^20 were sampled evenly, not all visited.
	Sampled bool `json:"sampled,omitempty"`
	// Structure names a difference no position shows for text positions (MRoPE sections).
	Structure string `json:"structure,omitempty"`
	Layer     int    `json:"layer"`
	Divergent bool   `json:"divergent"`
}

func runCheckFrameworks(data []byte, source string, opts hf.ParseOptions, fw frameworksFlag, asJSON bool, stdout io.Writer) error {
	if fw.err != nil {
		return fw.err
	}
	dialects := fw.list
	if dialects == nil {
		dialects = hf.Dialects()
	}
	r, err := compareFrameworks(data, source, opts, dialects)
	if err != nil {
		return err
	}
	return writeReport(stdout, asJSON, r, func(w io.Writer) { printFrameworks(w, r) }, r.Agree)
}

func compareFrameworks(data []byte, source string, opts hf.ParseOptions, dialects []hf.Dialect) (*frameworksReport, error) {
	// The config must be readable at all before its readings are compared.
	if _, err := opts.Parse(data); err != nil {
		return nil, usageError{err}
	}
	r := &frameworksReport{Source: source, Agree: true, Rows: []frameworkRow{}}
	for _, d := range dialects {
		r.Dialects = append(r.Dialects, string(d))
	}
	for _, rule := range hf.Rules() {
		if rule == hf.RuleRopeIndex {
			rows := ropeIndexRows(data, dialects, r)
			r.Rows = append(r.Rows, rows...)
			r.Agree = r.Agree && len(rows) == 0
			continue
		}
		var groups []*readingGroup
		for _, d := range dialects {
			rd, ok := d.Reading(rule)
			if !ok {
				if r.Unverified == nil {
					r.Unverified = map[string][]string{}
				}
				r.Unverified[string(d)] = append(r.Unverified[string(d)], string(rule))
				continue
			}
			i := slices.IndexFunc(groups, func(g *readingGroup) bool { return slices.Contains(g.choices, rd.Choice) })
			if i < 0 {
				m, key, err := parseReading(data, opts, rule, rd.Choice)
				if err != nil {
					// A reading under which the config does not parse is an answer too: that
					// framework cannot load it.
					key = "error: " + err.Error()
				}
				// Choices that read this config alike share a side.
				if i = slices.IndexFunc(groups, func(g *readingGroup) bool { return g.key == key }); i >= 0 {
					groups[i].choices = append(groups[i].choices, rd.Choice)
				} else {
					groups = append(groups, &readingGroup{choices: []string{rd.Choice}, model: m, key: key})
					i = len(groups) - 1
				}
			}
			g := groups[i]
			g.dialects = append(g.dialects, string(d))
			if !slices.Contains(g.follows, rd.Follows) {
				g.follows = append(g.follows, rd.Follows)
			}
		}
		// Readings whose specs differ but rotate alike over this config's positions (a per-call
		// rule that changes nothing below max_position_embeddings) share a side too.
		var merged []*readingGroup
		var rows []frameworkRow
	next:
		for _, g := range groups {
			var pending []frameworkRow
			for _, m := range merged {
				c, differ, err := compareGroups(m, g)
				if err != nil {
					return nil, err
				}
				if !differ {
					m.choices = append(m.choices, g.choices...)
					m.dialects = append(m.dialects, g.dialects...)
					m.follows = append(m.follows, g.follows...)
					continue next
				}
				pending = append(pending, frameworkRow{Rule: rule, A: m.side(), B: g.side(), comparison: c})
			}
			merged = append(merged, g)
			rows = append(rows, pending...)
		}
		for i := range rows {
			// A side may have taken in readings after its row was made.
			rows[i].A, rows[i].B = sideOf(merged, rows[i].A), sideOf(merged, rows[i].B)
			if rows[i].Divergent {
				r.Agree = false
			}
		}
		r.Rows = append(r.Rows, rows...)
	}
	return r, nil
}

// sideOf is the final side of the group whose first choice opened side s.
func sideOf(groups []*readingGroup, s readingSide) readingSide {
	first, _, _ := strings.Cut(s.Choice, ", ")
	for _, g := range groups {
		if g.choices[0] == first {
			return g.side()
		}
	}
	return s
}

// readingGroup is the dialects whose choices on one rule give the same spec for this config.
type readingGroup struct {
	choices, dialects, follows []string
	model                      *hf.Model
	key                        string
}

func (g *readingGroup) side() readingSide {
	return readingSide{Choice: strings.Join(g.choices, ", "), Dialects: g.dialects, Follows: g.follows}
}

// compareGroups compares two readings; one under which the config does not load differs from
// every other.
func compareGroups(a, b *readingGroup) (comparison, bool, error) {
	for _, g := range []*readingGroup{a, b} {
		if g.model == nil {
			return comparison{FirstPosition: -1, Divergent: true, Structure: fmt.Sprintf("read as %s, the config does not load: %s",
				strings.Join(g.choices, ", "), strings.TrimPrefix(g.key, "error: "))}, true, nil
		}
	}
	return compareModels(a.model, b.model)
}

// parseReading parses the config with rule read as choice, every other rule the reference way;
// key is the derived specs' JSON (the main one and the DSA indexer's), equal for readings that
// agree on this config.
func parseReading(data []byte, opts hf.ParseOptions, rule hf.Rule, choice string) (*hf.Model, string, error) {
	opts.Dialect, opts.Readings = hf.DialectReference, map[hf.Rule]string{rule: choice}
	m, err := opts.Parse(data)
	if err != nil {
		return nil, "", err
	}
	key, err := json.Marshal([2]any{m.Spec, m.Indexer})
	return m, string(key), err
}

// compareModels compares two readings of the config layer by layer (each distinct pair of layer
// specs once); differ is false when no layer's rotation changes.
func compareModels(a, b *hf.Model) (comparison, bool, error) {
	models := []*hf.Model{a, b}
	layers := max(models[0].NumLayers, 1)
	var worst comparison
	differ := false
	seen := map[string]bool{}
	for l := range layers {
		sa, errA := models[0].Spec.ForLayer(l)
		sb, errB := models[1].Spec.ForLayer(l)
		if errA != nil || errB != nil {
			break // per-layer rules that know fewer layers than num_hidden_layers
		}
		key, err := json.Marshal([2]rotary.Spec{sa, sb})
		if err != nil {
			return comparison{}, false, err
		}
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		ja, _ := json.Marshal(sa)
		jb, _ := json.Marshal(sb)
		if string(ja) == string(jb) {
			continue
		}
		c := compareSpecs(sa, sb)
		if c.MaxOutputDiff == 0 && c.Structure == "" {
			continue // the specs differ in a field that does not change the rotation
		}
		differ = true
		c.Layer = l
		if !worst.Divergent && c.Divergent || c.MaxOutputDiff > worst.MaxOutputDiff || worst.Positions == 0 {
			worst = c
		}
	}
	// DeepSeek-V3.2's lightning indexer has a spec of its own; a reading that moves only it is
	// measured on it.
	if ia, ib := a.Indexer, b.Indexer; ia != nil && ib != nil {
		ja, _ := json.Marshal(ia)
		jb, _ := json.Marshal(ib)
		if string(ja) != string(jb) {
			c := compareSpecs(*ia, *ib)
			if c.MaxOutputDiff != 0 || c.Structure != "" {
				differ = true
				c.Structure = strings.TrimSuffix("the DSA indexer's RoPE (Model.Indexer, --rope indexer); "+c.Structure, "; ")
				if !worst.Divergent && c.Divergent || c.MaxOutputDiff > worst.MaxOutputDiff || worst.Positions == 0 {
					worst = c
				}
			}
		}
	}
	return worst, differ, nil
}

// tableKey says when a spec's frequencies for a call whose largest position is p can differ from
// those of p-1: LongRoPE switches tables at the original length (rope.Spec.FrequenciesInto),
// per-call dynamic NTK stretches with the call's length past max_position_embeddings.
func tableKey(s rotary.Spec, p int) int {
	switch {
	case s.Scaling.Type == rotary.ScalingLongRoPE:
		if p >= s.OriginalMax() {
			return 1
		}
	case s.Scaling.Type == rotary.ScalingDynamic && s.Scaling.Dynamic == rotary.DynamicPerCall:
		return max(p+1, s.DynamicMax())
	}
	return 0
}

// frequencyTable gives a spec's inv_freq and attention factor per position, recomputing only
// when tableKey changes.
type frequencyTable struct {
	spec rotary.Spec
	// still are pairs whose text angle is 0 whatever the position (textUnrotated).
	still []int
	inv   []float64
	att   float64
	key   int
	init  bool
}

func (t *frequencyTable) at(p int) ([]float64, float64) {
	if t.spec.NoRoPE {
		return nil, 1
	}
	if k := tableKey(t.spec, p); !t.init || k != t.key {
		if t.inv == nil {
			t.inv = make([]float64, t.spec.Half())
		}
		t.att = t.spec.FrequenciesInto(t.inv, p)
		for _, i := range t.still {
			t.inv[i] = 0
		}
		t.key, t.init = k, true
	}
	return t.inv, t.att
}

// columns writes R e_j for every head dim j at angles θ_i = p·inv_i: each image has at most two
// nonzero entries (idx, val).
type column struct {
	idx [2]int
	val [2]float64
	n   int
}

func rotationColumns(s rotary.Spec, inv []float64, att float64, p int, cols []column) {
	for j := range cols {
		cols[j] = column{idx: [2]int{j}, val: [2]float64{1}, n: 1}
	}
	if s.NoRoPE {
		return
	}
	h := s.Half()
	for i := range h {
		a, b := i, i+h
		if s.Style == rotary.GPTJ {
			a, b = 2*i, 2*i+1
		}
		sin, cos := math.Sincos(float64(p) * inv[i])
		cols[a] = column{idx: [2]int{a, b}, val: [2]float64{att * cos, att * sin}, n: 2}
		cols[b] = column{idx: [2]int{a, b}, val: [2]float64{-att * sin, att * cos}, n: 2}
	}
}

// columnDiff is |x − y| for two sparse columns.
func columnDiff(x, y column) float64 {
	sum := 0.0
	for k := range x.n {
		v := x.val[k]
		for m := range y.n {
			if y.idx[m] == x.idx[k] {
				v -= y.val[m]
			}
		}
		sum += v * v
	}
	for m := range y.n {
		shared := false
		for k := range x.n {
			shared = shared || x.idx[k] == y.idx[m]
		}
		if !shared {
			sum += y.val[m] * y.val[m]
		}
	}
	return math.Sqrt(sum)
}

// comparePositions lists the positions a comparison visits: all below 2^20, then an even sample
// that ends on the last.
func comparePositions(n int) ([]int, bool) {
	if n <= maxExactPositions {
		ps := make([]int, n)
		for i := range ps {
			ps[i] = i
		}
		return ps, false
	}
	ps := make([]int, 0, 2*maxExactPositions+1)
	for p := range maxExactPositions {
		ps = append(ps, p)
	}
	stride := (n - maxExactPositions + maxExactPositions - 1) / maxExactPositions
	for p := maxExactPositions; p < n; p += stride {
		ps = append(ps, p)
	}
	if ps[len(ps)-1] != n-1 {
		ps = append(ps, n-1)
	}
	return ps, true
}

// textUnrotated lists the pairs a text token of s leaves unrotated: under llama.cpp's IMROPE
// layout those on the fourth position row, which llama.cpp fills with 0 for text tokens
// (src/llama-graph.cpp llm_graph_input_pos::set_input, llama.cpp 434f71a5b). A spec's 1-D
// positions would put the position there; llama.cpp's reading of a text token does not.
func textUnrotated(s rotary.Spec) []int {
	if s.NoRoPE {
		return nil
	}
	return fourthRowPairs(s.MRoPE, s.Half())
}

// compareSpecs measures two readings' rotations against each other over text positions
// 0..max-1, as each reading feeds a text token (textUnrotated).
func compareSpecs(a, b rotary.Spec) comparison {
	c := comparison{FirstPosition: -1}
	n := max(a.MaxPositions, b.MaxPositions, 1)
	c.Positions = n
	if a.HeadSize != b.HeadSize {
		c.Structure = fmt.Sprintf("head size %d vs %d", a.HeadSize, b.HeadSize)
		c.Divergent = true
		return c
	}
	stillA, stillB := textUnrotated(a), textUnrotated(b)
	if !sameSections(a.MRoPE, b.MRoPE) {
		text := "text positions rotate alike"
		if !slices.Equal(stillA, stillB) {
			text = "text positions differ where llama.cpp's IMROPE leaves pairs unrotated (its fourth position row, 0 for text)"
		}
		c.Structure = fmt.Sprintf("multimodal sections %s vs %s: %s, image and video positions do not", sectionsString(a.MRoPE), sectionsString(b.MRoPE), text)
		c.Divergent = true
	}
	samePairs := !a.NoRoPE && !b.NoRoPE && a.RotaryDim == b.RotaryDim && a.Style == b.Style
	ta, tb := &frequencyTable{spec: a, still: stillA}, &frequencyTable{spec: b, still: stillB}
	_, c.AttentionA = ta.at(0)
	_, c.AttentionB = tb.at(0)
	colsA := make([]column, a.HeadSize)
	colsB := make([]column, b.HeadSize)
	maxAngle := 0.0
	positions, sampled := comparePositions(n)
	c.Sampled = sampled
	for _, p := range positions {
		invA, attA := ta.at(p)
		invB, attB := tb.at(p)
		worst := 0.0
		if samePairs {
			// Both rotate pair i by its angle: the two columns of the pair differ by
			// |attA·e^{iθA} − attB·e^{iθB}|, √((attA − attB)² + 4·attA·attB·sin²(Δθ/2)), which
			// stays accurate for tiny Δθ; dims past the rotary dim pass through in both.
			dAtt := (attA - attB) * (attA - attB)
			for i := range invA {
				d := float64(p) * (invA[i] - invB[i])
				if math.Abs(d) > maxAngle {
					maxAngle, c.MaxAngleAt = math.Abs(d), p
				}
				h := math.Sin(d / 2)
				worst = max(worst, math.Sqrt(dAtt+4*attA*attB*h*h))
			}
		} else {
			rotationColumns(a, invA, attA, p, colsA)
			rotationColumns(b, invB, attB, p, colsB)
			for j := range colsA {
				worst = max(worst, columnDiff(colsA[j], colsB[j]))
			}
		}
		if worst > c.MaxOutputDiff {
			c.MaxOutputDiff, c.MaxOutputAt = worst, p
		}
		if worst > f32Noise && c.FirstPosition < 0 {
			c.FirstPosition = p
		}
	}
	if samePairs {
		c.MaxAngleDiff = &maxAngle
	}
	if c.MaxOutputDiff > f32Noise {
		c.Divergent = true
	}
	return c
}

func sameSections(a, b *rotary.MRoPE) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Interleaved == b.Interleaved && a.AlternateHW == b.AlternateHW && a.GGMLFourth == b.GGMLFourth && slices.Equal(a.Sections, b.Sections)
}

func sectionsString(m *rotary.MRoPE) string {
	if m == nil {
		return "none"
	}
	if m.GGMLFourth {
		return fmt.Sprint(m.Sections, " interleaved, llama.cpp's fourth position row")
	}
	if m.Interleaved {
		return fmt.Sprint(m.Sections, " interleaved")
	}
	if m.AlternateHW {
		return fmt.Sprint(m.Sections, " h/w alternating")
	}
	return fmt.Sprint(m.Sections, " chunked")
}

func printFrameworks(w io.Writer, r *frameworksReport) {
	fmt.Fprintf(w, "config: %s\ndialects: %s\n", r.Source, strings.Join(r.Dialects, ", "))
	for _, row := range r.Rows {
		verdict := "differ"
		if !row.Divergent {
			verdict = "alike within float32 noise"
		}
		fmt.Fprintf(w, "\n%s: %s\n", row.Rule, verdict)
		for _, s := range []readingSide{row.A, row.B} {
			fmt.Fprintf(w, "  %-22s %s\n", s.Choice, strings.Join(s.Dialects, ", "))
			for _, f := range s.Follows {
				fmt.Fprintf(w, "  %-22s   %s\n", "", f)
			}
		}
		if row.Positions == 0 { // one side cannot load the config: nothing to measure
			fmt.Fprintf(w, "  structure              %s\n", row.Structure)
			continue
		}
		fmt.Fprintf(w, "  attention factor       %.9g vs %.9g\n", row.AttentionA, row.AttentionB)
		if row.MaxAngleDiff != nil {
			fmt.Fprintf(w, "  largest angle diff     %.6g rad at position %d\n", *row.MaxAngleDiff, row.MaxAngleAt)
		} else {
			fmt.Fprintf(w, "  largest angle diff     n/a (the two rotate different pairs)\n")
		}
		fmt.Fprintf(w, "  largest q/k diff       %.6g (unit vector) at position %d\n", row.MaxOutputDiff, row.MaxOutputAt)
		if row.FirstPosition >= 0 {
			fmt.Fprintf(w, "  first differs at       position %d\n", row.FirstPosition)
		}
		sampled := ""
		if row.Sampled {
			sampled = ", every position below 2^20 and an even sample past it"
		}
		fmt.Fprintf(w, "  compared               positions 0..%d%s, layer %d\n", row.Positions-1, sampled, row.Layer)
		if row.Structure != "" {
			fmt.Fprintf(w, "  structure              %s\n", row.Structure)
		}
	}
	if len(r.Unverified) > 0 {
		fmt.Fprintf(w, "\nnot compared (not verified in the framework's source, or not modelled):\n")
		for _, d := range r.Dialects {
			if rules := r.Unverified[d]; len(rules) > 0 {
				fmt.Fprintf(w, "  %s: %s\n", d, strings.Join(rules, ", "))
			}
		}
	}
	fmt.Fprintln(w)
	switch {
	case len(r.Rows) == 0:
		fmt.Fprintln(w, "ok: every dialect reads this config alike")
	case r.Agree:
		fmt.Fprintln(w, "ok: the dialects' readings differ only within float32 noise")
	default:
		n := 0
		for _, row := range r.Rows {
			if row.Divergent {
				n++
			}
		}
		fmt.Fprintf(w, "the dialects rotate this model differently: %d rule difference(s) beyond float32 noise\n", n)
	}
}

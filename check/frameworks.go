package check

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// FrameworksReport is how the framework dialects read one config (rotary check --frameworks);
// its JSON form is a contract for tools.
type FrameworksReport struct {
	Source   string   `json:"source"`
	Dialects []string `json:"dialects"`
	// Rows: every rule on which the compared dialects read this config differently.
	Rows []FrameworkRow `json:"rows"`
	// Agree: no row differs beyond float32 noise.
	Agree bool `json:"agree"`
	// Unverified lists, per dialect, the rules its source was not checked for: they are left
	// out of the comparison rather than guessed.
	Unverified map[string][]string `json:"unverified,omitempty"`
	// Unmodelled lists readings of this config by framework releases no dialect models, each
	// with what it changes (transformers v4.51–v4.55's YaRN factor).
	Unmodelled []string `json:"unmodelled,omitempty"`
	// Verbose: WriteText lists every rule of Unverified, not only those that read this config
	// in more than one way.
	Verbose bool `json:"-"`
	// applies are the rules whose readings differ on this config (appliesTo); nil for a report
	// Frameworks did not make, whose Unverified WriteText then lists whole.
	applies map[hf.Rule]bool
}

// FrameworkRow is one rule read two ways, with the numeric consequence of the difference alone
// (every other rule read the reference way).
type FrameworkRow struct {
	Rule hf.Rule     `json:"rule"`
	A    ReadingSide `json:"a"`
	B    ReadingSide `json:"b"`
	Comparison
}

// ReadingSide is one way of reading a rule: the choices that read this config alike, the
// dialects that make them and the upstream code each follows.
type ReadingSide struct {
	Choice   string   `json:"choice"`
	Dialects []string `json:"dialects"`
	Follows  []string `json:"follows"`
}

// ParseDialects reads a comma-separated list of the dialects Frameworks compares: names
// hf.ParseDialect takes, the reference reading not among them (it is no framework), each once
// (a repeat is dropped), at least two.
func ParseDialects(list string) ([]hf.Dialect, error) {
	names := make([]string, 0, len(hf.Dialects()))
	for _, d := range hf.Dialects() {
		names = append(names, string(d))
	}
	want := strings.Join(names, ", ")
	var out []hf.Dialect
	for name := range strings.SplitSeq(list, ",") {
		d, err := hf.ParseDialect(strings.TrimSpace(name))
		if err != nil || d == hf.DialectReference && strings.TrimSpace(name) != "reference" {
			return nil, fmt.Errorf("dialect %q: want %s", name, want)
		}
		if d == hf.DialectReference {
			return nil, fmt.Errorf("dialect %q: the reference reading is not a framework; want %s", name, want)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%q: want at least two dialects to compare", list)
	}
	return out, nil
}

// Frameworks compares how dialects (hf.Dialects for all) read the config.json data, rule by
// rule (hf.Rules): every rule on which two of them read it differently is a row, measured as
// the config read the reference way with that one rule read each way, over every position below
// max_position_embeddings (an even sample past 2^20) and every layer whose RoPE differs. Rules
// a dialect's source was not checked for are listed, not guessed. opts are the reading's other
// options (Style); the error is the config's under opts, which must parse before its readings
// are compared. The caller names the config in Source.
func Frameworks(data []byte, opts hf.ParseOptions, dialects []hf.Dialect) (*FrameworksReport, error) {
	if _, err := opts.Parse(data); err != nil {
		return nil, err
	}
	if dialects == nil {
		dialects = hf.Dialects()
	}
	r := &FrameworksReport{Agree: true, Rows: []FrameworkRow{}, applies: map[hf.Rule]bool{}}
	if raw, err := hf.ReadRaw(data); err == nil {
		if y, ok := yarnLengthsOf(raw); ok {
			r.Unmodelled = append(r.Unmodelled, y.note())
		}
	}
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
				if _, done := r.applies[rule]; !done {
					r.applies[rule] = appliesTo(data, opts, rule)
				}
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
		var rows []FrameworkRow
	next:
		for _, g := range groups {
			var pending []FrameworkRow
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
				pending = append(pending, FrameworkRow{Rule: rule, A: m.side(), B: g.side(), Comparison: c})
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
func sideOf(groups []*readingGroup, s ReadingSide) ReadingSide {
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

func (g *readingGroup) side() ReadingSide {
	return ReadingSide{Choice: strings.Join(g.choices, ", "), Dialects: g.dialects, Follows: g.follows}
}

// compareGroups compares two readings; one under which the config does not load differs from
// every other.
func compareGroups(a, b *readingGroup) (Comparison, bool, error) {
	for _, g := range []*readingGroup{a, b} {
		if g.model == nil {
			return Comparison{FirstPosition: -1, Divergent: true, Structure: fmt.Sprintf("read as %s, the config does not load: %s",
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
func compareModels(a, b *hf.Model) (Comparison, bool, error) {
	models := []*hf.Model{a, b}
	layers := max(models[0].NumLayers, 1)
	var worst Comparison
	differ := false
	seen := map[string]bool{}
	for l := range layers {
		sa, errA := models[0].Spec.ForLayer(l)
		sb, errB := models[1].Spec.ForLayer(l)
		if errA != nil || errB != nil {
			break // per-layer rules that know fewer layers than num_hidden_layers
		}
		key, err := json.Marshal([2]rope.Spec{sa, sb})
		if err != nil {
			return Comparison{}, false, err
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

// WriteText writes the report as rotary check --frameworks prints it. A nil report or a nil w
// writes nothing.
func (r *FrameworksReport) WriteText(w io.Writer) {
	if r == nil || w == nil {
		return
	}
	fmt.Fprintf(w, "config: %s\ndialects: %s\n", r.Source, strings.Join(r.Dialects, ", "))
	for _, row := range r.Rows {
		verdict := "differ"
		if !row.Divergent {
			verdict = "alike within float32 noise"
		}
		fmt.Fprintf(w, "\n%s: %s\n", row.Rule, verdict)
		for _, s := range []ReadingSide{row.A, row.B} {
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
	var lines []string
	for _, d := range r.Dialects {
		var rules []string
		for _, rule := range r.Unverified[d] {
			if r.Verbose || r.applies == nil || r.applies[hf.Rule(rule)] {
				rules = append(rules, rule)
			}
		}
		if len(rules) > 0 {
			lines = append(lines, d+": "+strings.Join(rules, ", "))
		}
	}
	if lines = append(lines, r.Unmodelled...); len(lines) > 0 {
		fmt.Fprintf(w, "\nnot compared (not verified in the framework's source, or not modelled):\n")
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintln(w)
	switch {
	case len(r.Rows) == 0:
		fmt.Fprintln(w, "ok: every dialect reads this config alike")
	case r.Agree:
		fmt.Fprintln(w, "ok: the dialects' readings differ only within float32 noise")
	default:
		n := divergent(r.Rows)
		fmt.Fprintf(w, "the dialects rotate this model differently: %d rule difference(s) beyond float32 noise\n", n)
	}
}

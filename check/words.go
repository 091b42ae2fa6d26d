package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// ScalingWords names a scaling variant and its factor as rotary inspect prints them:
// "yarn factor=4", "ntk_alpha alpha=1000", "default".
func ScalingWords(sc rope.Scaling) string {
	switch sc.Type {
	case "", rope.ScalingDefault:
		return "default"
	case rope.ScalingNTKAlpha:
		return fmt.Sprintf("ntk_alpha alpha=%g", sc.Alpha)
	case rope.ScalingNTK:
		if sc.NTKMixed {
			return fmt.Sprintf("ntk factor=%g mixed_b=%g", sc.Factor, sc.MixedB)
		}
		return fmt.Sprintf("ntk factor=%g (fixed)", sc.Factor)
	}
	return fmt.Sprintf("%s factor=%g", sc.Type, sc.Factor)
}

// GGUFScalingType says what a GGUF file's rope.scaling.type (gguf.RoPE.ScalingType) was.
func GGUFScalingType(t string) string {
	if t == "" {
		return "no rope.scaling.type (llama.cpp reads linear, which needs a factor to scale)"
	}
	return "rope.scaling.type " + t
}

// maxHalf is the most frequency pairs a valid spec has: half of rope.Spec.Validate's largest
// head size, 65536.
const maxHalf = 1 << 15

// FourthRowPairs lists the pairs llama.cpp's IMROPE layout turns by its fourth position row,
// among the first half pairs (at most a valid spec's 32768: a larger half is no spec's, and
// costs no more).
func FourthRowPairs(m *rope.MRoPE, half int) []int {
	if m == nil || !m.GGMLFourth {
		return nil
	}
	var ps []int
	for i := range min(half, maxHalf) {
		if m.Axis(i) == 3 {
			ps = append(ps, i)
		}
	}
	return ps
}

// PairList names pairs as "pair 5" or "pairs 61, 62".
func PairList(ps []int) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	if len(ps) == 1 {
		return "pair " + s[0]
	}
	return "pairs " + strings.Join(s, ", ")
}

// SpecWords names a spec's scaling, MRoPE layout, per-layer rules and dual-chunk attention as
// rotary inspect and presets print them: "yarn factor=4", "default, mrope interleaved [24 20
// 20]", "default, per-layer local base 10000".
func SpecWords(s rope.Spec) string {
	parts := []string{ScalingWords(s.Scaling)}
	if s.MRoPE != nil {
		kind := "chunked"
		if s.MRoPE.Interleaved {
			kind = "interleaved"
		}
		if s.MRoPE.AlternateHW {
			kind = "h/w alternating, t last (ERNIE)"
		}
		mr := fmt.Sprintf("mrope %s %v", kind, s.MRoPE.Sections)
		if p := FourthRowPairs(s.MRoPE, s.Half()); len(p) > 0 {
			mr += fmt.Sprintf(", %s on llama.cpp's fourth position row", PairList(p))
		}
		parts = append(parts, mr)
	}
	if s.Local != nil {
		parts = append(parts, localWords(s.Local))
	}
	if s.DualChunk != nil {
		parts = append(parts, fmt.Sprintf("dual-chunk %d/%d", s.DualChunk.ChunkSize, s.DualChunk.LocalSize))
	}
	return strings.Join(parts, ", ")
}

// localWords names a per-layer model's rules: the sliding layers' local base (Gemma 3, OLMo 3),
// each layer type's own base (Gemma 4, gpt-oss) and the layers without RoPE (Llama 4, SmolLM3,
// Cohere2, EXAONE 4). A rule the model lacks is not named: a local base of 0 means none.
func localWords(l *rope.LocalRoPE) string {
	var rules []string
	if l.Base != 0 {
		rules = append(rules, fmt.Sprintf("local base %g", l.Base))
	}
	for _, name := range slices.Sorted(maps.Keys(l.Types)) {
		if t := l.Types[name]; t.NoRoPE {
			rules = append(rules, name+" without RoPE")
		} else {
			rules = append(rules, fmt.Sprintf("%s base %g", name, t.Base))
		}
	}
	if n := countTrue(l.NoRoPE); n > 0 {
		rules = append(rules, fmt.Sprintf("%d of %d layers without RoPE", n, len(l.NoRoPE)))
	}
	if len(rules) == 0 {
		return "per-layer"
	}
	return "per-layer " + strings.Join(rules, ", ")
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

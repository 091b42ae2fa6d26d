package check

import (
	"fmt"
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

// FourthRowPairs lists the pairs llama.cpp's IMROPE layout turns by its fourth position row.
func FourthRowPairs(m *rope.MRoPE, half int) []int {
	if m == nil || !m.GGMLFourth {
		return nil
	}
	var ps []int
	for i := range half {
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

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

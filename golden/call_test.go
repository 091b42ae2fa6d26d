package golden

import (
	"testing"

	"github.com/rotary-go/rotary"
)

// TestPositionsPastCacheMessage: the warning for a position past the cache names where the
// count comes from: max_position_embeddings, or the original length times the factor.
func TestPositionsPastCacheMessage(t *testing.T) {
	for _, c := range []struct {
		spec rotary.Spec
		want string
	}{
		{rotary.Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 131072}, "max_position_embeddings"},
		{rotary.Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 40960,
			Scaling: rotary.Scaling{Type: rotary.ScalingYaRN, Factor: 4, OriginalMaxPositions: 32768}}, "original_max_position_embeddings 32768 × yarn factor 4"},
	} {
		if got := cacheLenSource(c.spec); got != c.want {
			t.Errorf("%+v: %q, want %q", c.spec.Scaling, got, c.want)
		}
	}
}

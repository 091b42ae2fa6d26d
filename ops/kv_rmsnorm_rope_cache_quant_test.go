package ops_test

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
)

func TestQuantizeInt8(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		y, scale, offset float32
		want             int8
	}{
		{0.5, 1, 0, 0}, {1.5, 1, 0, 2}, {2.5, 1, 0, 2}, {-2.5, 1, 0, -2}, {-3.5, 1, 0, -4},
		{0.25, 2, 0, 0}, {0.75, 2, 0, 2}, {1, 2.6, 0, 3}, {1, 1, 0.5, 2}, {1, 1, -1.5, 0},
		{127.49, 1, 0, 127}, {127.5, 1, 0, 127}, {1e30, 1, 0, 127}, {-128.5, 1, 0, -128}, {-1e30, 1, 0, -128},
		{nan, 1, 0, 0}, {1, nan, 0, 0}, {inf, 1, 0, 127}, {-inf, 1, 0, -128}, {inf, 0, 0, 0},
	} {
		if got := native.QuantizeInt8(c.y, c.scale, c.offset); got != c.want {
			t.Errorf("QuantizeInt8(%v, %v, %v) = %d, want %d", c.y, c.scale, c.offset, got, c.want)
		}
	}
}

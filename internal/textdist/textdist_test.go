package textdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"rope_theta", "rope_theat", 1}, {"kitten", "sitting", 3},
		{"head_dims", "head_dim", 1}, {"abcd", "badc", 2},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"positions", "layer", "config", "model", "strict"}
	for _, c := range []struct{ s, want string }{
		{"positons", "positions"}, {"confg", "config"}, {"layr", "layer"}, {"xyz", ""}, {"mdl", ""},
	} {
		if got := Closest(c.s, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

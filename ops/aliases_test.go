package ops_test

import (
	"slices"
	"testing"

	"github.com/rotary-go/rotary/ops"
)

// TestCanonical: an op named by its registry name or by torch_npu's reaches the same op, and a
// name neither knows is refused rather than taken for a near miss.
func TestCanonical(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"npu_rotary_mul", "apply_rotary_emb"},
		{"npu_interleave_rope", "interleave_rope"},
		{"npu_mrope", "mrope"},
		{"npu_kv_rmsnorm_rope_cache", "kv_rmsnorm_rope_cache"},
		{"_npu_rotary_embedding", "rotary_embedding"},
		{"rotary_embedding", "rotary_embedding"},
		{"mrope", "mrope"},
		{"apply_rotary_emb_thd", "apply_rotary_emb_thd"},
	} {
		if got, ok := ops.Canonical(c.name); !ok || got != c.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
	for _, n := range ops.Names() {
		if got, ok := ops.Canonical(n); !ok || got != n {
			t.Errorf("Canonical(%q) = %q, %v; want the registry name itself", n, got, ok)
		}
	}
	for _, bad := range []string{"", "no_such_op", "NPU_MROPE", "npu_mrope ", "npu_"} {
		if got, ok := ops.Canonical(bad); ok {
			t.Errorf("Canonical(%q) = %q, true; want refused", bad, got)
		}
	}
}

// TestAliases: every alias names a registered op and none hides a registry name; the map
// returned is a copy.
func TestAliases(t *testing.T) {
	names := ops.Names()
	al := ops.Aliases()
	if len(al) == 0 {
		t.Fatal("no aliases")
	}
	for alias, reg := range al {
		if !slices.Contains(names, reg) {
			t.Errorf("alias %q maps to %q, which is not registered", alias, reg)
		}
		if slices.Contains(names, alias) {
			t.Errorf("alias %q is also a registry name", alias)
		}
	}
	clear(al)
	if len(ops.Aliases()) == 0 {
		t.Error("clearing the map Aliases returned cleared the aliases")
	}
}

// TestNamesWithAliases: the list is sorted, holds every registry name and alias once, and
// Canonical accepts each.
func TestNamesWithAliases(t *testing.T) {
	all := ops.NamesWithAliases()
	if !slices.IsSorted(all) {
		t.Errorf("NamesWithAliases not sorted: %v", all)
	}
	if len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Errorf("NamesWithAliases repeats a name: %v", all)
	}
	want := ops.Names()
	for a := range ops.Aliases() {
		want = append(want, a)
	}
	if len(all) != len(want) {
		t.Errorf("NamesWithAliases has %d names, want %d", len(all), len(want))
	}
	for _, n := range want {
		if !slices.Contains(all, n) {
			t.Errorf("NamesWithAliases lacks %q", n)
		}
	}
	for _, n := range all {
		if _, ok := ops.Canonical(n); !ok {
			t.Errorf("NamesWithAliases lists %q, which Canonical refuses", n)
		}
	}
}

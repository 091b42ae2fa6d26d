package bench

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/internal/zerotest"
)

// TestZeroValueNew: ModelShape of a nil, zero or rope-less model and with nil or malformed
// config bytes, Config.Names of a nil and a zero Config, and Count of a nil Config return an
// error or their defaults and never panic; Names' defaults are copies a caller may change.
func TestZeroValueNew(t *testing.T) {
	zerotest.Run(t, map[string]func() error{
		"ModelShape(nil)":  func() error { _, err := ModelShape("", nil, nil); return zerotest.WantErr(err) },
		"ModelShape(zero)": func() error { _, err := ModelShape("", &hf.Model{}, []byte("{")); return zerotest.WantErr(err) },
		"ModelShape(no RoPE)": func() error {
			m := &hf.Model{NumHeads: 1, NumKVHeads: 1}
			m.Spec.NoRoPE, m.Spec.HeadSize = true, 8
			_, err := ModelShape("", m, nil)
			return zerotest.WantErr(err)
		},
		"nil Config.Names": func() error {
			ops, backends, models := (*Config)(nil).Names()
			if !slices.Equal(ops, DefaultOps) || !slices.Equal(backends, DefaultBackends) || !slices.Equal(models, ModelNames()) {
				return fmt.Errorf("%v %v %v, want the defaults", ops, backends, models)
			}
			return nil
		},
		"zero Config.Names": func() error {
			before, beforeBackends := slices.Clone(DefaultOps), slices.Clone(DefaultBackends)
			defer func() { copy(DefaultOps, before); copy(DefaultBackends, beforeBackends) }()
			ops, backends, _ := (&Config{}).Names()
			ops[0], backends[0] = "changed", "changed"
			if !slices.Equal(DefaultOps, before) || DefaultBackends[0] == "changed" {
				return fmt.Errorf("changing Names' result changed the defaults: %v %v", DefaultOps, DefaultBackends)
			}
			return nil
		},
		"nil Config.Count": func() error { _, err := (*Config)(nil).Count(); return err },
	})
}

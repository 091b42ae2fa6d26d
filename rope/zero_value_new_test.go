package rope

import (
	"fmt"
	"testing"
)

// TestZeroValueNew: MRoPE.Axis on a nil or zero MRoPE, and with fewer sections than its layout
// reads, is axis 0 and never panics; a Spec whose Scaling is zero but for one new field is
// validated without panicking.
func TestZeroValueNew(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *MRoPE
	}{
		{"nil", nil},
		{"zero", &MRoPE{}},
		{"interleaved, no sections", &MRoPE{Interleaved: true}},
		{"interleaved, one section", &MRoPE{Interleaved: true, Sections: []int{4}}},
		{"alternate hw, one section", &MRoPE{AlternateHW: true, Sections: []int{4}}},
		{"ggml fourth, one section", &MRoPE{Interleaved: true, GGMLFourth: true, Sections: []int{4}}},
		{"ggml fourth alone, one section", &MRoPE{GGMLFourth: true, Sections: []int{4}}},
	} {
		for _, i := range []int{0, 1, 2, 5} {
			var got int
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				got = c.m.Axis(i)
				return nil
			}()
			if err != nil || got != 0 {
				t.Errorf("%s MRoPE.Axis(%d) = %d, %v; want 0, no panic", c.name, i, got, err)
			}
		}
	}
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		_ = (&Spec{}).Validate()
		_ = (&Spec{Scaling: Scaling{Type: "longrope"}}).Validate()
		_ = (&Spec{Scaling: Scaling{Type: "yarn"}}).Validate()
		return nil
	}()
	if err != nil {
		t.Errorf("Validate: %v", err)
	}
}

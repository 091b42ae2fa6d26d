package hf

import (
	"fmt"
	"math"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
	"github.com/rotary-go/rotary/rope"
)

// TestZeroValueNew: the Dialect functions and methods with the zero Dialect, an unknown one and
// the zero Rule, Model.Select and Warnings on nil and zero Models with zero, negative, huge
// and unknown selections, the word parsers with empty and unknown words, and the zero
// ChoiceError, SelectionError and HFFailure return an error or a zero result and never panic.
func TestZeroValueNew(t *testing.T) {
	zerotest.Run(t, map[string]func() error{
		"Dialects":           func() error { _ = Dialects(); return nil },
		"Rules":              func() error { _ = Rules(); return nil },
		"ParseDialect(\"\")": func() error { _, _ = ParseDialect(""); return nil },
		"ParseDialect(\"?\")": func() error {
			_, err := ParseDialect("?")
			if err == nil {
				return fmt.Errorf("no error")
			}
			return nil
		},
		"zero Dialect": func() error {
			var d Dialect
			_, _ = d.String(), d.Readings()
			_, _ = d.Reading("")
			return nil
		},
		"unknown Dialect": func() error {
			d := Dialect("?")
			_, _ = d.String(), d.Readings()
			for _, r := range append(Rules(), "") {
				_, _ = d.Reading(r)
			}
			return nil
		},
		"Model.Select": func() error {
			var nilModel *Model
			if _, err := nilModel.Select(Selection{}); err == nil {
				return fmt.Errorf("nil Model: no error")
			}
			dyn, long := rope.DynamicLength(255), true
			for _, sel := range []Selection{{}, {Layer: -1}, {Layer: math.MaxInt}, {RoPE: IndexerRoPE}, {RoPE: 255},
				{Dynamic: &dyn, LongRoPEFactorFromLengths: &long}} {
				if _, err := (&Model{}).Select(sel); err == nil {
					return fmt.Errorf("zero Model, %+v: no error", sel)
				}
			}
			m, err := Preset("llama-3.1-8b")
			if err != nil {
				return err
			}
			for _, sel := range []Selection{{Layer: -1}, {Layer: math.MaxInt}, {RoPE: IndexerRoPE}, {RoPE: 255}} {
				if _, err := m.Select(sel); err == nil {
					return fmt.Errorf("llama, %+v: no error", sel)
				}
			}
			return nil
		},
		"Model.Warnings": func() error {
			var nilModel *Model
			_, _ = nilModel.Warnings(), (&Model{}).Warnings()
			return nil
		},
		"word parsers": func() error {
			for _, s := range []string{"", "?"} {
				_, e1 := ParseWhichRoPE(s)
				_, e2 := ParseDynamicLength(s)
				_, e3 := ParseLongRoPEFactor(s)
				if e1 == nil || e2 == nil || e3 == nil {
					return fmt.Errorf("%q: %v, %v, %v", s, e1, e2, e3)
				}
			}
			_, _ = WhichRoPE(0).String(), WhichRoPE(255).String()
			return nil
		},
		"zero errors and failures": func() error {
			_ = (&ChoiceError{}).Error()
			_ = (&SelectionError{}).Error()
			_ = (&SelectionError{}).Unwrap()
			_ = HFFailure{}.String()
			return nil
		},
	})
}

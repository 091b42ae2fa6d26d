package hf

import (
	"fmt"
	"testing"
)

// TestZeroValueNew: the Dialect functions and methods with the zero Dialect, an unknown one and
// the zero Rule return an error or a zero result and never panic.
func TestZeroValueNew(t *testing.T) {
	for name, f := range map[string]func() error{
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
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return f()
		}()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

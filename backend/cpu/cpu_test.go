package cpu_test

import (
	"testing"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/rotarytest"
)

// TestConformance runs the suite against every implementation this machine has, forced one at
// a time, demanding bit-identical results.
func TestConformance(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	for _, impl := range cpu.Implementations() {
		t.Run(impl, func(t *testing.T) {
			if err := cpu.SetImplementation(impl); err != nil {
				t.Fatal(err)
			}
			rotarytest.Run(t, cpu.Name, rotarytest.Options{})
		})
	}
}

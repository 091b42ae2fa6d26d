package rotarytest_test

import (
	"slices"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rotarytest"
)

// The reference passes its own suite bit for bit: this checks the harness (guards, clones,
// dispatch) more than the kernels, which are checked against float64 math in their packages.
func TestNativeConformance(t *testing.T) {
	rotarytest.Run(t, ops.Native, rotarytest.Options{})
}

func TestUnknownBackend(t *testing.T) {
	if _, err := rotarytest.Sweep("no-such-backend", rotarytest.Options{}); err == nil {
		t.Fatal("want an error for an unknown backend")
	}
}

// Every registered op must have a sweep, or a backend could ship one unchecked.
func TestEveryOpSwept(t *testing.T) {
	if got, want := rotarytest.Ops(), ops.Names(); !slices.Equal(got, want) {
		t.Errorf("Ops() = %v, want the registered ops %v", got, want)
	}
}

// A sweep filed under one op's name that recorded another's would make Ops claim coverage the
// suite does not have.
func TestOpsAreWhatTheSweepRuns(t *testing.T) {
	results, err := rotarytest.Sweep(ops.Native, rotarytest.Options{Short: true})
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, r := range results {
		if !slices.Contains(ran, r.Op) {
			ran = append(ran, r.Op)
		}
	}
	slices.Sort(ran)
	if got := rotarytest.Ops(); !slices.Equal(got, ran) {
		t.Errorf("Ops() = %v, but the sweep ran %v", got, ran)
	}
}

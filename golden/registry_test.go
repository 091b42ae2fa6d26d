package golden

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
)

// TestEveryOpMakesInputs: every registered op runs and makes its golden inputs (Op.inputs in
// its file), so that a new op is covered by being registered.
func TestEveryOpMakesInputs(t *testing.T) {
	for _, name := range ops.Names() {
		op, ok := Lookup(name)
		switch {
		case !ok:
			t.Errorf("op %s: not in golden's registry (golden/%s.go)", name, name)
		case op.run == nil:
			t.Errorf("op %s: no run", name)
		case op.inputs == nil:
			t.Errorf("op %s: golden has no maker of its inputs (Op.inputs in its file)", name)
		}
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/bench"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rotarytest"
)

// repoRoot is the module root, two levels above this package.
const repoRoot = "../.."

// opFile is the file stem every layer names an op's files after: a backward op lives with its
// forward op.
func opFile(op string) string { return strings.TrimSuffix(op, "_backward") }

// TestEveryOpCovered: every registered op has its file in every layer, a conformance sweep, a
// bench case, an `apply --op` path and golden inputs (golden/<op>.go: its run and its input
// maker), a native and a cpu implementation, and its README entry, so an op added in one place
// and forgotten in another fails here.
func TestEveryOpCovered(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	swept, benched := rotarytest.Ops(), bench.Ops()
	status := map[string]ops.Status{}
	for _, s := range ops.Default.Table() {
		status[s.Op] = s
	}
	for _, op := range ops.Names() {
		f := opFile(op)
		for _, path := range []string{
			"ops/" + f + ".go",
			"backend/native/" + f + ".go",
			"backend/cpu/" + f + ".go",
			"rotarytest/" + f + ".go",
			"bench/" + f + ".go",
			"golden/" + f + ".go",
		} {
			if _, err := os.Stat(filepath.Join(repoRoot, path)); err != nil {
				t.Errorf("op %s: no %s", op, path)
			}
		}
		if !slices.Contains(swept, op) {
			t.Errorf("op %s: no conformance sweep in rotarytest (rotarytest.Ops)", op)
		}
		if !slices.Contains(benched, op) {
			t.Errorf("op %s: no bench case (bench.Ops)", op)
		}
		if _, ok := golden.Lookup(op); !ok {
			t.Errorf("op %s: no `rotary apply --op %s`", op, op)
		}
		if b := status[op].Backends; !slices.Contains(b, ops.Native) || !slices.Contains(b, "cpu") {
			t.Errorf("op %s: backends %v, want native and cpu", op, b)
		}
		if !strings.Contains(string(readme), "`"+op+"`") {
			t.Errorf("op %s: not in the README", op)
		}
	}
	for _, op := range golden.Names() {
		if !slices.Contains(ops.Names(), op) {
			t.Errorf("`rotary apply --op %s` is not a registry name", op)
		}
	}
}

// TestCPUFilesPaired: every hand-written backend/cpu file with assembly wrappers has its
// fallback under the negated build tag, so the package builds everywhere with the same names.
func TestCPUFilesPaired(t *testing.T) {
	dir := filepath.Join(repoRoot, "backend/cpu")
	amd64, _ := filepath.Glob(filepath.Join(dir, "*_amd64.go"))
	for _, f := range amd64 {
		base := strings.TrimSuffix(filepath.Base(f), "_amd64.go")
		if strings.HasSuffix(base, "_stubs") || base == "dispatch" {
			continue // generated beside the assembly
		}
		if _, err := os.Stat(filepath.Join(dir, base+"_generic.go")); err != nil {
			t.Errorf("backend/cpu/%s_amd64.go has no %s_generic.go", base, base)
		}
	}
}

// TestConfigReadersLinkNoBackend: packages that only read or check configs do not link the
// kernels (their dependencies stop at the spec package).
func TestConfigReadersLinkNoBackend(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, pkg := range []string{"./hf", "./check", "./multimodal", "./rope"} {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = repoRoot
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "rotary-go/rotary/backend/") || dep == "github.com/rotary-go/rotary" {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

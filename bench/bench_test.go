package bench

import (
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func TestRunSmall(t *testing.T) {
	cfg := Config{Ops: []string{"rotary_embedding"}, DTypes: []tensor.DType{tensor.BF16}, Tokens: []int{1, 3}, Time: time.Millisecond}
	n, err := cfg.Count()
	if err != nil || n != 4 {
		t.Fatalf("Count = %d, %v; want 4 (2 token counts × native, cpu)", n, err)
	}
	calls := 0
	rs, err := Run(cfg, func(done, total int, r Result) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || calls != 4 {
		t.Fatalf("%d results, %d progress calls", len(rs), calls)
	}
	for _, r := range rs {
		if r.NsPerCall <= 0 || r.GBps <= 0 || r.CopyGBps <= 0 || r.Ratio <= 0 || r.Served != r.Backend {
			t.Errorf("implausible result %+v", r)
		}
	}
}

// Every registered op must have a case, or `rotary bench --op all` would leave it unmeasured.
func TestEveryOpBenched(t *testing.T) {
	if got, want := Ops(), ops.Names(); !slices.Equal(got, want) {
		t.Errorf("Ops() = %v, want the registered ops %v", got, want)
	}
}

// A bare `rotary bench` measures DefaultOps in their order, whichever files register the cases.
func TestDefaultTasks(t *testing.T) {
	ts, err := (&Config{Backends: []string{ops.Native}, DTypes: []tensor.DType{tensor.F32}, Tokens: []int{1}}).tasks()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range ts {
		got = append(got, task.c.Op)
	}
	if !slices.Equal(got, DefaultOps) {
		t.Errorf("default tasks run %v, want %v", got, DefaultOps)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Models: []string{"no-such-model"}},
		{Ops: []string{"no_such_op"}},
		{Backends: []string{"tpu"}},
		{Tokens: []int{0}},
		{Tokens: []int{1 << 20}},
	} {
		if _, err := c.Count(); err == nil {
			t.Errorf("%+v: want an error", c)
		}
	}
}

func TestPlot(t *testing.T) {
	rs := []Result{
		{Op: "rotary_embedding", Model: "m", Backend: "cpu", DType: "F32", Tokens: 1, Ratio: 0.5},
		{Op: "rotary_embedding", Model: "m", Backend: "cpu", DType: "F32", Tokens: 4096, Ratio: 1.5},
		{Op: "mrope", Model: "q", Backend: "native", DType: "BF16", Tokens: 16, Ratio: 0.1},
	}
	img := Plot(rs)
	if img.Bounds().Dx() < 500 || img.Bounds().Dy() < 300 {
		t.Fatalf("image %v too small", img.Bounds())
	}
	colored := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if img.At(x, y) == (color.RGBA{0x1f, 0x77, 0xb4, 0xff}) {
				colored++
			}
		}
	}
	if colored < 50 {
		t.Errorf("the first series drew only %d pixels", colored)
	}
	path := filepath.Join(t.TempDir(), "b.png")
	if err := WritePNG(path, rs); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() < 1000 {
		t.Fatalf("png: %v %v", st, err)
	}
}

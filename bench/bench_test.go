package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func TestRunSmall(t *testing.T) {
	cfg := Config{Ops: []string{"rotary_embedding"}, DTypes: []tensor.DType{tensor.BF16}, Tokens: []int{1, 3}, Time: time.Millisecond}
	n, err := cfg.Count()
	if err != nil || n != 4-2 {
		t.Fatalf("Count = %d, %v; want 2 (2 token counts × cpu: native only when asked)", n, err)
	}
	cfg.Backends = []string{"all"}
	if n, err := cfg.Count(); err != nil || n != 2*len(Backends()) {
		t.Fatalf("Count with Backends all = %d, %v; want 2 token counts × %v", n, err, Backends())
	}
	cfg.Backends = []string{ops.Native, "cpu"}
	calls := 0
	rs, err := Run(cfg, func(done, total int, r Result) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || calls != 4 {
		t.Fatalf("%d results, %d progress calls", len(rs), calls)
	}
	for _, r := range rs {
		if r.NsPerCall <= 0 || r.GBps <= 0 || r.CopyGBps <= 0 || r.Ratio <= 0 || r.LimitGBps <= 0 || r.LimitRatio <= 0 || r.Served != r.Backend {
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

// TestConfigNames: the names a run's figures can carry, defaults and "all" resolved, cover
// every figure the run makes.
func TestConfigNames(t *testing.T) {
	for _, c := range []Config{
		{},
		{Ops: []string{"all"}, Backends: []string{"all"}},
		{Ops: []string{"mrope"}, Backends: []string{ops.Native}, Models: []string{"qwen3-vl"}},
		{Shape: &Shape{Name: "my-model"}},
	} {
		o, b, m := c.Names()
		if len(o) == 0 || len(b) == 0 || len(m) == 0 {
			t.Errorf("%+v: Names = %v, %v, %v", c, o, b, m)
		}
		if c.Shape != nil {
			if !slices.Equal(m, []string{"my-model"}) {
				t.Errorf("a Shape's models %v, want its name", m)
			}
			continue
		}
		ts, err := c.tasks()
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range ts {
			if !slices.Contains(o, task.c.Op) || !slices.Contains(b, task.backend) || !slices.Contains(m, task.c.Model) {
				t.Errorf("%+v: figure %s %s %s not among Names %v %v %v", c, task.c.Op, task.backend, task.c.Model, o, b, m)
			}
		}
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
	// Any other model is timed through Shape; the error says so, not only the shapes' names.
	if _, err := (&Config{Models: []string{"no-such-model"}}).Count(); err == nil || !strings.Contains(err.Error(), "Shape") {
		t.Errorf("unknown model: error %v, want one naming Config.Shape", err)
	}
}

// TestConfigNoCase: an op asked for by name with models that have no case for it is refused,
// naming the op and the models it has cases on, instead of timing nothing for it; the default
// ops and "all" keep the ones the models have, but not none.
func TestConfigNoCase(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Ops: []string{"rotary_embedding"}, Models: []string{"deepseek-v3", "llama-4-scout"}}, "rotary_embedding: no case on deepseek-v3, llama-4-scout (its cases: llama-3-8b)"},
		{Config{Ops: []string{"rotary_embedding", "mrope"}, Models: []string{"qwen3-vl"}}, "rotary_embedding: no case on qwen3-vl"},
		{Config{Models: []string{"qwen2-vl-vision"}}, "no case of rotary_embedding, mrope on qwen2-vl-vision"},
		{Config{Ops: []string{"all"}, Models: []string{"deepseek-v3"}, Shape: nil, Backends: []string{"no"}}, "backend"},
	} {
		if _, err := c.cfg.Count(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.cfg, err, c.want)
		}
	}
	if n, err := (&Config{Ops: []string{"all"}, Models: []string{"deepseek-v3"}, DTypes: []tensor.DType{tensor.F32}, Tokens: []int{1}}).Count(); err != nil || n == 0 {
		t.Errorf("all ops on deepseek-v3: %d figures, %v; want its cases'", n, err)
	}
	for _, c := range []Config{
		{Models: []string{"llama-3-8b"}},
		{Ops: []string{"rotary_embedding", "mrope"}, Models: []string{"llama-3-8b", "qwen3-vl"}},
		{Ops: []string{"rotary_embedding"}, Models: []string{"llama-3-8b", "qwen3-vl"}},
	} {
		if _, err := c.Count(); err != nil {
			t.Errorf("%+v: %v, want each op timed on its own models", c, err)
		}
	}
}

func TestPlot(t *testing.T) {
	rs := []Result{
		{Op: "rotary_embedding", Model: "m", Backend: "cpu", DType: "F32", Tokens: 1, LimitRatio: 0.5},
		{Op: "rotary_embedding", Model: "m", Backend: "cpu", DType: "F32", Tokens: 4096, LimitRatio: 1.5},
		{Op: "mrope", Model: "q", Backend: "native", DType: "BF16", Tokens: 16, LimitRatio: 0.1},
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

// TestLimitEveryCase: every case's figures carry the limit, in the JSON too, on both backends
// and on the pool (512 tokens are past every op's threading threshold).
func TestLimitEveryCase(t *testing.T) {
	cfg := Config{Ops: []string{"all"}, DTypes: []tensor.DType{tensor.BF16}, Tokens: []int{1, 512}, Time: time.Millisecond}
	rs, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.Op] = true
		if r.LimitGBps <= 0 || r.LimitRatio <= 0 {
			t.Errorf("%s %s %d tokens: limit_gbps %v, limit_ratio %v", r.Op, r.Backend, r.Tokens, r.LimitGBps, r.LimitRatio)
		}
		if got, want := r.LimitRatio*r.LimitGBps, r.GBps; got < want*0.999 || got > want*1.001 {
			t.Errorf("%s: limit_ratio·limit_gbps = %v, want gbps %v (the same byte count over both times)", r.Op, got, want)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"limit_gbps", "limit_ratio", "copy_gbps", "ratio"} {
			if v, ok := m[k].(float64); !ok || v <= 0 {
				t.Errorf("%s: JSON %s = %v", r.Op, k, m[k])
			}
		}
	}
	for _, op := range Ops() {
		if !seen[op] {
			t.Errorf("op %s: no figure", op)
		}
	}
}

// TestOperandsTruthful holds each case's description to what its op does: an operand said to
// be only read is unchanged by a call, every element of one said to be written is stored (each
// starts as all-ones bits, a NaN no op produces from finite inputs), and no two overlap, so the
// limit pass moves the op's bytes, neither fewer nor twice.
func TestOperandsTruthful(t *testing.T) {
	for _, c := range cases {
		for _, backend := range []string{ops.Native, "cpu"} {
			for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
				for _, T := range []int{5, 130} {
					name := fmt.Sprintf("%s %s %s %d", c.Op, backend, d, T)
					disp, err := ops.NewDispatcher("all", backend)
					if err != nil {
						t.Fatal(err)
					}
					call, touched, err := c.Setup(d, T, disp)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if Traffic(touched) <= 0 {
						t.Errorf("%s: no bytes", name)
					}
					checkDisjoint(t, name, touched)
					var before [][]byte
					for _, o := range touched {
						if o.Access == Write {
							for i := range o.Bytes {
								o.Bytes[i] = 0xff
							}
						}
						before = append(before, bytes.Clone(o.Bytes))
					}
					if err := call(); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for i, o := range touched {
						switch o.Access {
						case Read:
							if !bytes.Equal(o.Bytes, before[i]) {
								t.Errorf("%s: operand %d is described as read but was written", name, i)
							}
						case Write:
							for e := 0; e < len(o.Bytes); e += d.Size() {
								if bytes.Count(o.Bytes[e:e+d.Size()], []byte{0xff}) == d.Size() {
									t.Errorf("%s: operand %d is described as written but element %d of %d was not", name, i, e/d.Size(), len(o.Bytes)/d.Size())
									break
								}
							}
						}
					}
				}
			}
		}
	}
}

func checkDisjoint(t *testing.T, name string, touched []Operand) {
	t.Helper()
	for i, a := range touched {
		for j, b := range touched[:i] {
			a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a.Bytes))), uintptr(unsafe.Pointer(unsafe.SliceData(b.Bytes)))
			if a0 < b0+uintptr(len(b.Bytes)) && b0 < a0+uintptr(len(a.Bytes)) {
				t.Errorf("%s: operands %d and %d overlap", name, j, i)
			}
		}
	}
}

// TestLimitPassWritesBack: the pass a figure times leaves every operand as it found it (that it
// stores every byte it loads is backend/cpu's TestStreamKernels and TestStreamSplit, with a
// nonzero key).
func TestLimitPassWritesBack(t *testing.T) {
	for _, threaded := range []bool{false, true} {
		touched := slices.Concat(Reads(Filled(tensor.F32, 300, 1000)), Writes(Filled(tensor.BF16, 777)), Updates(Filled(tensor.F16, 70000), Filled(tensor.F32, 3)))
		var before [][]byte
		for _, o := range touched {
			before = append(before, bytes.Clone(o.Bytes))
		}
		if err := limitPass(touched, threaded)(); err != nil {
			t.Fatal(err)
		}
		for i, o := range touched {
			if !bytes.Equal(o.Bytes, before[i]) {
				t.Errorf("threaded=%v: operand %d changed", threaded, i)
			}
		}
	}
}

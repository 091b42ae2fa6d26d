package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func TestShow(t *testing.T) {
	dir := t.TempDir()
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	p := filepath.Join(dir, "g.safetensors")
	err := safetensors.WriteFile(p, []safetensors.Tensor{
		safetensors.FromInt64s("positions", []int{3}, []int64{0, 7, -2}),
		encodeAs(tensor.BF16, "out.query", []int{2, 1, 3}, []float32{0.5, -1.25, nan, 3, inf, 0}),
	}, map[string]string{"op": "rotary_embedding", "seed": "9"})
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "show", p, "--values", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		p + ": 2 tensors\n",
		"metadata:\n  op: rotary_embedding\n  seed: 9\n",
		"positions                I64   [3]                        -2            7      1.66667      0      0\n  values: 0 7 -2\n",
		"out.query                BF16  [2,1,3]                 -1.25            3       0.5625      1      1\n  values: 0.5 -1.25 NaN 3\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "show", p, "--tensor", "out.query", "--json", "--values", "6")
	var got struct {
		File     string
		Metadata map[string]string
		Tensors  []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Tensors) != 1 {
		t.Fatalf("exit %d %v: %s", code, err, out)
	}
	q := got.Tensors[0]
	want := []any{0.5, -1.25, "NaN", float64(3), "-Inf", float64(0)}
	if q["name"] != "out.query" || q["min"] != -1.25 || q["max"] != float64(3) || q["nan"] != float64(1) || q["inf"] != float64(1) || !reflect.DeepEqual(q["values"], want) {
		t.Errorf("row %v", q)
	}
	if got.Metadata["seed"] != "9" {
		t.Errorf("metadata %v", got.Metadata)
	}
	code, _, stderr = runCLI(t, "show", p, "--tensor", "key")
	if code != 2 || !strings.Contains(stderr, `--tensor "key": not in`) || !strings.Contains(stderr, "out.query") {
		t.Errorf("unknown tensor: exit %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "show", p, "--values", "-1"); code != 2 || !strings.Contains(stderr, "--values") {
		t.Errorf("--values -1: exit %d %q", code, stderr)
	}
	// The mean of large F64 values is not an overflowed sum.
	big := writeTensors(t, dir, "big.safetensors", safetensors.FromFloat64s("x", []int{3}, []float64{math.MaxFloat64, math.MaxFloat64, math.NaN()}))
	if code, out, _ := runCLI(t, "show", big); code != 0 || !strings.Contains(out, " 1.79769e+308      1      0") {
		t.Errorf("large F64: exit %d\n%s", code, out)
	}
	// A tensor with no finite value has no min, max or mean.
	allNaN := writeTensors(t, dir, "nan.safetensors", safetensors.FromFloat32s("x", []int{2}, []float32{nan, nan}))
	if code, out, _ := runCLI(t, "show", allNaN); code != 0 || !strings.Contains(out, "            -            -            -      2      0") {
		t.Errorf("all NaN: exit %d\n%s", code, out)
	}
}

// TestShowColumns: the table prints float figures to 6 significant digits whatever the dtype
// (an F64 cache's min and max at full precision pushed the row out of line) and sizes its
// columns to what they hold (a long name, an I64 extreme); --json and --values keep every
// digit.
func TestShowColumns(t *testing.T) {
	dir := t.TempDir()
	cos := []float64{0.5403023058681398, -0.4161468365471424, 0.9998000066665778}
	p := writeTensors(t, dir, "c.safetensors",
		safetensors.FromFloat64s("cos", []int{3}, cos),
		encodeAs(tensor.F32, "sin", []int{3}, []float32{0.84147096, 0.9092974, 0.019998666}),
		safetensors.FromInt64s("model.layers.0.self_attn.rotary_emb.positions", []int{2}, []int64{math.MinInt64, math.MaxInt64}))
	code, out, stderr := runCLI(t, "show", p, "--values", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{" -0.416147 ", " 0.9998 ", " 0.0199987 ", " 0.909297 ", "  values: 0.5403023058681398 -0.4161468365471424 0.9998000066665778\n", "-9223372036854775808"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var head [][2]int
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "tensor "):
			head = fieldSpans(l)
		case head == nil || l == "" || strings.HasPrefix(l, " "):
		default:
			rows++
			got := fieldSpans(l)
			ok := len(got) == len(head)
			for i := 0; ok && i < len(head); i++ {
				// name, dtype and shape are left-aligned; the figures right-aligned.
				ok = i < 3 && got[i][0] == head[i][0] || i >= 3 && got[i][1] == head[i][1]
			}
			if !ok {
				t.Errorf("row %q is out of line with the header:\n%s", l, out)
			}
		}
	}
	if rows != 3 {
		t.Errorf("%d rows, want 3:\n%s", rows, out)
	}
	code, out, _ = runCLI(t, "show", p, "--tensor", "cos", "--json")
	var got struct{ Tensors []map[string]any }
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Tensors) != 1 {
		t.Fatalf("exit %d %v: %s", code, err, out)
	}
	if r := got.Tensors[0]; r["min"] != cos[1] || r["max"] != cos[2] {
		t.Errorf("JSON min/max %v %v, want %v %v", r["min"], r["max"], cos[1], cos[2])
	}
}

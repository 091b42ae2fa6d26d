package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// diffJSON runs diff --json and returns its rows by name.
func diffJSON(t *testing.T, args ...string) (int, map[string]map[string]any) {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"diff", "--json"}, args...)...)
	rows := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %q (stderr %q)", err, l, stderr)
		}
		rows[m["name"].(string)] = m
	}
	return code, rows
}

// TestDiffLayouts: [T,H,D] against [T,H·D] is compared and says so, and locates in the finer
// layout; a transposed shape of the same count is refused, without figures.
func TestDiffLayouts(t *testing.T) {
	dir := t.TempDir()
	v := randomHeads(4*3*8, 5)
	a := writeTensors(t, dir, "a.safetensors", encodeAs(tensor.F32, "query", []int{4, 3, 8}, v))
	flat := writeTensors(t, dir, "flat.safetensors", encodeAs(tensor.F32, "query", []int{4, 24}, v))
	code, out, stderr := runCLI(t, "diff", flat, a)
	if code != 0 || !strings.Contains(out, "note: shape [4,24] vs [4,3,8]: compared element by element in row-major order") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	w := append([]float32(nil), v...)
	w[(1*3+2)*8+6] += 0.5
	bad := writeTensors(t, dir, "bad.safetensors", encodeAs(tensor.F32, "query", []int{4, 3, 8}, w))
	code, out, _ = runCLI(t, "diff", flat, bad)
	if code != 1 || !strings.Contains(out, "at token 1, head 2, dim 6: A ") {
		t.Errorf("flat against a wrong element: exit %d\n%s", code, out)
	}
	tr := writeTensors(t, dir, "tr.safetensors", encodeAs(tensor.F32, "query", []int{3, 4, 8}, v))
	code, out, _ = runCLI(t, "diff", a, tr)
	if code != 1 || !strings.Contains(out, "query                    not compared: shape [4,3,8] vs [3,4,8]: the same 96 elements in another order") {
		t.Errorf("transposed: exit %d\n%s", code, out)
	}
	code, rows := diffJSON(t, a, tr)
	if r := rows["query"]; code != 1 || r["compared"] != false || r["max_abs_err"] != nil || r["problem"] == nil || r["dtype"] != "F32" || r["shape_b"] == nil {
		t.Errorf("refused JSON row %v", r)
	}
	extra := writeTensors(t, dir, "extra.safetensors", encodeAs(tensor.F32, "query", []int{4, 3, 8}, v), safetensors.FromInt64s("positions", []int{2}, []int64{0, 1}))
	code, rows = diffJSON(t, a, extra)
	if r := rows["positions"]; code != 1 || r["problem"] != "only in B" || r["dtype_b"] != "I64" || r["dtype"] != nil || r["max_ulp"] != nil {
		t.Errorf("only in B: JSON row %v", r)
	}
}

// TestDiffDTypes: a wider float is rounded to the narrower before comparing, and the note
// says which; integers of two widths compare exactly; a float against an integer is refused.
func TestDiffDTypes(t *testing.T) {
	dir := t.TempDir()
	v := randomHeads(64, 7)
	f32 := writeTensors(t, dir, "f32.safetensors", encodeAs(tensor.F32, "x", []int{8, 8}, v))
	bf := writeTensors(t, dir, "bf16.safetensors", encodeAs(tensor.BF16, "x", []int{8, 8}, v))
	f16 := writeTensors(t, dir, "f16.safetensors", encodeAs(tensor.F16, "x", []int{8, 8}, v))
	code, out, stderr := runCLI(t, "diff", f32, bf)
	if code != 0 || !strings.Contains(out, "note: dtype F32 vs BF16: A rounded to BF16 (the narrower) before comparing") || !strings.Contains(out, "x                        BF16") {
		t.Errorf("F32 vs its BF16 rounding: exit %d\n%s%s", code, out, stderr)
	}
	// Only the F16 side is rounded (BF16 has fewer significant bits); the note names it.
	if code, out, _ := runCLI(t, "diff", f16, bf); code != 0 || !strings.Contains(out, "note: dtype F16 vs BF16: A rounded to BF16 (fewer significant bits) before comparing") {
		t.Errorf("F16 vs BF16: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "diff", bf, f16); code != 0 || !strings.Contains(out, "note: dtype BF16 vs F16: B rounded to BF16 (fewer significant bits) before comparing") {
		t.Errorf("BF16 vs F16: exit %d\n%s", code, out)
	}
	w := append([]float32(nil), v...)
	w[9] = -w[9]
	bad := writeTensors(t, dir, "bad.safetensors", encodeAs(tensor.BF16, "x", []int{8, 8}, w))
	code, rows := diffJSON(t, f32, bad)
	r := rows["x"]
	if code != 1 || r["compared_as"] != "BF16" || r["dtype"] != "F32" || r["dtype_b"] != "BF16" || r["over_tolerance"] != float64(1) {
		t.Errorf("F32 vs a wrong BF16: exit %d row %v", code, r)
	}
	if idx, _ := json.Marshal(r["worst"].([]any)[0].(map[string]any)["index"]); string(idx) != "[1,1]" {
		t.Errorf("worst index %s, want [1,1]", idx)
	}
	i32 := writeTensors(t, dir, "i32.safetensors", safetensors.FromInt32s("x", []int{2}, []int32{1, -7}))
	i64 := writeTensors(t, dir, "i64.safetensors", safetensors.FromInt64s("x", []int{2}, []int64{1, -7}))
	if code, out, _ := runCLI(t, "diff", i32, i64); code != 0 || !strings.Contains(out, "compared as integers") {
		t.Errorf("I32 vs I64: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "diff", i64, f32); code != 1 || !strings.Contains(out, "not compared: dtype I64 vs F32") {
		t.Errorf("I64 vs F32: exit %d\n%s", code, out)
	}
}

// TestDiffIntegersPast2p53: I64 values that float64 would merge still differ, and the
// located element prints both exactly, in text and JSON.
func TestDiffIntegersPast2p53(t *testing.T) {
	dir := t.TempDir()
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromInt64s("p", []int{1}, []int64{1 << 60}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromInt64s("p", []int{1}, []int64{1<<60 + 1}))
	if code, out, _ := runCLI(t, "diff", a, b); code != 1 || !strings.Contains(out, "1 elements over tolerance") ||
		!strings.Contains(out, "at dim0 0: A 1152921504606846976, B 1152921504606846977 (abs err 1,") {
		t.Errorf("exit %d\n%s", code, out)
	}
	_, out, _ := runCLI(t, "diff", "--json", a, b)
	if !strings.Contains(out, `"a":1152921504606846976,"b":1152921504606846977,`) {
		t.Errorf("JSON %s", out)
	}
}

// TestDiffShow: --show N lists the N worst elements, worst first, and counts the rest.
func TestDiffShow(t *testing.T) {
	dir := t.TempDir()
	v := make([]float32, 10)
	w := make([]float32, 10)
	for i := range w {
		w[i] = float32(i) / 8 // element i is off by i/8
	}
	a := writeTensors(t, dir, "a.safetensors", encodeAs(tensor.F32, "x", []int{10}, v))
	b := writeTensors(t, dir, "b.safetensors", encodeAs(tensor.F32, "x", []int{10}, w))
	code, out, _ := runCLI(t, "diff", a, b, "--show", "2", "--atol", "0.2")
	if code != 1 || !strings.Contains(out, "  at dim0 9: A 0, B 1.125") || !strings.Contains(out, "  at dim0 8: A 0, B 1") ||
		strings.Contains(out, "dim0 7") || !strings.Contains(out, "… and 6 more over tolerance") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if strings.Index(out, "dim0 9") > strings.Index(out, "dim0 8") {
		t.Errorf("not worst first:\n%s", out)
	}
	if _, out, _ := runCLI(t, "diff", a, b, "--show", "0"); strings.Contains(out, "  at ") {
		t.Errorf("--show 0 located elements:\n%s", out)
	}
}

// TestDiffNaNJSON: NaN and infinite values of located elements are JSON strings.
func TestDiffNaNJSON(t *testing.T) {
	dir := t.TempDir()
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromFloat32s("x", []int{2}, []float32{1, float32(math.Inf(1))}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromFloat32s("x", []int{2}, []float32{float32(math.NaN()), 2}))
	code, rows := diffJSON(t, a, b)
	ws := rows["x"]["worst"].([]any)
	if code != 1 || len(ws) != 2 || ws[0].(map[string]any)["b"] != "NaN" || ws[1].(map[string]any)["a"] != "+Inf" {
		t.Errorf("exit %d worst %v", code, ws)
	}
}

// TestDiffNonFiniteFails: a NaN or infinity on one side only is over any tolerance, --max-ulp
// at its largest included, and makes the NMSE infinite as it makes the max abs error; NaN on
// both sides, and equal infinities, are equal.
func TestDiffNonFiniteFails(t *testing.T) {
	dir := t.TempDir()
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromFloat32s("x", []int{5}, []float32{1, 2, nan, inf, 3}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromFloat32s("x", []int{5}, []float32{nan, inf, nan, inf, 3}))
	for _, ulp := range []string{"1", "9223372036854775807"} {
		code, rows := diffJSON(t, a, b, "--max-ulp", ulp, "--atol", "1e300")
		r := rows["x"]
		if code != 1 || r["over_tolerance"] != float64(2) || r["nmse"] != math.MaxFloat64 || r["max_abs_err"] != math.MaxFloat64 {
			t.Errorf("--max-ulp %s: exit %d row %v", ulp, code, r)
		}
	}
	code, out, _ := runCLI(t, "diff", a, b)
	if code != 1 || !strings.Contains(out, "+Inf      inf         +Inf 2 elements over tolerance") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

// TestDiffLargeF64: F64 values whose squares overflow still give an NMSE (here
// (2e200)²/(1e200² + 1) = 4), and --json still encodes the row.
func TestDiffLargeF64(t *testing.T) {
	dir := t.TempDir()
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromFloat64s("x", []int{2}, []float64{1e200, 1}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromFloat64s("x", []int{2}, []float64{-1e200, 1}))
	code, rows := diffJSON(t, a, b)
	if r := rows["x"]; code != 1 || r["nmse"] != float64(4) || r["over_tolerance"] != float64(1) {
		t.Errorf("exit %d row %v", code, r)
	}
	if code, out, _ := runCLI(t, "diff", a, b); code != 1 || !strings.Contains(out, "2e+200      inf            4 1 elements over tolerance") {
		t.Errorf("exit %d\n%s", code, out)
	}
	// Differences that overflow float64 themselves, twice: an infinite NMSE, not NaN.
	a = writeTensors(t, dir, "a2.safetensors", safetensors.FromFloat64s("x", []int{2}, []float64{1.7e308, -1.7e308}))
	b = writeTensors(t, dir, "b2.safetensors", safetensors.FromFloat64s("x", []int{2}, []float64{-1.7e308, 1.7e308}))
	code, rows = diffJSON(t, a, b)
	if r := rows["x"]; code != 1 || r["nmse"] != math.MaxFloat64 || r["over_tolerance"] != float64(2) {
		t.Errorf("overflowing differences: exit %d row %v", code, r)
	}
}

// TestDiffIntegerULP: an integer's unit in the last place is 1, so an integer pair's ULP figure
// is its difference (not "inf"), in the table, the located elements and JSON; integers still
// must be equal whatever --max-ulp and --atol say, and the note says so.
func TestDiffIntegerULP(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		a, b safetensors.Tensor
	}{
		{"I8", safetensors.FromInt8s("x", []int{3}, []int8{1, 2, -3}), safetensors.FromInt8s("x", []int{3}, []int8{1, 5, -3})},
		{"U8", safetensors.Tensor{Name: "x", DType: "U8", Shape: []int{3}, Data: []byte{1, 2, 3}}, safetensors.Tensor{Name: "x", DType: "U8", Shape: []int{3}, Data: []byte{1, 5, 3}}},
		{"I32", safetensors.FromInt32s("x", []int{3}, []int32{1, 2, -3}), safetensors.FromInt32s("x", []int{3}, []int32{1, -1, -3})},
		{"I64", safetensors.FromInt64s("x", []int{3}, []int64{1, 2, -3}), safetensors.FromInt64s("x", []int{3}, []int64{1, 5, -3})},
	} {
		a := writeTensors(t, dir, c.name+"a.safetensors", c.a)
		b := writeTensors(t, dir, c.name+"b.safetensors", c.b)
		code, out, _ := runCLI(t, "diff", a, b, "--max-ulp", "5", "--atol", "5")
		lines := strings.Split(out, "\n")
		if code != 1 || len(lines) < 2 || len(strings.Fields(lines[1])) < 5 || strings.Fields(lines[1])[4] != "3" ||
			!strings.Contains(out, "(abs err 3, 3 ulp)") || strings.Contains(out, "inf") || !strings.Contains(out, "note: integers must be equal") {
			t.Errorf("%s: exit %d\n%s", c.name, code, out)
		}
		_, rows := diffJSON(t, a, b)
		r := rows["x"]
		if w, _ := r["worst"].([]any); r["max_ulp"] != float64(3) || len(w) != 1 || w[0].(map[string]any)["ulp"] != float64(3) {
			t.Errorf("%s: JSON row %v", c.name, r)
		}
	}
	// Equal integers have no note.
	a := writeTensors(t, dir, "eq.safetensors", safetensors.FromInt64s("x", []int{2}, []int64{4, 5}))
	if code, out, _ := runCLI(t, "diff", a, a); code != 0 || strings.Contains(out, "note:") {
		t.Errorf("equal integers: exit %d\n%s", code, out)
	}
}

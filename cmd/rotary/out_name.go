package main

import (
	"path/filepath"
	"strings"
)

// checkSafetensorsOut refuses an --out named NAME.npy for a command that writes a safetensors
// file: every reader (apply --in, verify, diff, show) takes a name ending in .npy for NumPy's
// format, so the file would not read back. hint says how to get .npy files instead.
func checkSafetensorsOut(out, hint string) error {
	if !strings.EqualFold(filepath.Ext(out), ".npy") {
		return nil
	}
	return usagef("--out %s: this command writes a safetensors file, which the readers would take for a .npy file by its name: name it .safetensors%s", out, hint)
}

package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/rotary-go/rotary/golden"
)

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	info, ok := debug.ReadBuildInfo()
	goVersion := "unknown"
	if ok {
		goVersion = info.GoVersion
	}
	_, err := fmt.Fprintf(stdout, "rotary %s (%s)\n", golden.Version(), goVersion)
	return err
}

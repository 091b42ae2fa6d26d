package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// buildVersion is the module version of this binary, with the VCS revision (and "+dirty" for a
// modified tree) when the build recorded them: what goldens record and `rotary version` prints.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return v
}

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
	_, err := fmt.Fprintf(stdout, "rotary %s (%s)\n", buildVersion(), goVersion)
	return err
}

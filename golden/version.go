package golden

import (
	"runtime/debug"
)

// modulePath is this module's path, to find its version among a program's dependencies.
const modulePath = "github.com/rotary-go/rotary"

// Version is this module's version in the running binary, with the VCS revision (and "+dirty"
// for a modified tree) when the build recorded them: what a bundle records as rotary_version.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if info.Main.Path != modulePath {
		// rotary is a dependency of the program: its version is the one go.mod required.
		for _, d := range info.Deps {
			if d.Path == modulePath {
				return d.Version
			}
		}
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

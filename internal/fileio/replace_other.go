//go:build !linux

package fileio

import (
	"io/fs"
	"os"
)

func openUnnamed(string, string, fs.FileMode) (*os.File, error) { return nil, errNoTmpfile }

// linkUnnamed is never reached: openUnnamed never makes an unnamed file here.
func (r *Replacement) linkUnnamed() error { return errNoTmpfile }

//go:build !unix

package fileiotest

import (
	"errors"
	"os"
)

var errNoFIFO = errors.New("named pipes are a unix feature")

func mkfifo(string) error { return errNoFIFO }

func openWriteEnd(string) (*os.File, error) { return nil, errNoFIFO }

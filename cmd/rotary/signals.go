//go:build !plan9

package main

import (
	"os"
	"syscall"
)

// exitSignals are the signals removeTempsOnSignal handles, with the exit code a shell
// shows for each (128 + its number).
var exitSignals = map[os.Signal]int{
	os.Interrupt:    128 + int(syscall.SIGINT),
	syscall.SIGTERM: 128 + int(syscall.SIGTERM),
	syscall.SIGHUP:  128 + int(syscall.SIGHUP),
}

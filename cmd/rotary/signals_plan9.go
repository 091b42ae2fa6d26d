package main

import "os"

// exitSignals: Plan 9 delivers notes, of which only the interrupt maps to a signal.
var exitSignals = map[os.Signal]int{os.Interrupt: 128 + 2}

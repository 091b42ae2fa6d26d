//go:build !unix

package fileio

import "os"

// openFlags is empty where opening a pipe or device does not block the way it does on
// Unix; the fstat that follows still refuses them.
const openFlags = 0

func blocking(*os.File) error { return nil }

// Package errs builds the errors that wrap a package's sentinel (hf.ErrConfig,
// multimodal.ErrInput, rope.ErrSpec, safetensors.ErrInvalid, ...), by which callers tell bad
// input from other failures with errors.Is. It uses the standard library only, so that rope,
// which must, can import it.
package errs

import "fmt"

// Wrapf returns an error that wraps sentinel, whose message is sentinel's message, ": ", then
// fmt.Sprintf(format, args...). Only sentinel is wrapped: an error among args is formatted
// into the message (%w is not one of format's verbs), so errors.Is reaches the package's
// sentinel and nothing else. sentinel must not be nil.
func Wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

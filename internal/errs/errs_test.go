package errs_test

import (
	"errors"
	"io"
	"testing"

	"github.com/rotary-go/rotary/internal/errs"
)

var errSentinel = errors.New("bad thing")

func TestWrapf(t *testing.T) {
	err := errs.Wrapf(errSentinel, "tensor %q: %d bytes", "w", 3)
	if !errors.Is(err, errSentinel) {
		t.Errorf("errors.Is(%v, sentinel) = false", err)
	}
	if got, want := err.Error(), `bad thing: tensor "w": 3 bytes`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// TestWrapfArgsNotWrapped: an error passed as an argument is text in the message, not a second
// cause: the sentinel is the one thing the packages promise errors.Is reaches.
func TestWrapfArgsNotWrapped(t *testing.T) {
	err := errs.Wrapf(errSentinel, "read: %v", io.ErrUnexpectedEOF)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v wraps its argument", err)
	}
	if got, want := err.Error(), "bad thing: read: unexpected EOF"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// TestWrapfFormatLiteral: format is a format even without arguments.
func TestWrapfFormatLiteral(t *testing.T) {
	if got, want := errs.Wrapf(errSentinel, "100%% sure").Error(), "bad thing: 100% sure"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

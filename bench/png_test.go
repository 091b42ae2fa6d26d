package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWritePNGRefusesSpecialFiles: --png goes through the same atomic replace as every other
// output, so a symlink is refused and left as it was, and a failed write leaves nothing.
func TestWritePNGRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := WritePNG(link, nil); err == nil {
		t.Errorf("WritePNG over a symlink: no error")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target changed: %q", b)
	}
	plain := filepath.Join(dir, "plain.png")
	if err := WritePNG(plain, nil); err != nil {
		t.Fatalf("WritePNG to a new file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("directory holds %d entries after the writes, want 3 (no temporary file left)", len(entries))
	}
}

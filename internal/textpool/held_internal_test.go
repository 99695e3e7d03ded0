package textpool

import (
	"strings"
	"testing"
)

// TestHeldCompressed: a pool holds a text compressed, in memory and in a
// file alike: a repetitive text in a tenth of its size.
func TestHeldCompressed(t *testing.T) {
	text := []byte(strings.Repeat("apiVersion: v1\nkind: ConfigMap\n", 4000))
	file, err := NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, p := range map[string]*Pool{"memory": New(), "file": file} {
		id, err := p.Put(text)
		if err != nil {
			t.Fatal(err)
		}
		held := p.texts[id]
		if n := len(held.packed) + held.n; n == 0 || n >= len(text)/10 {
			t.Errorf("%s: %d bytes held for a text of %d, want less than a tenth", name, n, len(text))
		}
	}
}

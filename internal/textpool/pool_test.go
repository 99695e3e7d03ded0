package textpool_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/repotool/repotool/internal/textpool"
)

// pools are the two kinds of Pool, in memory and in a file.
var pools = []struct {
	name string
	make func(t *testing.T) *textpool.Pool
}{
	{"memory", func(*testing.T) *textpool.Pool { return textpool.New() }},
	{"file", func(t *testing.T) *textpool.Pool {
		p, err := textpool.NewFile(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}},
}

// TestPool: a text put by several holders is held once and comes back
// byte for byte, for each, until the last takes it; Append does not let go;
// Release lets go without reading; an empty text is a text.
func TestPool(t *testing.T) {
	for _, pool := range pools {
		t.Run(pool.name, func(t *testing.T) { testPool(t, pool.make(t)) })
	}
}

func testPool(t *testing.T, p *textpool.Pool) {
	big := []byte(strings.Repeat("apiVersion: v1\nkind: ConfigMap\n", 4000))
	a1, err := p.Put(big)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := p.Put(bytes.Clone(big))
	b, _ := p.Put([]byte("other\n"))
	e, _ := p.Put(nil)
	if a1 != a2 || a1 == b || p.Len() != 3 {
		t.Fatalf("ids %d %d %d, %d texts held: want the same text once", a1, a2, b, p.Len())
	}
	for _, id := range []textpool.ID{a1, a1} {
		got, err := p.Append(nil, id)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("get: %v", err)
		}
	}
	for range 2 {
		got, err := p.Take(a1)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("take: %v", err)
		}
	}
	if _, err := p.Append(nil, a1); err == nil || p.Len() != 2 {
		t.Errorf("a text taken by its last holder is still held (%d texts)", p.Len())
	}
	if got, err := p.Take(e); err != nil || len(got) != 0 {
		t.Errorf("the empty text: %q %v", got, err)
	}
	// Release lets go for one holder without reading: b's second holder
	// still reads it, and after the last the text is gone.
	p.Put([]byte("other\n"))
	if err := p.Release(b); err != nil || p.Len() != 1 {
		t.Fatalf("release: %v, %d texts held", err, p.Len())
	}
	if got, err := p.Append(nil, b); err != nil || string(got) != "other\n" {
		t.Fatalf("a text released by one of two holders: %q %v", got, err)
	}
	if err := p.Release(b); err != nil || p.Len() != 0 {
		t.Errorf("released by its last holder: %v, %d texts held", err, p.Len())
	}
	if err := p.Release(b); err == nil {
		t.Error("a text let go was released again")
	}
}

// TestPoolFile: a Pool made by NewFile leaves no file behind (on a system
// that removes an open file, none from the start), and refuses texts once
// closed.
func TestPoolFile(t *testing.T) {
	dir := t.TempDir()
	p, err := textpool.NewFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []textpool.ID
	for i := range 300 {
		id, err := p.Put([]byte(strings.Repeat(fmt.Sprintf("line %d\n", i), i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		if got, err := p.Append(nil, id); err != nil || string(got) != strings.Repeat(fmt.Sprintf("line %d\n", i), i) {
			t.Fatalf("text %d: %v", i, err)
		}
	}
	if left, _ := os.ReadDir(dir); runtime.GOOS != "windows" && len(left) != 0 {
		t.Errorf("the pool's file is in %s while open", dir)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left in %s", len(left), dir)
	}
	if _, err := p.Put([]byte("x")); err == nil {
		t.Error("a closed pool took a text")
	}
	if _, err := p.Append(nil, ids[0]); err == nil {
		t.Error("a closed pool gave a text back")
	}
	if _, err := textpool.NewFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a pool was made in a folder that does not exist")
	}
}

// TestPoolConcurrent: holders on several goroutines (run with -race).
func TestPoolConcurrent(t *testing.T) {
	for _, pool := range pools {
		t.Run(pool.name, func(t *testing.T) { testPoolConcurrent(t, pool.make(t)) })
	}
}

func testPoolConcurrent(t *testing.T, p *textpool.Pool) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			text := []byte(strings.Repeat("x", 100+i%2))
			for range 50 {
				id, err := p.Put(text)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := p.Take(id); err != nil || !bytes.Equal(got, text) {
					t.Errorf("take: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if p.Len() != 0 {
		t.Errorf("%d texts held once every holder took its own", p.Len())
	}
}

// TestAppend: texts appended one after another make their concatenation.
func TestAppend(t *testing.T) {
	p := textpool.New()
	a, _ := p.Put([]byte("---\na: 1\n"))
	b, _ := p.Put([]byte("---\nb: 2\n"))
	out := []byte("#\n")
	for _, id := range []textpool.ID{a, b, a} {
		var err error
		if out, err = p.Append(out, id); err != nil {
			t.Fatal(err)
		}
	}
	if string(out) != "#\n---\na: 1\n---\nb: 2\n---\na: 1\n" {
		t.Errorf("%q", out)
	}
	if _, err := p.Append(nil, 99); err == nil {
		t.Error("a text never put was appended")
	}
}

// TestPoolClosedTwice: closing a pool of either kind again does nothing,
// and a closed pool neither takes nor gives texts.
func TestPoolClosedTwice(t *testing.T) {
	for _, pool := range pools {
		t.Run(pool.name, func(t *testing.T) {
			p := pool.make(t)
			id, err := p.Put([]byte("apiVersion: v1\n"))
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.Append(nil, id); err == nil {
				t.Error("a closed pool gave a text back")
			}
			if _, err := p.Put([]byte("x")); err == nil {
				t.Error("a closed pool took a text")
			}
		})
	}
}

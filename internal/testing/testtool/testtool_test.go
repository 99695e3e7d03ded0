package testtool

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestSharedBuild: test binaries building the same tool at once build it
// once, into the folder of the checkout's state, which is the same folder
// each time it is asked for.
func TestSharedBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds actionlint")
	}
	root := moduleRoot(t)
	d1, err := sharedDir(root)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := sharedDir(root)
	if d1 != d2 {
		t.Errorf("the shared folder moved: %s, then %s", d1, d2)
	}
	out := filepath.Join(t.TempDir(), "actionlint")
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = buildShared(root, "github.com/rhysd/actionlint/cmd/actionlint", out) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if info, err := os.Stat(out); err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("no executable at %s: %v", out, err)
	}
	if left, _ := filepath.Glob(out + ".*.tmp"); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

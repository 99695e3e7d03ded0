// Package golden compares test output with golden files under testdata/ and
// rewrites them when tests run with -update:
//
//	go test ./... -update
//
// Inside: golden-file comparison with the `-update` flag. Imported by tests
// only.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ with the current output")

// Update reports whether golden files are being rewritten.
func Update() bool { return *update }

// Check compares got with the golden file at path (normalising line endings)
// and fails the test with a diff when they differ. With -update it writes
// got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	got = bytes.ReplaceAll(got, []byte("\r\n"), []byte("\n"))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run the test with -update to create it): %v", err)
	}
	want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got; run with -update if the change is intended):\n%s",
			path, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}

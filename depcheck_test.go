package repotool_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryBoundaries keeps the library usable from other programs: no
// package under pkg/ may import cobra, the CLI, or argo-cd (whose types pin
// old Kubernetes libraries), and none may depend on the command packages.
func TestLibraryBoundaries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./pkg/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{
		"github.com/spf13/cobra",
		"github.com/spf13/pflag",
		"github.com/repotool/repotool/internal/cli",
		"github.com/repotool/repotool/cmd/",
		"github.com/argoproj/argo-cd",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("a pkg/ package depends on %s", dep)
			}
		}
	}
}

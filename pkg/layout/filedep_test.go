package layout_test

import (
	"errors"
	"testing"

	"github.com/repotool/repotool/pkg/layout"
)

// TestFileDependency: the one file:// rule the inputs, the renderer and
// its cycle check share: a relative path inside the repository is its
// folder, cleaned; an absolute one, or one above the root, leaves the
// repository; other repositories are not file:// ones.
func TestFileDependency(t *testing.T) {
	for _, tc := range []struct {
		dir, repo, want string
		ok              bool
		err             error
	}{
		{"namespaces/app", "file://../../charts/common", "charts/common", true, nil},
		{"namespaces/app", "file://./sub/", "namespaces/app/sub", true, nil},
		{"namespaces/app", "file://../..", ".", true, nil},
		{"namespaces/app", "file://../../..", "", true, layout.ErrLeavesRepository},
		{"namespaces/app", "file:///etc/charts", "", true, layout.ErrLeavesRepository},
		{"namespaces/app", "https://charts.example.com", "", false, nil},
		{"namespaces/app", "oci://registry.example.com/charts", "", false, nil},
	} {
		got, ok, err := layout.FileDependency(tc.dir, tc.repo)
		if got != tc.want || ok != tc.ok || !errors.Is(err, tc.err) {
			t.Errorf("%s %s: %q %v %v, want %q %v %v", tc.dir, tc.repo, got, ok, err, tc.want, tc.ok, tc.err)
		}
	}
}

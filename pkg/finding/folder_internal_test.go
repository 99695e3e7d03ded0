package finding

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFolderBlocks: findings folded past several blocks come back as they
// were added, merged by target, whatever block each was held in, and the
// blocks hold them compressed.
func TestFolderBlocks(t *testing.T) {
	var fo Folder
	want := map[string]*Finding{}
	var order []string
	size := 0
	for part := range 3 {
		for i := range 2000 {
			f := Finding{Rule: "project-permission", Severity: SeverityError, File: fmt.Sprintf("namespaces/ns-%04d/templates/role.yaml", i), Line: 3,
				Object:  fmt.Sprintf("rbac.authorization.k8s.io/v1/ClusterRole ns-%04d-admission", i),
				Message: fmt.Sprintf("ClusterRole ns-%04d-admission (cluster-scoped) is deployed by tier application, and AppProject ns-%04d does not permit it", i, i),
				Targets: []string{fmt.Sprintf("cluster-%03d/ns-%04d", part, i)}, Key: strings.Repeat("k", i%3)}
			if i%7 == 0 {
				f.Related = []Location{{File: "namespaces/ns-0000/templates/role.yaml", Line: 3, Object: f.Object, Target: "cluster-000/ns-0000", Message: "the same object, rendered first"}}
			}
			size += len(f.Message) + len(f.Object)
			fo.Add(f)
			k := string(f.appendKey(nil))
			if w, ok := want[k]; ok {
				w.Targets = append(w.Targets, f.Targets...)
				continue
			}
			c := f
			c.Targets = slices.Clone(f.Targets)
			want[k], order = &c, append(order, k)
		}
	}
	var all []Finding
	for _, k := range order {
		all = append(all, *want[k])
	}
	slices.SortFunc(all, compareFindings)
	if len(fo.blocks) < 2 {
		t.Fatalf("%d blocks for %d findings: want several", len(fo.blocks), len(all))
	}
	packed := 0
	for _, b := range fo.blocks {
		packed += len(b)
	}
	if packed > size/4 {
		t.Errorf("the full blocks take %d bytes for %d bytes of messages and objects and more: want them compressed", packed, size)
	}
	if diff := cmp.Diff(all, fo.Findings()); diff != "" {
		t.Errorf("folded (-want +got):\n%s", diff)
	}
}

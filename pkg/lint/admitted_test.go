package lint_test

import (
	"testing"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// TestAdmittedManifest: the admitted object takes its document's place
// after comments naming the change, a denied one stays as rendered after
// the reason, another target's admissions are passed by, and every other
// byte is the rendering's.
func TestAdmittedManifest(t *testing.T) {
	stream := "---\n# Source: a/templates/one.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n" +
		"---\n# Source: a/templates/two.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n" +
		"---\n# Source: a/templates/three.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: three\n"
	objs, err := manifest.Read([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	res := &render.Result{Target: layout.Target{Cluster: "c", Namespace: "a"}, Manifest: []byte(stream), Objects: objs}
	admitted := []lint.Admitted{
		{Target: "c/a", Object: 0, Content: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "one"},
			"data": map[string]any{"k": "v"}}, Changes: []lint.AdmissionChange{{Policy: "p", Binding: "b", Fields: []string{"/data/k"}}}},
		{Target: "c/a", Object: 2, Denied: "MutatingAdmissionPolicy q (binding r) denies it: no"},
		{Target: "c/other", Object: 1, Denied: "not this target's"},
	}
	got, err := lint.AdmittedManifest(res, admitted)
	if err != nil {
		t.Fatal(err)
	}
	want := "---\n# Source: a/templates/one.yaml\n# Admitted: " + admitted[0].Changes[0].String() + "\napiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: one\n" +
		"---\n# Source: a/templates/two.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n" +
		"---\n# Source: a/templates/three.yaml\n# Not admitted: MutatingAdmissionPolicy q (binding r) denies it: no\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: three\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

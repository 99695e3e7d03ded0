package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/render"
)

// TestValuesDocumentsBothHelms: lint's values rules read the documents of
// a values file that the renderer reads, under each Helm: Helm 3 the
// first, Helm 4 all of them merged. A key only the second document sets,
// which no template uses, is values-unused under Helm 4 (at its line) and
// not read at all under Helm 3; what renders follows the same document.
func TestValuesDocumentsBothHelms(t *testing.T) {
	useTestKey(t)
	repo := t.TempDir()
	testtool.WriteFiles(t, repo, map[string]string{
		"namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/values.yaml":         "level: info\n",
		"namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  level: {{ .Values.level | quote }}\n",
		"clusters/dev/a/dev-values-a.yaml": "level: debug\n---\nlevel: trace\nforgotten: true\n",
	})
	for _, tc := range []struct {
		helm, level string
		unused      bool
	}{{"v3", "debug", false}, {"v4", "trace", true}} {
		r, opts := loadCase(t, repo)
		opts.Render.Helm = tc.helm
		res, err := render.New(r, opts.Render).Render(context.Background(), &r.Targets[0])
		if err != nil || !strings.Contains(string(res.Manifest), `level: "`+tc.level+`"`) {
			t.Fatalf("helm %s renders %v:\n%s", tc.helm, err, res.Manifest)
		}
		out, err := lint.Lint(context.Background(), r, opts)
		if err != nil {
			t.Fatal(err)
		}
		unused := false
		for _, f := range out.Findings {
			if f.Rule == "values-unused" && strings.Contains(f.Message, "forgotten") {
				unused = true
				if f.File != "clusters/dev/a/dev-values-a.yaml" || f.Line != 4 {
					t.Errorf("helm %s: values-unused at %s:%d, want clusters/dev/a/dev-values-a.yaml:4", tc.helm, f.File, f.Line)
				}
			}
		}
		if unused != tc.unused {
			t.Errorf("helm %s: values-unused about the second document's key: %v, want %v\n%+v", tc.helm, unused, tc.unused, out.Findings)
		}
	}
}

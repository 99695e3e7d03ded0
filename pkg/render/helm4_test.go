package render_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/render"
)

// TestHelm4Differences backs what docs/render.md says of Helm 4, which
// Argo CD 3.5 and later use for native Helm sources while repotool renders
// as Helm 3.22: on every fixture target, `helm template` of helm 4 (built
// from the version go.mod pins) prints the same documents as helm 3 (whose
// bytes repotool matches: TestHelmParity), in the same order, but not the
// same bytes: Helm 4.2 and later keep each document's trailing newlines,
// so a blank line comes before most `---`.
func TestHelm4Differences(t *testing.T) {
	helm, helm4 := testtool.Helm(t), testtool.Helm4(t)
	useTestKey(t)
	repo := loadRepo(t, fixture)
	work := filepath.Join(t.TempDir(), "repo")
	vendorForHelm(t, helm, work, repo)
	separator := regexp.MustCompile(`(?m)^---[ \t]*$`)
	docs := func(out []byte) []string {
		var out2 []string
		for _, d := range separator.Split(string(out), -1) {
			if d = strings.TrimSpace(d); d != "" {
				out2 = append(out2, d)
			}
		}
		return out2
	}
	differ := 0
	for i := range repo.Targets {
		tg := &repo.Targets[i]
		v3 := helmTemplate(t, helm, work, tg, tg.KubeVersion, tg.APIVersions)
		v4 := helmTemplate(t, helm4, work, tg, tg.KubeVersion, tg.APIVersions)
		if d3, d4 := docs(v3), docs(v4); !slices.Equal(d3, d4) || len(d3) == 0 {
			t.Errorf("%s: helm 4 prints other documents than helm 3 (%d against %d)", tg.Name(), len(d4), len(d3))
		}
		if !bytes.Equal(v3, v4) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("helm 4 prints the same bytes as helm 3 on every target: docs/render.md's difference is gone")
	}
}

// TestHelmFromConfig: repotool.yaml's render.helm chooses the Helm a
// renderer matches, Options.Helm overrides it, and an unknown one fails
// every target rather than rendering as some other Helm.
func TestHelmFromConfig(t *testing.T) {
	files := map[string]string{
		"repotool.yaml":                   "render:\n  helm: v4\n",
		"namespaces/app/Chart.yaml":       "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"namespaces/app/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
		"clusters/c1/app/values.yaml":     "{}\n",
	}
	_, repo := writeRepo(t, files)
	tg, ok := repo.Target("c1", "app")
	if !ok {
		t.Fatalf("no target: %v", repo.Diagnostics)
	}
	const blank = "name: a\n\n---\n"
	for _, tt := range []struct {
		helm      string
		wantBlank bool
		fails     string
	}{
		{helm: "", wantBlank: true},
		{helm: render.HelmV3},
		{helm: render.HelmV4, wantBlank: true},
		{helm: "v5", fails: `unknown Helm version "v5"`},
	} {
		opts := render.DefaultOptions()
		opts.Helm = tt.helm
		res, err := render.New(repo, opts).Render(context.Background(), tg)
		switch {
		case tt.fails != "":
			if err == nil || !strings.Contains(err.Error(), tt.fails) {
				t.Errorf("Helm %q: %v, want it to fail with %q", tt.helm, err, tt.fails)
			}
		case err != nil:
			t.Errorf("Helm %q: %v", tt.helm, err)
		case bytes.Contains(res.Manifest, []byte(blank)) != tt.wantBlank:
			t.Errorf("Helm %q: blank line before --- is %v, want %v:\n%s", tt.helm, !tt.wantBlank, tt.wantBlank, res.Manifest)
		}
	}
}

// TestHelm4ValuesDocumentLine: under Helm 4 a values file's later YAML
// document that does not parse fails its target naming the file and the
// line: the repository's file as a layout error at the line of the
// mistake, the chart's values.yaml at the line that document starts at
// (the parser counts from there).
func TestHelm4ValuesDocumentLine(t *testing.T) {
	for name, tt := range map[string]struct{ file, want string }{
		"repository values": {"clusters/c1/app/values.yaml", "clusters/c1/app/values.yaml:5: error: not valid YAML: did not find expected ',' or ']' [values-invalid]"},
		"chart values":      {"namespaces/app/values.yaml", "cannot load values.yaml: cannot unmarshal yaml document (the document from line 5; "},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{
				"repotool.yaml":                   "render:\n  helm: v4\n",
				"namespaces/app/Chart.yaml":       "apiVersion: v2\nname: app\nversion: 1.0.0\n",
				"namespaces/app/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
				"clusters/c1/app/values.yaml":     "{}\n",
			}
			// The same document twice first: each is found after the one before.
			files[tt.file] = "a: 1\n---\na: 1\n---\nb: [1\n"
			_, repo := writeRepo(t, files)
			tg, ok := repo.Target("c1", "app")
			if !ok {
				t.Fatalf("no target: %v", repo.Diagnostics)
			}
			_, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), tg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v, want it to contain %q", err, tt.want)
			}
		})
	}
}

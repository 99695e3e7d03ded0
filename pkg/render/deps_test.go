package render_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

const (
	appChart = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
	libChart = "apiVersion: v2\nname: lib\nversion: 1.2.0\ntype: library\n"
	libTpl   = `{{- define "lib.cm" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  greeting: {{ .Values.greeting | quote }}
{{- end -}}
`
)

// TestDependencyCycleConcurrent: two namespace charts that depend on each
// other, rendered concurrently, entered the cycle from both ends and
// deadlocked in a share of runs (Ctrl-C did not end it). Each run must end
// with the cycle error for both targets.
func TestDependencyCycleConcurrent(t *testing.T) {
	repo := mapRepo(t, map[string]string{
		"namespaces/a/Chart.yaml":     "apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n  - name: b\n    repository: file://../b\n",
		"namespaces/b/Chart.yaml":     "apiVersion: v2\nname: b\nversion: 1.0.0\ndependencies:\n  - name: a\n    repository: file://../a\n",
		"clusters/c1/a/values-x.yaml": "x: 1\n",
		"clusters/c1/b/values-x.yaml": "x: 1\n",
		"clusters/c2/a/values-x.yaml": "x: 1\n",
		"clusters/c2/b/values-x.yaml": "x: 1\n",
	})
	for run := range 50 {
		opts := render.DefaultOptions()
		opts.Concurrency = 8
		done := make(chan []*render.Result)
		go func() { done <- render.New(repo, opts).RenderAll(context.Background(), repo.Targets) }()
		select {
		case results := <-done:
			for _, res := range results {
				if res.Err == nil || !strings.Contains(res.Err.Error(), "the file:// dependencies form a cycle") {
					t.Fatalf("run %d: %s: err = %v", run, res.Target.Name(), res.Err)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("run %d deadlocked", run)
		}
	}
}

func TestLocalDependencies(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // error substring; "" = renders
	}{
		{"file dependency", map[string]string{
			"lib/Chart.yaml":                   libChart,
			"lib/templates/_cm.tpl":            libTpl,
			"namespaces/app/Chart.yaml":        appChart + "dependencies:\n  - name: lib\n    version: \">=1.0.0\"\n    repository: file://../../lib\n",
			"namespaces/app/values.yaml":       "greeting: hello\n",
			"namespaces/app/templates/cm.yaml": "{{ include \"lib.cm\" . }}\n",
		}, ""},
		{"missing folder", map[string]string{
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: 1.2.0\n    repository: file://../../nope\n",
		}, `dependency "lib" (file://../../nope): nope/Chart.yaml does not exist; fix the path in namespaces/app/Chart.yaml`},
		{"version mismatch", map[string]string{
			"lib/Chart.yaml":            libChart,
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: ^2.0.0\n    repository: file://../../lib\n",
		}, "is version 1.2.0, which does not satisfy"},
		{"wrong name", map[string]string{
			"lib/Chart.yaml":            libChart,
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: other\n    version: 1.2.0\n    repository: file://../../lib\n",
		}, `named "lib", not "other"`},
		{"outside the repository", map[string]string{
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: 1.2.0\n    repository: file://../../../elsewhere\n",
		}, "leaves the repository"},
		{"cycle", map[string]string{
			"lib/Chart.yaml":            libChart + "dependencies:\n  - name: app\n    repository: file://../namespaces/app\n",
			"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    repository: file://../../lib\n",
		}, "the file:// dependencies form a cycle: lib -> namespaces/app -> lib"},
		{"template folder linked to its parent", map[string]string{
			"namespaces/app/Chart.yaml":     appChart,
			"namespaces/app/templates/loop": "symlink:..",
		}, "symbolic links form a loop"},
		{"template linked outside the repository", map[string]string{
			"namespaces/app/Chart.yaml":       appChart,
			"namespaces/app/templates/x.yaml": "symlink:../../../../etc/passwd",
		}, "symbolic link leads outside the repository"},
		{"helmignore honoured", map[string]string{
			"namespaces/app/Chart.yaml":            appChart,
			"namespaces/app/.helmignore":           "broken.yaml\n",
			"namespaces/app/templates/ok.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
			"namespaces/app/templates/broken.yaml": "{{ fail \"must be ignored\" }}\n",
		}, ""},
		{"template error", map[string]string{
			"namespaces/app/Chart.yaml":       appChart,
			"namespaces/app/templates/x.yaml": "{{ required \"image.tag is required\" .Values.image }}\n",
		}, "image.tag is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"clusters/c1/app/values-a.yaml": "a: 1\n"}
			for k, v := range tt.files {
				files[k] = v
			}
			repo := mapRepo(t, files)
			res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Objects) == 0 {
					t.Fatal("no objects rendered")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestChartLockLikeHelm: a Chart.lock `helm dependency update` wrote
// renders; once Chart.yaml's dependencies change under it (a dependency
// added, changed or removed), `helm dependency build` refuses the lock,
// and so does repotool, naming both files. A dependency's own stale lock
// is not the dependent's concern (helm does not read it either).
func TestChartLockLikeHelm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the helm CLI")
	}
	helm := testtool.Helm(t)
	base := map[string]string{
		"lib/Chart.yaml":                   libChart,
		"lib/templates/_cm.tpl":            libTpl,
		"namespaces/app/Chart.yaml":        appChart + "dependencies:\n  - name: lib\n    version: \">=1.0.0\"\n    repository: file://../../lib\n",
		"namespaces/app/values.yaml":       "greeting: hello\n",
		"namespaces/app/templates/cm.yaml": "{{ include \"lib.cm\" . }}\n",
		"clusters/c1/app/values-a.yaml":    "a: 1\n",
	}
	root := t.TempDir()
	testtool.WriteFiles(t, root, base)
	app := filepath.Join(root, "namespaces", "app")
	if out, err := exec.Command(helm, "dependency", "update", "--skip-refresh", app).CombinedOutput(); err != nil {
		t.Fatalf("helm dependency update: %v\n%s", err, out)
	}
	// repotool reads file:// dependencies from the repository, not charts/.
	if err := os.RemoveAll(filepath.Join(app, "charts")); err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(app, "Chart.lock"))
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		name  string
		files map[string]string
		stale bool
	}{
		{"as helm wrote it", nil, false},
		{"a dependency's own lock is stale", map[string]string{"lib/Chart.lock": "dependencies: []\ndigest: sha256:00\ngenerated: \"2026-01-01T00:00:00Z\"\n"}, false},
		{"constraint changed", map[string]string{"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: \"^1.0.0\"\n    repository: file://../../lib\n"}, true},
		{"dependency removed", map[string]string{"namespaces/app/Chart.yaml": appChart, "namespaces/app/templates/cm.yaml": "{}\n"}, true},
		{"digest emptied", map[string]string{"namespaces/app/Chart.lock": regexp.MustCompile(`(?m)^digest: .*$`).ReplaceAllString(string(lock), `digest: ""`)}, true},
	}
	for _, tt := range edits {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(root)); err != nil {
				t.Fatal(err)
			}
			testtool.WriteFiles(t, dir, tt.files)
			out, helmErr := exec.Command(helm, "dependency", "build", "--skip-refresh", filepath.Join(dir, "namespaces", "app")).CombinedOutput()
			if helmRefused := strings.Contains(string(out), "out of sync"); helmRefused != tt.stale {
				t.Fatalf("helm dependency build refused it: %v, want %v (%v)\n%s", helmRefused, tt.stale, helmErr, out)
			}
			os.RemoveAll(filepath.Join(dir, "namespaces", "app", "charts"))
			repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
			want := "chart namespaces/app/Chart.lock: the lock file is out of sync with the dependencies in namespaces/app/Chart.yaml"
			switch {
			case !tt.stale && err != nil:
				t.Fatal(err)
			case tt.stale && (err == nil || !strings.Contains(err.Error(), want)):
				t.Fatalf("err = %v, want it to contain %q", err, want)
			}
		})
	}
}

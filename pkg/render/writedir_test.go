package render_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/render"
)

// TestWriteDir: each rendering is written to <cluster>/<namespace>.yaml;
// the file a failed target left from an earlier run is removed and named,
// and the failure is returned with the others, not as the error.
func TestWriteDir(t *testing.T) {
	repo := mapRepo(t, map[string]string{
		"namespaces/ok/Chart.yaml":         "apiVersion: v2\nname: ok\nversion: 1.0.0\n",
		"namespaces/ok/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
		"clusters/c1/ok/values.yaml":       "a: 1\n",
		"namespaces/bad/Chart.yaml":        "apiVersion: v2\nname: bad\nversion: 1.0.0\n",
		"namespaces/bad/templates/cm.yaml": "{{ fail \"broken\" }}\n",
		"clusters/c1/bad/values.yaml":      "a: 1\n",
	})
	dir := t.TempDir()
	stale := filepath.Join(dir, "c1", "bad.yaml")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := render.New(repo, render.DefaultOptions()).WriteDir(context.Background(), dir, repo.Targets)
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 1 || len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), "broken") || len(res.Removed) != 1 || res.Removed[0] != stale {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("the failed target's old file is still there")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "c1", "ok.yaml")); err != nil || !strings.Contains(string(data), "name: ok") {
		t.Errorf("ok.yaml: %v\n%s", err, data)
	}
}

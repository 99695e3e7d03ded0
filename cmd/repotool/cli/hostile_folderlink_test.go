package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestHostileFolderLinks: a cluster folder that is a link to another
// cluster's, and a namespace folder that is a link to another target's,
// would deploy that cluster's values and secrets under their names. Each
// is a folder-link error that fails its targets in every command, and the
// plugin, asked for one, decrypts nothing.
func TestHostileFolderLinks(t *testing.T) {
	testtool.UseTestKey(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"clusters/stage-cluster": "prod-cluster", "clusters/dev-cluster/policies": "../prod-cluster/policies"} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	out, code := runCLI(t, "layout", dir)
	for _, want := range []string{"clusters/stage-cluster: error: the cluster folder is a symbolic link", "clusters/dev-cluster/policies: error: the namespace folder is a symbolic link"} {
		if code != cli.ExitFindings || !strings.Contains(out, want) {
			t.Errorf("layout: exit %d, want %q\n%s", code, want, out)
		}
	}
	out, code = runCLI(t, "render", dir, "-c", "stage-cluster", "-n", "namespace-a")
	if code == cli.ExitOK || !strings.Contains(out, "folder-link") {
		t.Errorf("render of the linked cluster's target: exit %d\n%s", code, out)
	}
	for _, tc := range []struct{ cluster, ns string }{{"stage-cluster", "namespace-a"}, {"dev-cluster", "policies"}} {
		env := cli.Env{Dir: filepath.Join(dir, "clusters", tc.cluster, tc.ns), Environ: []string{"ARGOCD_APP_NAME=" + tc.ns,
			"ARGOCD_APP_NAMESPACE=" + tc.ns, "ARGOCD_APP_SOURCE_PATH=clusters/" + tc.cluster + "/" + tc.ns, "REPOTOOL_CLUSTER=" + tc.cluster,
			"SOPS_AGE_KEY_FILE=" + testtool.TestKey(t)}}
		out, code := runCLIEnv(t, env, "render", "--argocd")
		if code == cli.ExitOK || strings.Contains(out, "kind:") {
			t.Errorf("plugin for %s/%s: exit %d\n%s", tc.cluster, tc.ns, code, out)
		}
	}
}

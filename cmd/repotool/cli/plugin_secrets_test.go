package cli_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/manifest"
)

// TestPluginSecrets: as the dry source of Argo CD's Source Hydrator (plugin
// env SECRETS), render --argocd prints Secrets as hydrate writes them:
// sealed, in the namespaces tier's stream (where the Secret would be), no
// Secret and no value of one in plain text; with SECRETS refuse the target
// fails, naming the Secrets; an unknown mode is refused.
func TestPluginSecrets(t *testing.T) {
	withKey(t, true)
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	testtool.WriteFiles(t, repo, map[string]string{"clusters/prod-cluster/sealed-secrets.pem": testtool.SealedSecretsCert()})
	dir := filepath.Join(repo, "clusters", "prod-cluster", "namespace-a")
	env := func(tier, secrets string) cli.Env {
		return cli.Env{Dir: dir, Environ: []string{"ARGOCD_APP_NAMESPACE=namespace-a", "ARGOCD_APP_SOURCE_PATH=clusters/prod-cluster/namespace-a",
			"ARGOCD_ENV_CLUSTER=prod-cluster", "ARGOCD_ENV_NAMESPACE=namespace-a", "REPOTOOL_CLUSTER=prod-cluster", "ARGOCD_ENV_TIER=" + tier, "ARGOCD_ENV_SECRETS=" + secrets}}
	}
	plain, code := runCLIEnv(t, env("namespaces", ""), "render", "--argocd")
	if code != cli.ExitOK || strings.Count(plain, "\nkind: Secret\n") != 2 {
		t.Fatalf("plain: exit %d\n%s", code, plain)
	}
	sec, code := runCLIEnv(t, env("namespaces", "sealed-secrets"), "render", "--argocd")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, sec)
	}
	if strings.Contains(sec, "\nkind: Secret\n") || strings.Count(sec, "\nkind: SealedSecret\n") != 2 {
		t.Errorf("namespaces tier, sealed:\n%s", sec)
	}
	objs, err := manifest.Read([]byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, o := range objs {
		for _, field := range []string{"data", "stringData"} {
			m, _ := o.Content[field].(map[string]any)
			for k, v := range m {
				s, _ := v.(string)
				decoded, _ := base64.StdEncoding.DecodeString(s)
				checked++
				for _, leak := range []string{s, string(decoded)} {
					if len(leak) >= 8 && strings.Contains(sec, leak) {
						t.Errorf("the sealed stream holds the value of %s's %s", o.Name, k)
					}
				}
			}
		}
	}
	if checked < 2 {
		t.Fatalf("only %d values of Secrets checked", checked)
	}
	app, code := runCLIEnv(t, env("application", "sealed-secrets"), "render", "--argocd")
	if code != cli.ExitOK || strings.Contains(app, "Secret\n") {
		t.Errorf("application tier: exit %d\n%s", code, app)
	}
	out, code := runCLIEnv(t, env("namespaces", "refuse"), "render", "--argocd")
	if code != cli.ExitFindings || !strings.Contains(out, "hydrate never writes in plain text") {
		t.Errorf("refuse: exit %d\n%s", code, out)
	}
	out, code = runCLIEnv(t, env("namespaces", "plain"), "render", "--argocd")
	if code != cli.ExitFindings || !strings.Contains(out, `unknown secrets mode "plain"`) {
		t.Errorf("an unknown mode: exit %d\n%s", code, out)
	}
}

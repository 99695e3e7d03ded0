package cli_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// The hostile-change suite: what a pull request can put in a repository
// must not make repotool contact a key service, run a program, or decrypt
// another team's target. Each case runs the commands a CI job runs on the
// change, with a loopback listener standing for every key service the
// change names and fake programs first on PATH.

const hostileSecret = "clusters/dev-cluster/namespace-c/dev-values-c.secret.yaml"

// hostileRepo is a committed copy of the fixture repository whose working
// tree holds edit's version of hostileSecret.
func hostileRepo(t *testing.T, edit func(orig []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, dir, "base")
	p := filepath.Join(dir, filepath.FromSlash(hostileSecret))
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// vaultKeys is a Vault transit key at url; enc is its data key's
// ciphertext.
func vaultKeys(url, enc string) map[string][]map[string]string {
	return map[string][]map[string]string{
		"hc_vault": {{"vault_address": url, "engine_path": "transit", "key_name": "stolen", "enc": enc, "created_at": "2026-11-01T00:00:00Z"}},
		"pgp":      {{"fp": "0123456789ABCDEF0123456789ABCDEF01234567", "enc": "-----BEGIN PGP MESSAGE-----\n\nAAAA\n-----END PGP MESSAGE-----\n", "created_at": "2026-11-01T00:00:00Z"}},
	}
}

func TestHostileKeysEveryCommand(t *testing.T) {
	testtool.UseTestKey(t)
	ran, _ := testtool.FakePrograms(t, "gpg", "gpg2")
	t.Setenv("SOPS_AGE_KEY_FILE", testtool.TestKey(t)) // FakePrograms moved HOME
	t.Setenv("VAULT_TOKEN", "ci-vault-token-canary")
	l := testtool.NewListener(t, testtool.VaultTransit("ci-vault-token-canary"))
	beside := hostileRepo(t, func(orig []byte) []byte {
		return testtool.SOPSWithKeys(t, orig, vaultKeys(l.URL, "vault:v1:AAAA"), false)
	})
	argocd := cli.Env{Dir: filepath.Join(beside, "clusters", "dev-cluster", "namespace-c"), Environ: []string{"ARGOCD_APP_NAME=namespace-c",
		"ARGOCD_APP_NAMESPACE=namespace-c", "ARGOCD_APP_SOURCE_PATH=clusters/dev-cluster/namespace-c", "REPOTOOL_CLUSTER=dev-cluster"}}

	// Beside the age key: every command works, with age alone.
	out, _ := runCLI(t, "lint", beside)
	if !strings.Contains(out, "sops-key-not-allowed") || !strings.Contains(unwrap(out), "HashiCorp Vault transit key "+l.URL) {
		t.Errorf("lint does not name the refused key:\n%s", out)
	}
	for _, args := range [][]string{{"render", beside, "-c", "dev-cluster", "-n", "namespace-c"}, {"diff", beside, "--base", "HEAD"}} {
		if out, code := runCLI(t, args...); code != cli.ExitOK {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
	if out, code := runCLIEnv(t, argocd, "render", "--argocd"); code != cli.ExitOK {
		t.Errorf("render --argocd: exit %d\n%s", code, out)
	}

	// As the only keys: the target fails, naming them.
	only := hostileRepo(t, func(orig []byte) []byte {
		return testtool.SOPSWithKeys(t, orig, vaultKeys(l.URL, "vault:v1:AAAA"), true)
	})
	out, code := runCLI(t, "render", only, "-c", "dev-cluster", "-n", "namespace-c")
	if code != cli.ExitFindings || !strings.Contains(out, hostileSecret) || !strings.Contains(out, "--allow-key hc_vault="+l.URL+"/v1/transit/keys/stolen") ||
		!strings.Contains(out, "PGP key 0123456789ABCDEF") {
		t.Errorf("render of a file with refused keys only: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "lint", only); code != cli.ExitFindings || !strings.Contains(out, "HashiCorp Vault transit key") {
		t.Errorf("lint of a file with refused keys only: exit %d\n%s", code, out)
	}
	if reqs := l.Requests(); len(reqs) > 0 {
		t.Errorf("a key service the change names was contacted: %v", reqs)
	}
	if r := ran(); len(r) > 0 {
		t.Errorf("programs ran: %v", r)
	}

	// Allowed by the operator (flag or environment): used as before.
	orig, err := os.ReadFile(filepath.Join(monorepo, filepath.FromSlash(hostileSecret)))
	if err != nil {
		t.Fatal(err)
	}
	enc := "vault:v1:" + base64.StdEncoding.EncodeToString(testtool.SOPSDataKey(t, orig))
	vaultOnly := hostileRepo(t, func(orig []byte) []byte {
		return testtool.SOPSWithKeys(t, orig, map[string][]map[string]string{"hc_vault": vaultKeys(l.URL, enc)["hc_vault"]}, true)
	})
	if out, code := runCLI(t, "render", vaultOnly, "-c", "dev-cluster", "-n", "namespace-c", "--allow-key", "hc_vault="+l.URL); code != cli.ExitOK {
		t.Errorf("an allowed Vault: exit %d\n%s", code, out)
	}
	env := cli.Env{Environ: []string{"REPOTOOL_ALLOW_KEYS=hc_vault=" + l.URL + "/v1/transit"}}
	if out, code := runCLIEnv(t, env, "render", vaultOnly, "-c", "dev-cluster", "-n", "namespace-c"); code != cli.ExitOK {
		t.Errorf("a Vault allowed by REPOTOOL_ALLOW_KEYS: exit %d\n%s", code, out)
	}
	want := "PUT /v1/transit/decrypt/stolen token=ci-vault-token-canary"
	if reqs := l.Requests(); !slices.Equal(reqs, []string{want, want}) {
		t.Errorf("requests = %v", reqs)
	}
	if out, code := runCLI(t, "render", vaultOnly, "--all", "--allow-key", "vault=x"); code != cli.ExitError || !strings.Contains(out, `unknown kind "vault"`) {
		t.Errorf("a malformed allowance: exit %d\n%s", code, out)
	}
}

// TestHostilePluginEnv: an Application's plugin env (ARGOCD_ENV_*), or a
// source path that is not a target's, cannot make the sidecar render a
// target of another cluster, of another namespace than the Application's
// destination, or of another tier; nothing is decrypted for it (the key
// command the sidecar's environment names never runs).
func TestHostilePluginEnv(t *testing.T) {
	testtool.UseTestKey(t)
	ran, _ := testtool.FakePrograms(t, "age-key-cmd")
	t.Setenv("SOPS_AGE_KEY_FILE", testtool.TestKey(t))
	t.Setenv("SOPS_AGE_KEY_CMD", "age-key-cmd")
	abs, err := filepath.Abs(monorepo)
	if err != nil {
		t.Fatal(err)
	}
	env := func(extra ...string) cli.Env {
		return cli.Env{Dir: abs, Environ: append([]string{"ARGOCD_APP_NAME=namespace-a", "ARGOCD_APP_SOURCE_PATH=."}, extra...)}
	}
	for _, tt := range []struct {
		name string
		env  cli.Env
		want string
	}{
		{"another cluster", env("REPOTOOL_CLUSTER=dev-cluster", "ARGOCD_APP_NAMESPACE=namespace-a", "ARGOCD_ENV_CLUSTER=prod-cluster"),
			"this sidecar serves cluster dev-cluster (REPOTOOL_CLUSTER), and the target is cluster prod-cluster's"},
		{"another namespace", env("REPOTOOL_CLUSTER=dev-cluster", "ARGOCD_APP_NAMESPACE=namespace-a", "ARGOCD_ENV_CLUSTER=dev-cluster",
			"ARGOCD_ENV_NAMESPACE=namespace-c"), "the Application deploys to namespace namespace-a (ARGOCD_APP_NAMESPACE), and the target is namespace namespace-c's"},
		{"another cluster's source path", cli.Env{Dir: filepath.Join(abs, "clusters", "prod-cluster", "namespace-a"), Environ: []string{
			"ARGOCD_APP_NAME=namespace-a", "ARGOCD_APP_SOURCE_PATH=clusters/prod-cluster/namespace-a", "ARGOCD_APP_NAMESPACE=namespace-a",
			"REPOTOOL_CLUSTER=dev-cluster"}}, "this sidecar serves cluster dev-cluster (REPOTOOL_CLUSTER), and the target is cluster prod-cluster's"},
		{"no sidecar cluster", env("ARGOCD_APP_NAMESPACE=namespace-a", "ARGOCD_ENV_CLUSTER=dev-cluster"), "set REPOTOOL_CLUSTER"},
		{"no destination namespace", env("REPOTOOL_CLUSTER=dev-cluster", "ARGOCD_ENV_CLUSTER=dev-cluster", "ARGOCD_ENV_NAMESPACE=namespace-c"),
			"no destination namespace"},
		{"the cluster tier for an application namespace", env("REPOTOOL_CLUSTER=dev-cluster", "ARGOCD_APP_NAMESPACE=namespace-a",
			"ARGOCD_ENV_CLUSTER=dev-cluster", "ARGOCD_ENV_TIER=cluster"), "the cluster tier renders only cluster-tier namespaces"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runCLIEnv(t, tt.env, "render", "--argocd")
			if code != cli.ExitFindings || !strings.Contains(out, tt.want) || !strings.Contains(out, "nothing was decrypted") {
				t.Errorf("exit %d, want a refusal saying %q:\n%s", code, tt.want, out)
			}
			if strings.Contains(out, "kind:") {
				t.Errorf("manifests were printed:\n%s", out)
			}
		})
	}
	if r := ran(); len(r) > 0 {
		t.Errorf("a refused rendering decrypted (the key command ran): %v", r)
	}
	out, code := runCLIEnv(t, env("REPOTOOL_CLUSTER=dev-cluster", "ARGOCD_APP_NAMESPACE=namespace-a", "ARGOCD_ENV_CLUSTER=dev-cluster"), "render", "--argocd")
	if code != cli.ExitOK || !strings.Contains(out, "kind:") {
		t.Errorf("the Application's own target: exit %d\n%s", code, out)
	}
	if r := ran(); len(r) == 0 {
		t.Error("the probe is blind: the key command did not run for the target that was decrypted")
	}
}

// TestAllowKeysFromTheBase: repotool.yaml's secrets.allowKeys is honoured
// from the base of a comparison, which was reviewed, and never from the
// head under review: a change that adds a Vault key to a file and allows
// it in its own repotool.yaml gets nothing contacted; the same allowance
// on the base revision decrypts through the allowed Vault at both sides.
func TestAllowKeysFromTheBase(t *testing.T) {
	testtool.UseTestKey(t)
	t.Setenv("VAULT_TOKEN", "ci-vault-token-canary")
	l := testtool.NewListener(t, testtool.VaultTransit("ci-vault-token-canary"))
	orig, err := os.ReadFile(filepath.Join(monorepo, filepath.FromSlash(hostileSecret)))
	if err != nil {
		t.Fatal(err)
	}
	enc := "vault:v1:" + base64.StdEncoding.EncodeToString(testtool.SOPSDataKey(t, orig))
	vaultOnly := testtool.SOPSWithKeys(t, orig, map[string][]map[string]string{"hc_vault": vaultKeys(l.URL, enc)["hc_vault"]}, true)
	allow := "\nsecrets:\n  allowKeys: [hc_vault=" + l.URL + "]\n"
	write := func(dir, file string, data []byte, add bool) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(file))
		if add {
			old, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = append(old, data...)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	head := hostileRepo(t, func([]byte) []byte { return vaultOnly })
	write(head, "repotool.yaml", []byte(allow), true)
	for _, args := range [][]string{{"diff", head, "--base", "HEAD"}, {"lint", head, "--changed-since", "HEAD"}} {
		if out, code := runCLI(t, args...); code == cli.ExitOK || !strings.Contains(out, "--allow-key hc_vault=") {
			t.Errorf("%v, allowance at the head only: exit %d\n%s", args, code, out)
		}
	}
	if reqs := l.Requests(); len(reqs) > 0 {
		t.Fatalf("the head's repotool.yaml allowed a key: %v", reqs)
	}

	base := t.TempDir()
	if err := os.CopyFS(base, os.DirFS(monorepo)); err != nil {
		t.Fatal(err)
	}
	write(base, "repotool.yaml", []byte(allow), true)
	write(base, hostileSecret, vaultOnly, false)
	testtool.GitCommit(t, base, "base")
	write(base, "clusters/dev-cluster/namespace-c/dev-values-c.yaml", []byte("\nextra: changed\n"), true)
	for _, args := range [][]string{{"diff", base, "--base", "HEAD"}, {"lint", base, "--changed-since", "HEAD"}} {
		if out, code := runCLI(t, args...); strings.Contains(out, "cannot decrypt") {
			t.Errorf("%v, allowance at the base: exit %d\n%s", args, code, out)
		}
	}
	if len(l.Requests()) == 0 {
		t.Error("the base's allowance was not used")
	}
}

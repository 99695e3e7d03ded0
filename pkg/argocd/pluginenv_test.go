package argocd_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/layout"
)

func TestParsePluginEnv(t *testing.T) {
	got := argocd.ParsePluginEnv([]string{
		"PATH=/bin",
		"ARGOCD_APP_NAME=dev-namespace-a",
		"ARGOCD_APP_NAMESPACE=namespace-a",
		"ARGOCD_APP_SOURCE_PATH=clusters/dev-cluster/namespace-a",
		"ARGOCD_ENV_TIER=namespace",
		"KUBE_VERSION=1.33.4+k3s1",
		"KUBE_API_VERSIONS=v1, apps/v1 ,,monitoring.coreos.com/v1/ServiceMonitor",
		"ARGOCD_ENV_CLUSTER=old",
		"ARGOCD_ENV_CLUSTER=dev-cluster",
	})
	want := argocd.PluginEnv{
		AppName: "dev-namespace-a", AppNamespace: "namespace-a", SourcePath: "clusters/dev-cluster/namespace-a",
		Cluster: "dev-cluster", Namespace: "namespace-a", Tier: "namespace", KubeVersion: "1.33.4+k3s1",
		APIVersions: []string{"v1", "apps/v1", "monitoring.coreos.com/v1/ServiceMonitor"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParsePluginEnv (-want +got):\n%s", diff)
	}
}

func TestPluginEnvRepoRoot(t *testing.T) {
	tests := []struct {
		source, cwd, want, err string
	}{
		{"clusters/dev/app", "/tmp/repo/clusters/dev/app", "/tmp/repo", ""},
		{"/clusters/dev/app/", "/tmp/repo/clusters/dev/app", "/tmp/repo", ""},
		{"", "/tmp/repo", "/tmp/repo", ""},
		{".", "/tmp/repo", "/tmp/repo", ""},
		{"clusters/dev/app", "/tmp/elsewhere", "", "does not end with"},
		{"../up", "/tmp/repo", "", "leaves the repository"},
	}
	for _, tt := range tests {
		got, err := argocd.PluginEnv{SourcePath: tt.source}.RepoRoot(filepath.FromSlash(tt.cwd))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("RepoRoot(%q, %q) err = %v, want %q", tt.source, tt.cwd, err, tt.err)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("RepoRoot(%q, %q) = %q, %v; want %q", tt.source, tt.cwd, got, err, tt.want)
		}
	}
}

func TestPluginEnvTarget(t *testing.T) {
	repo := loadFixture(t)
	tests := []struct {
		env  argocd.PluginEnv
		want string
		err  string
	}{
		{argocd.PluginEnv{SourcePath: "clusters/dev-cluster/namespace-a"}, "dev-cluster/namespace-a", ""},
		{argocd.PluginEnv{SourcePath: "clusters/dev-cluster/namespace-a", Cluster: "dev-cluster"}, "dev-cluster/namespace-a", ""},
		{argocd.PluginEnv{SourcePath: "namespaces/namespace-b", Cluster: "prod-cluster", Namespace: "namespace-b"}, "prod-cluster/namespace-b", ""},
		{argocd.PluginEnv{SourcePath: "clusters/dev-cluster/namespace-a", Cluster: "prod-cluster"}, "", "does not match the source path"},
		{argocd.PluginEnv{SourcePath: "namespaces/namespace-b", Namespace: "namespace-b"}, "", "cannot tell which target"},
		{argocd.PluginEnv{SourcePath: "clusters/prod-cluster/namespace-c"}, "", "no target prod-cluster/namespace-c"},
	}
	for _, tt := range tests {
		got, err := tt.env.Target(repo)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%+v: err = %v, want %q", tt.env, err, tt.err)
			}
			continue
		}
		if err != nil || got.Name() != tt.want {
			t.Errorf("%+v: got %v, %v; want %s", tt.env, got, err, tt.want)
		}
	}
}

// TestPluginEnvTargetTemplated: where layout.targets names the folders,
// a source path is a target's folder by that template, not by the default
// layout's, and the guess made before loading names no target.
func TestPluginEnvTargetTemplated(t *testing.T) {
	repo, err := layout.LoadDir(context.Background(), "../../testdata/adopt/projects", layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env       argocd.PluginEnv
		want, err string
	}{
		{argocd.PluginEnv{SourcePath: "projects/web/storefront/eu-1/prod"}, "eu-1/storefront", ""},
		{argocd.PluginEnv{SourcePath: "/projects/data/etl/eu-1/staging/"}, "eu-1/etl", ""},
		{argocd.PluginEnv{SourcePath: "projects/web/storefront/eu-1/prod", Cluster: "us-1"}, "", "does not match the source path"},
		{argocd.PluginEnv{SourcePath: "projects/web/storefront", Cluster: "us-1", Namespace: "storefront"}, "us-1/storefront", ""},
		{argocd.PluginEnv{SourcePath: "projects/web/storefront/eu-1"}, "", "projects/{team}/{namespace}/{cluster}/{env}"},
		{argocd.PluginEnv{SourcePath: "projects/web/storefront/ap-1/prod"}, "", "no target ap-1/storefront"},
	} {
		if ref := tc.env.TargetRef(); ref != nil && tc.env.Cluster == "" {
			t.Errorf("%+v: a guess before loading: %+v", tc.env, ref)
		}
		got, err := tc.env.Target(repo)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%+v: err = %v, want %q", tc.env, err, tc.err)
		case tc.err == "" && (err != nil || got.Name() != tc.want):
			t.Errorf("%+v: got %v, %v; want %s", tc.env, got, err, tc.want)
		}
	}
}

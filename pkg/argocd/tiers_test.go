package argocd_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// permits follows Argo CD's project rules: a cluster-scoped resource needs
// a clusterResourceWhitelist match; a namespaced one must match the
// namespace whitelist (all, when it is empty), no blacklist entry, and a
// destination namespace.
// permits asks the project model whether p permits a kind in namespace
// ("" for a cluster-scoped object) on the fixture's cluster.
func permits(p *argocd.AppProject, group, kind string, clusterScoped bool, namespace string) bool {
	if clusterScoped {
		namespace = ""
	} else if namespace == "" {
		namespace = "default"
	}
	server := "https://kubernetes.default.svc"
	if len(p.Spec.Destinations) > 0 {
		server = p.Spec.Destinations[0].Server
	}
	return p.Permits(argocd.GroupKind{Group: group, Kind: kind}, namespace, argocd.ApplicationDestination{Server: server, Name: p.Spec.Destinations[0].Name}) == nil
}

func TestTierPermissions(t *testing.T) {
	repo := loadFixture(t)
	projects, _ := generated(t, repo, "dev-cluster")
	security := newTiers(t, repo).SecurityKinds()
	clusterScoped := []argocd.GroupKind{
		{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"},
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, {Group: "external-secrets.io", Kind: "ClusterSecretStore"},
		{Group: "cert-manager.io", Kind: "ClusterIssuer"}, {Group: "storage.k8s.io", Kind: "StorageClass"},
	}
	for _, ns := range []string{"namespace-a", "namespace-b", "namespace-c"} {
		app := projects[ns]
		if app == nil {
			t.Fatalf("no application project for %s", ns)
		}
		for _, gk := range security {
			if permits(app, gk.Group, gk.Kind, gk.Kind == "Namespace", ns) {
				t.Errorf("application project %s permits the security kind %s/%s", ns, gk.Group, gk.Kind)
			}
			if gk.Kind != "Namespace" && !permits(projects["namespaces"], gk.Group, gk.Kind, false, ns) {
				t.Errorf("the namespaces project does not permit %s/%s in %s", gk.Group, gk.Kind, ns)
			}
		}
		if !permits(projects["namespaces"], "", "Namespace", true, "") {
			t.Error("the namespaces project cannot create the Namespace")
		}
		if permits(app, "apps", "Deployment", false, "namespace-b") && ns != "namespace-b" {
			t.Errorf("application project %s may deploy into another namespace", ns)
		}
		if !permits(app, "apps", "Deployment", false, ns) || !permits(app, "monitoring.coreos.com", "ServiceMonitor", false, ns) {
			t.Errorf("application project %s does not permit its own workloads", ns)
		}
	}
	for name, p := range projects {
		for _, gk := range clusterScoped {
			if got := permits(p, gk.Group, gk.Kind, true, ""); got != (name == "cluster") {
				t.Errorf("project %s permits cluster-scoped %s/%s: %v", name, gk.Group, gk.Kind, got)
			}
		}
	}
}

// TestEveryRenderedKindHasExactlyOneProject renders every fixture target
// and checks each object is permitted, in its namespace, by exactly one of
// its cluster's projects, and by the project of the Application that
// deploys it.
func TestEveryRenderedKindHasExactlyOneProject(t *testing.T) {
	testtool.UseTestKey(t)
	repo := loadFixture(t)
	tiers := newTiers(t, repo)
	for _, res := range render.New(repo, render.DefaultOptions()).RenderAll(context.Background(), repo.Targets) {
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		projects, apps := generated(t, repo, res.Target.Cluster)
		for _, o := range res.Objects {
			group, _, ok := strings.Cut(o.APIVersion, "/")
			if !ok {
				group = ""
			}
			_, err := tiers.TierOf(o.APIVersion, o.Kind)
			clusterScoped := err != nil || o.Kind == "Namespace" || o.Kind == "CustomResourceDefinition"
			var permitting []string
			for name, p := range projects {
				if permits(p, group, o.Kind, clusterScoped, res.Target.Namespace) {
					permitting = append(permitting, name)
				}
			}
			slices.Sort(permitting)
			if len(permitting) != 1 {
				t.Errorf("%s %s: permitted by projects %v, want exactly one", res.Target.Name(), o.ID(), permitting)
				continue
			}
			appName := res.Target.Namespace
			if res.Target.Tier == config.TierApplication {
				if tier, _ := tiers.TierOf(o.APIVersion, o.Kind); tier == config.ArgoTierNamespaces {
					appName += "-security"
				}
			}
			if app := apps[appName]; app == nil || app.Spec.Project != permitting[0] {
				t.Errorf("%s %s: deployed by application %q, which is not in project %s", res.Target.Name(), o.ID(), appName, permitting[0])
			}
		}
	}
}

// TestSplitLosesAndDoublesNothing: for every application target, the
// namespaces and application tiers together hold every rendered object
// exactly once (plus the Namespace the namespaces tier adds).
func TestSplitLosesAndDoublesNothing(t *testing.T) {
	testtool.UseTestKey(t)
	repo := loadFixture(t)
	tiers := newTiers(t, repo)
	for _, res := range render.New(repo, render.DefaultOptions()).RenderAll(context.Background(), repo.Targets) {
		if res.Target.Tier == config.TierCluster {
			all, err := tiers.Split(res.Target, res.Manifest, res.Objects, config.ArgoTierCluster)
			if err != nil || !bytes.Equal(all, res.Manifest) {
				t.Errorf("%s: the cluster tier must hold the whole rendering (%v)", res.Target.Name(), err)
			}
			if _, err := tiers.Split(res.Target, res.Manifest, res.Objects, config.ArgoTierApplication); err == nil {
				t.Errorf("%s: a cluster-tier target rendered as an application tier", res.Target.Name())
			}
			continue
		}
		count := map[string]int{}
		for _, tier := range []config.ArgoTier{config.ArgoTierNamespaces, config.ArgoTierApplication} {
			data, err := tiers.Split(res.Target, res.Manifest, res.Objects, tier)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range strings.Split(string(data), "---\n") {
				var obj struct {
					APIVersion string                `json:"apiVersion"`
					Kind       string                `json:"kind"`
					Metadata   struct{ Name string } `json:"metadata"`
				}
				if strings.TrimSpace(doc) == "" {
					continue
				}
				if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
					t.Fatal(err)
				}
				count[obj.APIVersion+"/"+obj.Kind+" "+obj.Metadata.Name]++
			}
		}
		if count["v1/Namespace "+res.Target.Namespace] != 1 {
			t.Errorf("%s: the namespaces tier does not create the Namespace", res.Target.Name())
		}
		delete(count, "v1/Namespace "+res.Target.Namespace)
		for _, o := range res.Objects {
			k := o.APIVersion + "/" + o.Kind + " " + o.Name
			if count[k] != 1 {
				t.Errorf("%s: %s appears %d times across the two tiers", res.Target.Name(), k, count[k])
			}
			delete(count, k)
		}
		if len(count) != 0 {
			t.Errorf("%s: tiers hold objects the rendering does not: %v", res.Target.Name(), count)
		}
	}
}

func TestSplitRejectsClusterScopedInApplicationNamespace(t *testing.T) {
	fsys := fstest.MapFS{
		"namespaces/app/Chart.yaml":          {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"namespaces/app/templates/role.yaml": {Data: []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: too-wide\n")},
		"clusters/c1/app/values.yaml":        {Data: []byte("a: 1\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, tier := range []config.ArgoTier{config.ArgoTierNamespaces, config.ArgoTierApplication} {
		_, err := newTiers(t, repo).Split(res.Target, res.Manifest, res.Objects, tier)
		if err == nil || !strings.Contains(err.Error(), "ClusterRole is cluster-scoped: only the cluster tier may create it") {
			t.Errorf("tier %s: err = %v", tier, err)
		}
	}
	if _, err := newTiers(t, repo).Split(res.Target, res.Manifest, res.Objects, "everything"); err == nil {
		t.Error("unknown tier accepted")
	}
}

// TestClusterScopedCustomKinds: the scope of a custom kind comes from its
// CRD wherever the chart ships it: crds/ folders without rendering (a
// packaged subchart's included), templates once rendered.
func TestClusterScopedCustomKinds(t *testing.T) {
	crd := func(kind string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: " + strings.ToLower(kind) + "s.acme.io}\n" +
			"spec: {group: acme.io, scope: Cluster, names: {kind: " + kind + ", plural: " + strings.ToLower(kind) + "s}, versions: [{name: v1, served: true, storage: true}]}\n"
	}
	fsys := fstest.MapFS{
		"namespaces/app/Chart.yaml":         {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"namespaces/app/crds/gadget.yaml":   {Data: []byte(crd("Gadget"))},
		"namespaces/app/templates/crd.yaml": {Data: []byte(crd("Widget"))},
		"namespaces/app/templates/crs.yaml": {Data: []byte("apiVersion: acme.io/v1\nkind: Widget\nmetadata: {name: w}\n")},
		"clusters/c1/app/values.yaml":       {Data: []byte("a: 1\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newTiers(t, repo).TierOf("acme.io/v1", "Gadget"); err == nil {
		t.Error("Gadget, cluster-scoped by a crds/ file, taken as namespaced")
	}
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	static, err := argocd.ChartCRDs(repo)
	if err != nil {
		t.Fatal(err)
	}
	tiers := argocd.NewTiers(repo, manifest.NewCRDs(append(static, manifest.CRDsOf(res.Objects)...)...))
	if _, err := tiers.TierOf("acme.io/v1", "Widget"); err == nil || !strings.Contains(err.Error(), "acme.io/v1 Widget is cluster-scoped") {
		t.Errorf("a cluster-scoped kind whose CRD is in templates: err = %v", err)
	}
	if _, err := newTiers(t, repo).TierOf("acme.io/v1", "Widget"); err != nil {
		t.Errorf("without the rendering, a kind of no known CRD is namespaced: %v", err)
	}
}

// newTiers builds the tiers of repo with the CRDs of its charts' crds/
// folders, as generate does.
func newTiers(t *testing.T, repo *layout.Repo) *argocd.Tiers {
	t.Helper()
	crds, err := argocd.ChartCRDs(repo)
	if err != nil {
		t.Fatal(err)
	}
	return argocd.NewTiers(repo, manifest.NewCRDs(crds...))
}

// TestNamespaceLabels: the Namespace the namespaces tier writes for an
// application namespace carries repotool.yaml's labels for it (quoted, in
// key order) and repotool's managed-by label, which they cannot replace;
// the Plan tells the same labels to lint.
func TestNamespaceLabels(t *testing.T) {
	fsys := fstest.MapFS{
		"repotool.yaml":                    {Data: []byte("namespaces:\n  app:\n    labels: {environment: prod, \"team.example.com/owner\": shop, app.kubernetes.io/managed-by: helm}\n")},
		"namespaces/app/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"namespaces/app/templates/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n")},
		"clusters/c1/app/c1-values.yaml":   {Data: []byte("a: 1\n")},
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	tiers := newTiers(t, repo)
	out, err := tiers.Split(res.Target, res.Manifest, res.Objects, config.ArgoTierNamespaces)
	if err != nil {
		t.Fatal(err)
	}
	want := "  labels:\n    app.kubernetes.io/managed-by: repotool\n    \"environment\": \"prod\"\n    \"team.example.com/owner\": \"shop\"\n"
	if !strings.Contains(string(out), want) {
		t.Errorf("namespaces tier:\n%s\nwant the labels\n%s", out, want)
	}
	var ns map[string]any
	if err := yaml.Unmarshal([]byte(strings.Split(string(out), "---\n")[1]), &ns); err != nil {
		t.Fatal(err)
	}
	labels, ok := tiers.NamespaceLabels("app")
	if got := ns["metadata"].(map[string]any)["labels"].(map[string]any); !ok || len(got) != len(labels) || got["environment"] != labels["environment"] || labels["app.kubernetes.io/managed-by"] != "repotool" {
		t.Errorf("NamespaceLabels %v (%v), written %v", labels, ok, got)
	}
}

package output_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/output"
)

// sharedRepo is the one input every layout format's golden is made from.
func sharedRepo() *layout.Repo {
	vals := []layout.ValueFile{
		{Path: "namespaces/shop/common-values-shop.yaml", Scope: layout.ScopeCommon},
		{Path: "namespaces/shop/common-values-shop.secret.yaml", Scope: layout.ScopeCommon, Secret: true},
		{Path: "clusters/prod/shop/prod-values-shop.yaml", Scope: layout.ScopeCluster},
	}
	return &layout.Repo{
		Clusters: []layout.Cluster{{Name: "prod", Dir: "clusters/prod", KubeVersion: "v1.33.0",
			Destination: config.Destination{Server: "https://kubernetes.default.svc"}, Namespaces: []string{"infra", "shop"}}},
		Namespaces: []layout.Namespace{
			{Name: "infra", Dir: "namespaces/infra", Tier: config.TierCluster, Chart: &layout.Chart{Dir: "namespaces/infra", Name: "infra", Version: "1.0.0"}, Values: []layout.ValueFile{}, Clusters: []string{"prod"}},
			{Name: "shop", Dir: "namespaces/shop", Tier: config.TierApplication, Chart: &layout.Chart{Dir: "namespaces/shop", Name: "shop", Version: "0.3.0"}, Values: vals[:2], Clusters: []string{"prod"}},
		},
		Targets: []layout.Target{
			{Cluster: "prod", Namespace: "infra", Tier: config.TierCluster, Dir: "clusters/prod/infra", ChartDir: "namespaces/infra", KubeVersion: "v1.33.0", Values: []layout.ValueFile{}},
			{Cluster: "prod", Namespace: "shop", Tier: config.TierApplication, Dir: "clusters/prod/shop", ChartDir: "namespaces/shop", KubeVersion: "v1.33.0", APIVersions: []string{"monitoring.coreos.com/v1"}, Values: vals},
			{Cluster: "prod", Namespace: "web", Tier: config.TierApplication, Dir: "charts/web", ChartDir: "charts/web", KubeVersion: "v1.33.0", Values: []layout.ValueFile{},
				App: &layout.App{Name: "web-prod", File: "argocd/web.yaml", Line: 12, ReleaseName: "web-prod", FromSet: true,
					Doc: []byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web-prod\nspec:\n  source:\n    path: charts/web\n")}},
		},
		Diagnostics: []layout.Diagnostic{
			{Severity: layout.SeverityError, Code: layout.CodeValuesInvalid, File: "clusters/prod/shop/prod-values-shop.yaml", Line: 3, Message: "not valid YAML: did not find expected key", Hint: "make it a YAML mapping"},
			{Severity: layout.SeverityWarning, Code: layout.CodeNamespaceUnused, File: "namespaces/old/Chart.yaml", Message: "namespace \"old\" has a chart but no cluster deploys it"},
		},
	}
}

func TestLayoutFormats(t *testing.T) {
	for _, name := range output.LayoutFormats() {
		t.Run(name, func(t *testing.T) {
			f, err := output.NewLayoutFormatter(name)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := f.Write(&buf, sharedRepo()); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "layout."+name+".golden"), buf.Bytes())
		})
	}
	if _, err := output.NewLayoutFormatter("yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestLayoutTextClean(t *testing.T) {
	f, _ := output.NewLayoutFormatter("text")
	var buf bytes.Buffer
	repo := sharedRepo()
	repo.Diagnostics = nil
	if err := f.Write(&buf, repo); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("no problems found")) || !bytes.Contains(buf.Bytes(), []byte("chart defaults only")) {
		t.Errorf("clean output:\n%s", buf.String())
	}
}

// TestLayoutJSONStreamed: the JSON format, which writes the targets one at
// a time, writes the bytes json.Encoder writes for the whole Repo, with
// targets, without, and with a target that holds errors and characters
// encoding/json escapes.
func TestLayoutJSONStreamed(t *testing.T) {
	f, err := output.NewLayoutFormatter("json")
	if err != nil {
		t.Fatal(err)
	}
	many := sharedRepo()
	odd := many.Targets[1]
	odd.Namespace, odd.Errors = "a<b>&\"c\"\n", []layout.Diagnostic{{Severity: layout.SeverityError, Code: layout.CodeValuesInvalid, File: "x", Message: "é\t\u2028"}}
	many.Targets = append(many.Targets, odd)
	none := sharedRepo()
	none.Targets = nil
	empty := sharedRepo()
	empty.Targets, empty.Clusters, empty.Namespaces, empty.Diagnostics = []layout.Target{}, nil, nil, nil
	for name, repo := range map[string]*layout.Repo{"shared": sharedRepo(), "three targets": many, "nil targets": none, "empty": empty} {
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(repo); err != nil {
			t.Fatal(err)
		}
		if err := f.Write(&got, repo); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: written\n%s\nwant json.Encoder's\n%s", name, got.Bytes(), want.Bytes())
		}
	}
}

package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/config"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantLine int
		wantMsg  string
	}{
		{"unknown top-level key", "git:\n  repoURL: x\nclsters: {}\n", 3, `unknown key "clsters"`},
		{"list where a mapping belongs", "clusters: [a, b]\n", 1, "expected a mapping (key: value) here, found a list"},
		{"string where a list belongs", "layout:\n  commonValues: abc\n", 2, "expected a list of strings here, found a string"},
		{"number where cluster settings belong", "clusters:\n  dev: 5\n", 2, "expected a mapping of settings here, found a number"},
		{"rule severity that is not one", "lint:\n  rules:\n    schema: {severity: fatal}\n", 3, "lint.rules.schema.severity: \"fatal\" is not a severity"},
		{"unknown nested key", "clusters:\n  dev:\n    kubeVersion: v1.30.0\n    kubeversion: v1.31.0\n", 4, `unknown key "kubeversion"`},
		{"wrong type", "clusters:\n  dev:\n    apiVersions: monitoring.coreos.com/v1\n", 3, "expected a list of strings here, found a string"},
		{"invalid YAML", "git:\n  repoURL: [x\n", 2, "not valid YAML"},
		{"number for a certificate", "hydrate:\n  clusters:\n    dev:\n      certificate: 5\n", 4,
			"hydrate.clusters.dev.certificate: expected a string (quote it) here, found a number"},
		{"number for a kube version", "clusters:\n  dev:\n    kubeVersion: 1.30\n", 3, "expected a string (quote it) here, found a number"},
		{"yes for a feature gate", "clusters:\n  dev:\n    featureGates:\n      MutatingAdmissionPolicy: yes\n", 4,
			`clusters.dev.featureGates.MutatingAdmissionPolicy: expected true or false here, found the string "yes"`},
		{"quoted boolean for a feature gate", "clusters:\n  dev:\n    featureGates:\n      MutatingAdmissionPolicy: \"true\"\n", 4,
			"expected true or false here"},
		{"empty branch prefix", "argocd:\n  hydrated:\n    branchPrefix: \"\"\n", 3, "an empty prefix names each branch after its cluster alone"},
		{"not a mapping", "- a\n- b\n", 1, "must be a mapping"},
		{"two documents", "git: {}\n---\ngit: {}\n", 2, "single YAML document"},
		{"bad kube version", "clusters:\n  dev:\n    kubeVersion: latest\n", 3, `"latest" is not a Kubernetes version`},
		{"kube version 2.x", "defaults:\n  kubeVersion: v2.0.0\n", 2, "not a Kubernetes 1.x version"},
		{"bad api version", "defaults:\n  apiVersions: [\"Monitoring/v1\"]\n", 2, "is not an API version"},
		{"provided without a name", "defaults:\n  provided: [\"Secret\"]\n", 2, `defaults.provided: "Secret" must be "Kind name" or "Kind namespace/name"`},
		{"provided with a bad glob", "clusters:\n  dev:\n    provided: [\"Secret shop/[a\"]\n", 3, "the name is not a valid glob"},
		{"bad tier", "namespaces:\n  argocd:\n    tier: platform\n", 3, `"platform" is not a tier`},
		{"applications outside", "applications:\n  paths: [\"../argocd/*.yaml\"]\n", 2, "is not a glob of files inside the repository"},
		{"applications bad glob", "applications:\n  paths: [\"argocd/[a.yaml\"]\n", 2, "is not a glob of files inside the repository"},
		{"applications cluster twice", "applications:\n  paths: [\"{cluster}/{cluster}/*.yaml\"]\n", 2, "{cluster} must be a whole folder name, once"},
		{"applications cluster in a name", "applications:\n  paths: [\"argocd/x-{cluster}/*.yaml\"]\n", 2, "{cluster} must be a whole folder name, once"},
		{"applications cluster after **", "applications:\n  paths: [\"argocd/**/{cluster}/*.yaml\"]\n", 2, "{cluster} cannot follow **"},
		{"bad cluster name", "clusters:\n  Dev_Cluster: {}\n", 2, "not a valid name"},
		{"bad pattern", "layout:\n  clusterValues: [\"[a-\"]\n", 2, "not a file-name pattern"},
		{"pattern with slash", "layout:\n  commonValues: [\"a/*.yaml\"]\n", 2, "not a file-name pattern"},
		{"bad dir", "layout:\n  clustersDir: ../clusters\n", 2, "relative folder inside the repository"},
		{"same dirs", "layout:\n  clustersDir: x\n  namespacesDir: x\n", 1, "must be different folders"},
		{"bad secret suffix", "layout:\n  secretSuffixes: [secret.yaml]\n", 2, "must be a file-name suffix"},
		{"sync option without a value", "argocd:\n  tiers:\n    cluster:\n      syncOptions: [ServerSideApply]\n", 4, `"ServerSideApply" is not Name=value`},
		{"unknown sync option", "argocd:\n  tiers:\n    cluster:\n      syncOptions: [ServerSide=true]\n", 4, "unknown sync option ServerSide; Argo CD's are"},
		{"sync option twice", "namespaces:\n  shop:\n    syncOptions: [PruneLast=true, PruneLast=false]\n", 3, "PruneLast is given twice"},
		{"sync option with a comma", "namespaces:\n  shop:\n    syncOptions: [\"Replace=true,Force=true\"]\n", 3, "is not Name=value"},
		{"resource exclusion with a bad glob", "argocd:\n  resourceExclusions:\n    - apiGroups: [\"[a-\"]\n", 2, `argocd.resourceExclusions[0]: "[a-" is not a glob`},
		{"owner action on the application", "argocd:\n  ownerActions: [delete]\n", 2, `argocd.ownerActions: "delete" is not an action on an application's resources`},
		{"owner action with an empty part", "argocd:\n  ownerActions: [\"update/\"]\n", 2, "is not an action"},
		{"bad feature gate", "clusters:\n  dev:\n    featureGates: {mutating-admission-policy: true}\n", 3, `clusters.dev.featureGates: "mutating-admission-policy" is not a feature gate's name`},
		{"feature gate that is not a bool", "clusters:\n  dev:\n    featureGates: {MutatingAdmissionPolicy: on-ish}\n", 3, "expected true or false here"},
		{"unknown Helm", "render:\n  helm: \"4\"\n", 2, `render.helm: "4" is not a Helm version repotool renders as: use v3 or v4`},
		{"owner action that breaks the policy line", "argocd:\n  ownerActions: [\"update/*, shop/*, allow\\np, x\"]\n", 2, "is not an action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := config.Parse("repotool.yaml", []byte(tt.yaml))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConfigError", err)
			}
			if ce.File != "repotool.yaml" || ce.Line != tt.wantLine || !strings.Contains(ce.Message, tt.wantMsg) {
				t.Errorf("got %s (line %d), want line %d and message containing %q", ce, ce.Line, tt.wantLine, tt.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), "repotool.yaml:") {
				t.Errorf("error does not start with the file name: %v", err)
			}
		})
	}
}

func TestParseDefaultsAndOverrides(t *testing.T) {
	cfg, _, err := config.Parse("repotool.yaml", []byte(`
git:
  repoURL: https://example.com/gitops.git
defaults:
  kubeVersion: v1.31.2
  apiVersions: [monitoring.coreos.com/v1]
clusters:
  dev:
    apiVersions: [cert-manager.io/v1, monitoring.coreos.com/v1]
  prod:
    kubeVersion: 1.32.0
namespaces:
  argocd:
    tier: cluster
layout:
  clustersDir: envs
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ClusterKubeVersion("dev"); got != "v1.31.2" {
		t.Errorf("dev kube version = %q", got)
	}
	if got := cfg.ClusterKubeVersion("prod"); got != "1.32.0" {
		t.Errorf("prod kube version = %q", got)
	}
	if diff := cmp.Diff([]string{"cert-manager.io/v1", "monitoring.coreos.com/v1"}, cfg.ClusterAPIVersions("dev")); diff != "" {
		t.Errorf("dev api versions (-want +got):\n%s", diff)
	}
	if cfg.NamespaceTier("argocd") != config.TierCluster || cfg.NamespaceTier("shop") != config.TierApplication {
		t.Error("tiers wrong")
	}
	if cfg.Git.Revision != "HEAD" || cfg.Layout.NamespacesDir != "namespaces" || cfg.Layout.ClustersDir != "envs" {
		t.Errorf("defaults not kept: %+v", cfg)
	}
	empty, _, err := config.Parse("repotool.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config.DefaultConfig(), empty); diff != "" {
		t.Errorf("empty file is not the default config (-want +got):\n%s", diff)
	}
}

func TestFixtureConfigParses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "monorepo", "repotool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := config.Parse("repotool.yaml", data); err != nil {
		t.Fatal(err)
	}
}

// TestParseReportsSectionsInOrder holds the order validateConfig checks the
// sections in: a file with mistakes in several sections is told the first
// of defaults and clusters, namespaces, lint rules and ignores, render,
// argocd, lint deprecations, layout, whichever source file a section's
// checks live in.
func TestParseReportsSectionsInOrder(t *testing.T) {
	mistakes := []struct{ key, body, msg string }{
		{"defaults", "  kubeVersion: latest\n", "defaults.kubeVersion"},
		{"namespaces", "  shop:\n    tier: platform\n", "namespaces.shop.tier"},
		{"lint", "  rules:\n    schema: {severity: fatal}\n", "lint.rules.schema.severity"},
		{"render", "  helm: v2\n", "render.helm"},
		{"argocd", "  outputDir: /abs\n", "argocd.outputDir"},
		{"lint", "  deprecations:\n    - {apiVersion: v1}\n", "lint.deprecations[0]"},
		{"layout", "  clustersDir: namespaces\n", "layout: namespacesDir and clustersDir"},
	}
	for i, first := range mistakes {
		for _, later := range mistakes[i+1:] {
			// Both mistakes in one file, the later section written first;
			// two under one key share its mapping.
			doc := later.key + ":\n" + later.body
			if first.key != later.key {
				doc += first.key + ":\n"
			}
			doc += first.body
			_, _, err := config.Parse("repotool.yaml", []byte(doc))
			if err == nil || !strings.Contains(err.Error(), first.msg) {
				t.Errorf("with mistakes in %q and %q: got %v, want the first (%s)", first.msg, later.msg, err, first.msg)
			}
		}
	}
}

// TestHydrateSecrets: hydrate.secrets and its per-cluster overrides take
// refuse, sops or sealed-secrets; anything else is an error at its line. A
// cluster's certificate is its own setting, else sealed-secrets.pem in its
// folder, and must be a path inside the repository.
func TestHydrateSecrets(t *testing.T) {
	cfg, _, err := config.Parse("repotool.yaml", []byte("hydrate:\n  secrets: sops\n  clusters:\n    prod: {secrets: refuse}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Hydrate.SecretsFor("prod") != "refuse" || cfg.Hydrate.SecretsFor("dev") != "sops" || (config.HydrateConfig{}).SecretsFor("x") != "refuse" {
		t.Errorf("SecretsFor: %+v", cfg.Hydrate)
	}
	_, _, err = config.Parse("repotool.yaml", []byte("hydrate:\n  clusters:\n    prod:\n      secrets: plain\n"))
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Line != 4 || !strings.Contains(err.Error(), `"plain" is not a secrets mode of hydrate: use refuse, sops, sealed-secrets`) {
		t.Errorf("a bad mode: %v", err)
	}
	cfg, _, err = config.Parse("repotool.yaml", []byte("hydrate:\n  secrets: sealed-secrets\n  clusters:\n    prod: {certificate: keys/prod.pem}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Hydrate.CertificateFor("prod", "clusters/prod"); got != "keys/prod.pem" {
		t.Errorf("prod's certificate: %s", got)
	}
	if got := cfg.Hydrate.CertificateFor("dev", "clusters/dev"); got != "clusters/dev/sealed-secrets.pem" {
		t.Errorf("dev's certificate: %s", got)
	}
	for _, bad := range []string{"/etc/prod.pem", "../prod.pem"} {
		_, _, err = config.Parse("repotool.yaml", []byte("hydrate:\n  clusters:\n    prod:\n      certificate: "+bad+"\n"))
		if !errors.As(err, &ce) || ce.Line != 4 || !strings.Contains(err.Error(), "not a path inside the repository") {
			t.Errorf("certificate %s: %v", bad, err)
		}
	}
}

// TestDiffIgnore: diff.ignore entries need an object group:kind:namespace/name
// and fields, as JSON pointers or regular expressions; each mistake is an
// error at the list's line.
func TestDiffIgnore(t *testing.T) {
	good := "diff:\n  ignore:\n    - object: \"apps:Deployment:*/web\"\n      pointers: [/spec/replicas]\n      patterns: ['^/metadata/annotations/']\n"
	cfg, _, err := config.Parse("repotool.yaml", []byte(good))
	if err != nil || len(cfg.Diff.Ignore) != 1 {
		t.Fatalf("%v %+v", err, cfg.Diff)
	}
	for entry, want := range map[string]string{
		"object: \"Deployment/web\"\n      pointers: [/a]":          "is not group:kind:namespace/name",
		"object: \"apps:Deployment:*/web\"":                         "give the fields to ignore",
		"object: \"apps:Deployment:*/web\"\n      pointers: [spec]": "is not a JSON pointer",
		"object: \"apps:Deployment:*/web\"\n      patterns: ['(']":  "is not a regular expression",
		"object: \"apps:Deployment:*/[web\"\n      pointers: [/a]":  "unexpected end of input",
	} {
		_, _, err := config.Parse("repotool.yaml", []byte("diff:\n  ignore:\n    - "+entry+"\n"))
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q at line 2", entry, err, want)
		}
	}
}

// TestIgnoreDifferences: argocd.ignoreDifferences and a namespace's add up
// for its Applications; an entry without kind or fields, or with a pointer
// that is not one, is an error at its list's line.
func TestIgnoreDifferences(t *testing.T) {
	cfg, _, err := config.Parse("repotool.yaml", []byte("argocd:\n  ignoreDifferences:\n    - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n"+
		"namespaces:\n  shop:\n    ignoreDifferences:\n      - {kind: ConfigMap, name: stamp, jqPathExpressions: [.data.at]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.IgnoreDifferencesFor("shop"); len(got) != 2 || got[0].Kind != "Deployment" || got[1].Name != "stamp" {
		t.Errorf("shop: %+v", got)
	}
	if got := cfg.IgnoreDifferencesFor("other"); len(got) != 1 {
		t.Errorf("other: %+v", got)
	}
	for entry, want := range map[string]string{
		"{jsonPointers: [/a]}":                  "needs the kind",
		"{kind: Deployment}":                    "names no field",
		"{kind: Deployment, jsonPointers: [a]}": "is not a JSON pointer",
	} {
		_, _, err := config.Parse("repotool.yaml", []byte("argocd:\n  ignoreDifferences:\n    - "+entry+"\n"))
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q at line 2", entry, err, want)
		}
	}
}

// TestMatchApplications: a file is one of applications.paths' globs as
// Argo CD's doublestar globs match it, with the cluster its {cluster}
// folder names; a hidden folder names no cluster.
func TestMatchApplications(t *testing.T) {
	for _, c := range []struct {
		glob, path, cluster string
		ok                  bool
	}{
		{"argocd/**/*.yaml", "argocd/a/b/app.yaml", "", true},
		{"argocd/**/*.yaml", "argocd/app.yaml", "", true},
		{"argocd/**/*.yaml", "other/app.yaml", "", false},
		{"argocd/{cluster}/*.yaml", "argocd/prod/app.yaml", "prod", true},
		{"argocd/{cluster}/*.yaml", "argocd/prod/sub/app.yaml", "", false},
		{"argocd/{cluster}/**/*.yaml", "argocd/prod/sub/app.yaml", "prod", true},
		{"argocd/{cluster}/*.yaml", "argocd/.prod/app.yaml", ".prod", false},
		{"{cluster}/apps.yaml", "dev/apps.yaml", "dev", true},
		{"*/{cluster}/apps.yaml", "x/dev/apps.yaml", "dev", true},
		{"*/{cluster}/apps.yaml", "dev/apps.yaml", "", false},
	} {
		cluster, ok := config.MatchApplications(c.glob, c.path)
		if ok != c.ok || ok && cluster != c.cluster {
			t.Errorf("MatchApplications(%q, %q) = %q, %v; want %q, %v", c.glob, c.path, cluster, ok, c.cluster, c.ok)
		}
	}
}

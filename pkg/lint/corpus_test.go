package lint_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
)

// The upstream corpus: real CRDs of well-known projects with the example
// resources the projects publish next to them, read from the projects' Go
// modules, pinned in internal/corpus/go.mod (see internal/corpus/SOURCES.md).
// The README's test command downloads them before the tests run.

// corpusProject is one project: its module and the folders of the module
// whose YAML files are used, CRDs and examples alike.
type corpusProject struct {
	name, module string
	dirs         []string
}

var corpusProjects = []corpusProject{
	{"argo-cd", "github.com/argoproj/argo-cd/v3", []string{"manifests/crds", "docs/operator-manual"}},
	{"argo-rollouts", "github.com/argoproj/argo-rollouts", []string{"manifests/crds", "examples"}},
	{"external-secrets", "github.com/external-secrets/external-secrets", []string{"config/crds/bases", "docs/snippets"}},
	{"flux-source-controller", "github.com/fluxcd/source-controller", []string{"config/crd/bases", "config/samples"}},
	{"gateway-api", "sigs.k8s.io/gateway-api", []string{"config/crd/standard", "examples/standard"}},
	{"keda", "github.com/kedacore/keda/v2", []string{"config/crd/bases", "config/samples"}},
	{"prometheus-operator", "github.com/prometheus-operator/prometheus-operator", []string{"example/prometheus-operator-crd", "example/user-guides"}},
}

// upstreamInvalid are the upstream files the API server itself rejects,
// each with the reason (checked by hand against the CRD). Every schema
// error in the corpus must be in one of them, and each must have one; the
// exact findings are in testdata/corpus/findings.golden.
var upstreamInvalid = map[string]string{
	"argo-cd/docs/operator-manual/applicationset.yaml":                                              "an annotated reference of every field, not an object: mis-indented generators (configMapRef beside plugin:), revision for targetRevision, helm.useCredentials templated, parameters outside helm",
	"argo-cd/docs/operator-manual/argocd-repo-creds.yaml":                                           "stringData values written as numbers (githubAppID: 1); Secret stringData holds strings",
	"argo-rollouts/examples/traffic-management/rollout-linkerd.yaml":                                "an unquoted {{args.linkerd-enabled}} is a YAML flow mapping used as a key: not valid YAML for kubectl either",
	"external-secrets/docs/snippets/beyondtrust-push-secret.yaml":                                   "the key notes appears twice in one mapping",
	"external-secrets/docs/snippets/full-cluster-secret-store.yaml":                                 "lists every provider at once; spec.provider has maxProperties 1",
	"external-secrets/docs/snippets/full-secret-store.yaml":                                         "lists every provider at once; placeholder namespaces that are not DNS labels",
	"external-secrets/docs/snippets/gcpsm-sa-secret-store.yaml":                                     "projectID: [PROJECT_ID] is a YAML list, not the placeholder string it means",
	"external-secrets/docs/snippets/gcpsm-wif-core-controller-secret-store.yaml":                    "projectID: [PROJECT_ID] is a YAML list",
	"external-secrets/docs/snippets/gcpsm-wif-iam-secret-store.yaml":                                "projectID: [PROJECT_ID] is a YAML list",
	"external-secrets/docs/snippets/gcpsm-wif-non-native-iam-secret-store.yaml":                     "projectID: [PROJECT_ID] is a YAML list",
	"external-secrets/docs/snippets/gcpsm-wif-sa-secret-store-with-explicit-name-and-location.yaml": "[PROJECT_ID]-style placeholders are YAML lists",
	"external-secrets/docs/snippets/gcpsm-wif-sa-secret-store.yaml":                                 "projectID: [PROJECT_ID] is a YAML list",
	"external-secrets/docs/snippets/generator-cloudsmith.yaml":                                      "apiHost is not a field of CloudsmithAccessToken in this release's CRD",
	"external-secrets/docs/snippets/generator-gcr.yaml":                                             "empty Secret names and keys, which the CRD's patterns and minLength reject",
	"external-secrets/docs/snippets/github-push-secret.yaml":                                        "a Secret name with capitals",
	"external-secrets/docs/snippets/github-secret-store.yaml":                                       "appID and installationID quoted, where the CRD wants integers",
	"external-secrets/docs/snippets/gitlab-secret-store.yaml":                                       "inheritFromGroups: \"true\" is a string, the CRD wants a boolean",
	"external-secrets/docs/snippets/ibm-secret-store.yaml":                                          "two auth methods at once; auth has maxProperties 1",
	"external-secrets/docs/snippets/ngrok-push-secret-with-metadata.yaml":                           "a Secret name with capitals",
	"external-secrets/docs/snippets/ngrok-push-secret.yaml":                                         "a Secret name with capitals",
	"external-secrets/docs/snippets/onboardbase-generic-secret-store.yaml":                          "written for an older CRD: apiKey and passcode were renamed, apiHost is required",
	"external-secrets/docs/snippets/oracle-instance-principal.yaml":                                 "region is required",
	"external-secrets/docs/snippets/oracle-principal-type.yaml":                                     "region and vault are required; the principalType value is not in the enum",
	"external-secrets/docs/snippets/oracle-secret-store-pushsecret.yaml":                            "region is required",
	"external-secrets/docs/snippets/oracle-workload-identity.yaml":                                  "region is required",
	"external-secrets/docs/snippets/vault-mtls-store.yaml":                                          "written for an older CRD: tls.clientCert and tls.secretRef, auth as a string",
	"prometheus-operator/example/user-guides/scrapeclass/scrapeclass-example-podmonitor.yaml":       "selector is required (and the object has no metadata)",
	"prometheus-operator/example/user-guides/scrapeclass/scrapeclass-example-servicemonitor.yaml":   "selector is required",
}

// corpusBroken are deliberately broken copies of valid upstream examples:
// one text replacement each, and exactly the findings it must give.
var corpusBroken = []struct {
	file     string // under the project's folder
	old, new string
	want     []string // "line: message", in order
}{
	{
		file: "argo-cd/docs/operator-manual/project.yaml",
		old:  "  sourceRepos:", new: "  sourceRepo:",
		want: []string{"14: AppProject argocd/my-project: /spec: additional properties 'sourceRepo' not allowed"},
	},
	{
		file: "argo-rollouts/examples/rollout-canary.yaml",
		old:  "- setWeight: 40", new: "- setWeight: forty",
		want: []string{"32: Rollout rollout-canary: /spec/strategy/canary/steps/2/setWeight: got string, want null or integer"},
	},
	{
		file: "external-secrets/docs/snippets/aws-sm-external-secret.yaml",
		old:  "creationPolicy: Owner", new: "creationPolicy: Owned",
		want: []string{"12: ExternalSecret example: /spec/target/creationPolicy: value must be one of 'Owner', 'Orphan', 'Merge', 'None'"},
	},
	{
		// allowRepeat and noUpper are required but absent, and have
		// defaults: the API server sets them before validating, so the
		// only error is the encoding.
		file: "external-secrets/docs/snippets/generator-password-encoding-examples.yaml",
		old:  "encoding: \"hex\"", new: "encoding: \"hexa\"",
		want: []string{"8: Password password-hex: /spec/encoding: value must be one of 'base64', 'base64url', 'base32', 'hex', 'raw'"},
	},
	{
		file: "flux-source-controller/config/samples/source_v1_helmrepository-oci.yaml",
		old:  "type: oci", new: "type: docker",
		want: []string{"7: HelmRepository helmrepository-sample-oci: /spec/type: value must be one of 'default', 'oci'"},
	},
	{
		// An address's type defaults to IPAddress: the oneOf alternative
		// for other types refuses it, the one for IP addresses refuses the
		// value. The hostname address is valid.
		file: "gateway-api/examples/standard/simple-gateway/gateway.yaml",
		old:  "  gatewayClassName: example\n", new: "  gatewayClassName: example\n  addresses:\n  - value: not-an-ip-address\n  - type: Hostname\n    value: example.com\n",
		want: []string{
			"11: Gateway prod-web: /spec/addresses/0/type: 'not' failed (the field is not set: this is the CRD's default)",
			"11: Gateway prod-web: /spec/addresses/0/value: 'anyOf' failed",
			"11: Gateway prod-web: /spec/addresses/0/value: is not a valid ipv4",
			"11: Gateway prod-web: /spec/addresses/0/value: is not a valid ipv6",
			"11: Gateway prod-web: /spec/addresses/0: 'oneOf' failed, none matched",
		},
	},
	{
		// metadata is not in the CRD's schema beyond "type: object"; the API
		// server checks it as ObjectMeta all the same.
		file: "keda/config/samples/keda_v1alpha1_scaledobject.yaml",
		old:  "  name: example-scaledobject\n", new: "  name: example-scaledobject\n  label: {app: example}\n",
		want: []string{"5: ScaledObject example-scaledobject: /metadata: additional properties 'label' not allowed"},
	},
	{
		file: "keda/config/samples/keda_v1alpha1_scaledobject.yaml",
		old:  "minReplicaCount: 0", new: "minReplicaCount: 0.5",
		want: []string{"10: ScaledObject example-scaledobject: /spec/minReplicaCount: got number, want null or integer"},
	},
	{
		file: "prometheus-operator/example/user-guides/getting-started/example-app-service-monitor.yaml",
		old:  "  selector:", new: "  selecter:",
		want: []string{
			"7: ServiceMonitor example-app: /spec: missing property 'selector'",
			"8: ServiceMonitor example-app: /spec: additional properties 'selecter' not allowed",
		},
	},
}

// TestUpstreamCorpus lints the corpus, placed in a repository as plain
// manifests under upstream/<project>/, with the broken copies under
// broken/<project>/. Every upstream example the API server accepts must
// give no schema error; the broken copies must give exactly their
// findings; everything lint says about the corpus is in a golden file.
func TestUpstreamCorpus(t *testing.T) {
	fsys := fstest.MapFS{}
	// customResources counts, per project, the example objects of a kind
	// the project's own CRDs define: what the corpus really exercises.
	customResources := map[string]int{}
	for _, p := range corpusProjects {
		root := testtool.CorpusDir(t, p.module)
		kinds := map[string]bool{}
		var examples [][]byte
		for _, d := range p.dirs {
			err := filepath.WalkDir(filepath.Join(root, d), func(file string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() || !strings.HasSuffix(file, ".yaml") || e.Name() == "kustomization.yaml" {
					return err
				}
				data, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(root, file)
				fsys[path.Join("upstream", p.name, filepath.ToSlash(rel))] = &fstest.MapFile{Data: data}
				for _, h := range heads(data) {
					if h.Kind == "CustomResourceDefinition" {
						kinds[h.Group+"/"+h.CRDKind] = true
					}
				}
				examples = append(examples, data)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, data := range examples {
			for _, h := range heads(data) {
				group, _, _ := strings.Cut(h.APIVersion, "/")
				if kinds[group+"/"+h.Kind] {
					customResources[p.name]++
				}
			}
		}
		if len(kinds) == 0 || customResources[p.name] < 3 {
			t.Errorf("%s: %d CRDs, %d examples of them: the material changed", p.name, len(kinds), customResources[p.name])
		}
	}
	wantBroken := map[string][]string{}
	for i, b := range corpusBroken {
		orig, ok := fsys["upstream/"+b.file]
		if !ok || bytes.Count(orig.Data, []byte(b.old)) != 1 {
			t.Fatalf("%s: the text to replace is not there exactly once", b.file)
		}
		name := fmt.Sprintf("broken/%d-%s", i, path.Base(b.file))
		fsys[name] = &fstest.MapFile{Data: bytes.Replace(orig.Data, []byte(b.old), []byte(b.new), 1)}
		wantBroken[name] = b.want
	}
	res := lintManifests(t, "prod", "v1.34.0", fsys)
	var report bytes.Buffer
	invalid := map[string]bool{}
	gotBroken := map[string][]string{}
	for _, f := range res.Findings {
		if f.Rule == "plaintext-secret" {
			continue // the examples' sample credentials; not what this test is about
		}
		fmt.Fprintf(&report, "%s:%d: %s: %s\n", f.File, f.Line, f.Rule, f.Message)
		if f.Rule != "schema" {
			continue
		}
		if rest, ok := strings.CutPrefix(f.File, "upstream/"); ok {
			if _, known := upstreamInvalid[rest]; !known {
				t.Errorf("schema error on an upstream example the API server accepts: %s:%d: %s", f.File, f.Line, f.Message)
			}
			invalid[rest] = true
		} else {
			gotBroken[f.File] = append(gotBroken[f.File], fmt.Sprintf("%d: %s", f.Line, f.Message))
		}
	}
	for file := range upstreamInvalid {
		if !invalid[file] {
			t.Errorf("%s is listed as invalid upstream, but has no schema error", file)
		}
	}
	for name, want := range wantBroken {
		if got := gotBroken[name]; !slices.Equal(got, want) {
			t.Errorf("%s: got findings\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	t.Logf("custom resources per project: %v", customResources)
	golden.Check(t, filepath.Join("..", "..", "testdata", "corpus", "findings.golden"), report.Bytes())
}

// lintManifests lints files as the plain manifests of a repository that
// has one cluster, running kubeVersion, with one small target.
func lintManifests(t *testing.T, cluster, kubeVersion string, files fstest.MapFS) *lint.Result {
	t.Helper()
	fsys := fstest.MapFS{
		"repotool.yaml":             {Data: []byte(fmt.Sprintf("clusters:\n  %s: {kubeVersion: %s}\n", cluster, kubeVersion))},
		"namespaces/app/Chart.yaml": {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		path.Join("clusters", cluster, "app", cluster+"-values.yaml"): {Data: []byte("{}\n")},
	}
	maps.Copy(fsys, files)
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Lint(context.Background(), repo, lint.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// head is what the corpus test needs of a document.
type head struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		Group string `yaml:"group"`
		Names struct {
			Kind string `yaml:"kind"`
		} `yaml:"names"`
	} `yaml:"spec"`
	Group, CRDKind string `yaml:"-"`
}

// heads decodes the head of every document of a file, leaving out what
// does not decode (the corpus has broken files on purpose).
func heads(data []byte) []head {
	var out []head
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var h head
		err := dec.Decode(&h)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return out
		}
		h.Group, h.CRDKind = h.Spec.Group, h.Spec.Names.Kind
		out = append(out, h)
	}
}

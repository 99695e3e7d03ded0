package argocdcheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"sigs.k8s.io/yaml"
)

const goldens = "../../pkg/argocd/testdata/golden"

// crdValidator validates objects against one version of a CRD the way the
// API server does: OpenAPI schema validation, and pruning to find fields
// the schema does not know.
type crdValidator struct {
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
}

func loadCRD(t *testing.T, file, version string) *crdValidator {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate argo-cd module: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "manifests", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			t.Fatal(err)
		}
		structural, err := structuralschema.NewStructural(internal)
		if err != nil {
			t.Fatal(err)
		}
		return &crdValidator{validator: validator, structural: structural}
	}
	t.Fatalf("%s has no version %s", file, version)
	return nil
}

func (v *crdValidator) check(data []byte) []string {
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	for _, e := range v.validator.Validate(obj).Errors {
		problems = append(problems, e.Error())
	}
	for _, p := range pruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		problems = append(problems, "unknown field "+p)
	}
	return problems
}

// TestGeneratedObjects decodes every generated Application and AppProject
// strictly (an unknown field is an error) into Argo CD's types and
// validates it against Argo CD's CRD schema.
func TestGeneratedObjects(t *testing.T) {
	apps := loadCRD(t, "application-crd.yaml", "v1alpha1")
	projects := loadCRD(t, "appproject-crd.yaml", "v1alpha1")
	files, err := filepath.Glob(filepath.Join(goldens, "*-cluster", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d generated files under %s; run go test ./pkg/argocd -update in the main module", len(files), goldens)
	}
	counts := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tm struct{ Kind string }
		if err := yaml.Unmarshal(data, &tm); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		counts[tm.Kind]++
		var problems []string
		switch tm.Kind {
		case "Application":
			var app v1alpha1.Application
			if err := yaml.UnmarshalStrict(data, &app); err != nil {
				t.Errorf("%s: not a valid Argo CD Application: %v", f, err)
				continue
			}
			if app.Spec.Source == nil || app.Spec.Source.RepoURL == "" || app.Spec.Project == "" {
				t.Errorf("%s: source or project missing", f)
			}
			if app.Spec.Source.Plugin != nil && app.Spec.Source.Plugin.Env.Environ()[0] == "" {
				t.Errorf("%s: empty plugin env", f)
			}
			problems = apps.check(data)
		case "AppProject":
			var p v1alpha1.AppProject
			if err := yaml.UnmarshalStrict(data, &p); err != nil {
				t.Errorf("%s: not a valid Argo CD AppProject: %v", f, err)
				continue
			}
			if err := p.ValidateProject(); err != nil {
				t.Errorf("%s: Argo CD rejects the project: %v", f, err)
			}
			problems = projects.check(data)
		default:
			t.Errorf("%s: unexpected kind %q", f, tm.Kind)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", f, p)
		}
	}
	if counts["Application"] == 0 || counts["AppProject"] == 0 {
		t.Fatalf("kinds found: %v", counts)
	}
}

// TestPluginConfig decodes plugin.yaml into the sidecar's configuration type
// and runs Argo CD's own validation of it: the default without discovery
// (every generated Application names the plugin), and the one
// argocd.pluginDiscovery gives.
func TestPluginConfig(t *testing.T) {
	for file, discovery := range map[string]bool{"plugin.yaml": false, "plugin-discovery.yaml": true} {
		data, err := os.ReadFile(filepath.Join(goldens, "plugin", file))
		if err != nil {
			t.Fatal(err)
		}
		var cfg plugin.PluginConfig
		if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := plugin.ValidatePluginConfig(cfg); err != nil {
			t.Fatalf("Argo CD rejects %s: %v", file, err)
		}
		if cfg.Kind != plugin.ConfigManagementPluginKind || cfg.Spec.Discover.IsDefined() != discovery {
			t.Errorf("%s: kind %q, discovery defined %v, want %v", file, cfg.Kind, cfg.Spec.Discover.IsDefined(), discovery)
		}
		if got := strings.Join(cfg.Spec.Generate.Command, " "); got != "repotool render --argocd" {
			t.Errorf("%s: generate command = %q", file, got)
		}
		if discovery && !bytes.Contains(data, []byte("--discover")) {
			t.Errorf("%s: discovery is not limited to repotool layouts", file)
		}
	}
}

package lint_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/lint"
)

// TestRemovedAPIsInUpstreamManifests runs stray-api-version over real
// upstream material: the serialization fixtures of k8s.io/api (a module
// repotool builds with, so already in the module cache), one object per
// file for every group/version/kind Kubernetes still has types for, old
// ones included. Placed in a repository as plain manifests, outside any
// chart, every object whose API version a v1.34 cluster no longer serves
// must be reported once, at its file, naming the cluster; every other one
// must not be.
func TestRemovedAPIsInUpstreamManifests(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/api").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/api: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "testdata", "v1.33.0")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	removed := map[string]bool{} // files a v1.34 cluster does not serve
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(data, &head); err != nil || head.Kind == "" {
			continue
		}
		file := "vendor-upstream/" + e.Name()
		fsys[file] = &fstest.MapFile{Data: data}
		if servedIn134(head.APIVersion, head.Kind) {
			continue
		}
		removed[file] = true
	}
	if len(removed) < 30 {
		t.Fatalf("only %d removed API versions among the fixtures: the material changed", len(removed))
	}
	// The migration guide's best-known removals are among them.
	for _, f := range []string{"extensions.v1beta1.Ingress.yaml", "extensions.v1beta1.Deployment.yaml", "networking.k8s.io.v1beta1.Ingress.yaml", "policy.v1beta1.PodDisruptionBudget.yaml", "batch.v1beta1.CronJob.yaml", "apps.v1beta2.StatefulSet.yaml"} {
		if !removed["vendor-upstream/"+f] {
			t.Errorf("the answer key does not count %s as removed", f)
		}
	}
	res := lintManifests(t, "new", "v1.34.0", fsys)
	reported := map[string]int{} // errors; deprecations still served are warnings
	for _, f := range res.Findings {
		if f.Rule == "stray-api-version" && f.Severity == lint.SeverityError {
			reported[f.File]++
			if !strings.Contains(f.Message, "cluster new (v1.34.0)") && !strings.Contains(f.Message, "no longer served by current releases") {
				t.Errorf("%s: the finding does not name the cluster: %s", f.File, f.Message)
			}
		}
	}
	for file := range removed {
		if reported[file] != 1 {
			t.Errorf("%s: %d stray-api-version errors, want 1", file, reported[file])
		}
	}
	for file, n := range reported {
		if !removed[file] {
			t.Errorf("%s: %d errors for an API version v1.34 serves", file, n)
		}
	}
}

// servedIn134 is the answer key: the API server serves a pre-release API
// version until the Kubernetes minor its k8s.io/api type records in
// APILifecycleRemoved (prerelease-lifecycle-gen), read here from the types
// directly, not through repotool's table; types that no longer carry the
// record are taken from the deprecated API migration guide.
func servedIn134(apiVersion, kind string) bool {
	if guideRemoved[apiVersion+"/"+kind] {
		return false
	}
	s := runtime.NewScheme()
	_ = scheme.AddToScheme(s)
	_ = apiextensionsv1beta1.AddToScheme(s)
	obj, err := s.New(schema.FromAPIVersionAndKind(apiVersion, kind))
	if err != nil {
		return true // no type: not a Kubernetes API the fixtures can say anything about
	}
	r, ok := obj.(interface{ APILifecycleRemoved() (int, int) })
	if !ok {
		return true
	}
	major, minor := r.APILifecycleRemoved()
	return major > 1 || major == 1 && minor > 34
}

// guideRemoved: removals whose k8s.io/api types no longer say when they
// were removed: from the Kubernetes deprecated API migration guide, and
// alpha types that left k8s.io/api (their lifecycle data in the last
// k8s.io/api release that had them; the resource.k8s.io/v1alpha3 kinds
// planned for 1.37 but gone from k8s.io/api v0.34, so from Kubernetes 1.34).
var guideRemoved = map[string]bool{
	"autoscaling/v2beta1/HorizontalPodAutoscaler":    true, // removed in 1.25
	"autoscaling/v2beta2/HorizontalPodAutoscaler":    true, // removed in 1.26
	"networking.k8s.io/v1alpha1/IPAddress":           true, // removed in 1.33 (k8s.io/api v0.33.0)
	"networking.k8s.io/v1alpha1/ServiceCIDR":         true, // removed in 1.33 (k8s.io/api v0.33.0)
	"resource.k8s.io/v1alpha3/DeviceClass":           true, // gone in 1.34
	"resource.k8s.io/v1alpha3/ResourceClaim":         true, // gone in 1.34
	"resource.k8s.io/v1alpha3/ResourceClaimTemplate": true, // gone in 1.34
	"resource.k8s.io/v1alpha3/ResourceSlice":         true, // gone in 1.34
}

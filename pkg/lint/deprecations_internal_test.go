package lint

import (
	"strings"
	"testing"
)

// TestEmbeddedDeprecationsAgreeWithKubernetes: where the hand-written table
// and Kubernetes' own lifecycle data (k8s.io/api) both know an API version,
// they must give the same versions; and the lifecycle data is there at all.
func TestEmbeddedDeprecationsAgreeWithKubernetes(t *testing.T) {
	lc := map[string]string{}
	for _, d := range lifecycleDeprecations() {
		lc[d.APIVersion+"/"+d.Kind] = d.DeprecatedIn + " " + d.RemovedIn
	}
	if lc["extensions/v1beta1/Ingress"] != "1.14 1.22" || lc["batch/v1beta1/CronJob"] != "1.21 1.25" {
		t.Fatalf("lifecycle data: Ingress %q, CronJob %q", lc["extensions/v1beta1/Ingress"], lc["batch/v1beta1/CronJob"])
	}
	both := 0
	for _, d := range builtinDeprecations() {
		want, ok := lc[d.APIVersion+"/"+d.Kind]
		if !ok || d.RemovedIn == "" {
			continue
		}
		both++
		if got := d.DeprecatedIn + " " + d.RemovedIn; got != want {
			t.Errorf("%s %s: the embedded table says deprecated/removed %s, Kubernetes says %s", d.APIVersion, d.Kind, got, want)
		}
	}
	if both < 20 {
		t.Errorf("only %d entries to compare", both)
	}
}

// TestRecentRemovals: the API versions Kubernetes 1.33 to 1.37 stopped
// serving are errors with a replacement on clusters that run those
// versions, whether their types are still in k8s.io/api (its lifecycle
// data) or gone from it (the embedded table), and 1.38's planned
// removals are errors on a 1.38 cluster and warnings before.
func TestRecentRemovals(t *testing.T) {
	table := deprecationTable(nil)
	for _, tc := range []struct {
		apiVersion, kind, cluster string
		severity                  Severity
		want                      string
	}{
		{"networking.k8s.io/v1alpha1", "ServiceCIDR", "v1.33.0", SeverityError, "removed in Kubernetes 1.33"},
		{"resource.k8s.io/v1alpha3", "ResourceClaim", "v1.34.0", SeverityError, "use resource.k8s.io/v1"},
		{"storagemigration.k8s.io/v1alpha1", "StorageVersionMigration", "v1.36.0", SeverityError, "use storagemigration.k8s.io/v1beta1"},
		{"scheduling.k8s.io/v1alpha2", "Workload", "v1.37.0", SeverityError, "use scheduling.k8s.io/v1beta1"},
		{"networking.k8s.io/v1beta1", "ServiceCIDR", "v1.37.1", SeverityError, "removed in Kubernetes 1.37"},
		{"networking.k8s.io/v1beta1", "IPAddress", "v1.36.0", SeverityWarning, "to be removed in 1.37"},
		{"storage.k8s.io/v1beta1", "VolumeAttributesClass", "v1.37.0", SeverityError, "removed in Kubernetes 1.37"},
		{"certificates.k8s.io/v1alpha1", "ClusterTrustBundle", "v1.37.0", SeverityError, "removed in Kubernetes 1.37"},
		{"resource.k8s.io/v1beta1", "ResourceClaim", "v1.38.0", SeverityError, "removed in Kubernetes 1.38"},
		{"resource.k8s.io/v1beta1", "ResourceClaim", "v1.37.0", SeverityWarning, "to be removed in 1.38"},
		{"admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicy", "v1.38.0", SeverityError, "removed in Kubernetes 1.38"},
		{"coordination.k8s.io/v1alpha2", "LeaseCandidate", "v1.38.0", SeverityError, "removed in Kubernetes 1.38"},
	} {
		msg, sev := apiVersionProblem(tc.apiVersion, tc.kind, parseKubeVersion(tc.cluster), "c1", table, nil, nil)
		if sev != tc.severity || !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s on %s: %s %q, want %s containing %q", tc.apiVersion, tc.kind, tc.cluster, sev, msg, tc.severity, tc.want)
		}
	}
}

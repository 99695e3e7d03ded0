package lint

import "testing"

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

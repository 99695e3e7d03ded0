package lint

import (
	"cmp"

	"github.com/Masterminds/semver/v3"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
)

// versions are the Kubernetes versions checks use.
type versions struct {
	repo *layout.Repo
	// override is --kube-version (render.Options.KubeVersion).
	override string
}

// clusterVersion is a cluster and its Kubernetes version.
type clusterVersion struct {
	name string
	kv   *semver.Version
}

// clusterVersions are every cluster's Kubernetes version, or the default
// one when the repository has no cluster: what plain manifests, applied
// to every cluster, are checked against.
func (vs versions) clusterVersions() []clusterVersion {
	var clusters []clusterVersion
	for _, c := range vs.repo.Clusters {
		clusters = append(clusters, clusterVersion{c.Name, vs.kubeVersion(c.KubeVersion)})
	}
	if len(clusters) == 0 {
		clusters = append(clusters, clusterVersion{"(default)", vs.kubeVersion(vs.repo.Config.ClusterKubeVersion(""))})
	}
	return clusters
}

// kubeVersion is the Kubernetes version checks use for a cluster running
// version cluster: --kube-version (render.Options.KubeVersion) overrides
// it, as it overrides rendering.
func (vs versions) kubeVersion(cluster string) *semver.Version {
	return parseKubeVersion(cmp.Or(vs.override, cluster))
}

// parseKubeVersion parses a Kubernetes version that layout or render
// already checked (the default version if it somehow does not parse).
func parseKubeVersion(v string) *semver.Version {
	sv, err := semver.NewVersion(v)
	if err != nil {
		sv, _ = semver.NewVersion(config.DefaultKubeVersion)
	}
	return sv
}

// newest is the newest Kubernetes version a target of the repository runs
// (as rendering decides it: --kube-version wins), else the default one:
// what plain manifests, which belong to no target, are validated against,
// whichever targets a run renders.
func (vs versions) newest() *semver.Version {
	var out *semver.Version
	for _, t := range vs.repo.Targets {
		if kv := vs.kubeVersion(t.KubeVersion); out == nil || kv.GreaterThan(out) {
			out = kv
		}
	}
	if out == nil {
		out = vs.kubeVersion(vs.repo.Config.ClusterKubeVersion(""))
	}
	return out
}

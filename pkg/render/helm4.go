package render

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"unicode"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/repotool/repotool/pkg/config"
)

// The Helm versions whose `helm template` output the renderer matches
// byte for byte (Options.Helm): repotool.yaml's (config.HelmV3, HelmV4).
const (
	HelmV3 = config.HelmV3
	HelmV4 = config.HelmV4
)

// What `helm template` of Helm 4 (4.3) does otherwise than Helm 3's, and
// the renderer with Options.Helm "v4" too (TestHelm4Parity compares it
// with the helm 4 CLI):
//   - a rendered template is split at every line that starts with "---"
//     (and the spaces or tabs after it); each document loses its leading
//     whitespace but keeps its trailing newlines, so a blank line comes
//     before most "---" (splitManifests4);
//   - MutatingWebhookConfiguration and ValidatingWebhookConfiguration sort
//     right after APIService, before the kinds Helm does not know
//     (installOrder4);
//   - every YAML document of a values file (the repository's and a chart's
//     values.yaml) is merged, in order, where Helm 3 reads the first one
//     (helmvalues.Documents);
//   - .Capabilities.KubeVersion.Version keeps a vendor suffix
//     (v1.33.4-gke.1245000) where Helm 3 prints v1.33.4, and
//     .Capabilities.HelmVersion is Helm 4's (capabilities4);
//   - the engine's additions: internal/engine with Engine.Helm 4.

// helm4 reports whether the renderer renders as Helm 4.
func (r *Renderer) helm4() bool { return r.opts.Helm == HelmV4 }

// checkHelm fails for an Options.Helm the renderer does not know.
func checkHelm(v string) error {
	if config.IsHelmVersion(v) {
		return nil
	}
	return fmt.Errorf("unknown Helm version %q (Options.Helm): use %q or %q", v, HelmV3, HelmV4)
}

// splitManifests4 splits a rendered template into documents as Helm 4.2
// and later do (the regular expression `(?m)^---[ \t]*`), without the
// regular expression's cost: leading whitespace of the text and of every
// document is dropped, trailing whitespace kept, and documents of
// whitespace only are left out. FuzzSplitManifests4 compares it with
// Helm's.
func splitManifests4(big string) []string {
	s := strings.TrimLeftFunc(big, unicode.IsSpace)
	var docs []string
	add := func(d string) {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, strings.TrimLeftFunc(d, unicode.IsSpace))
		}
	}
	beg := 0
	for at := 0; at < len(s); {
		// The next "---" at the start of a line, at or after at.
		i := -1
		if at == 0 || s[at-1] == '\n' {
			if strings.HasPrefix(s[at:], "---") {
				i = at
			}
		}
		if i < 0 {
			nl := strings.Index(s[at:], "\n---")
			if nl < 0 {
				break
			}
			i = at + nl + 1
		}
		add(s[beg:i])
		at = i + 3
		for at < len(s) && (s[at] == ' ' || s[at] == '\t') {
			at++
		}
		beg = at
	}
	add(s[beg:])
	return docs
}

// installOrder4 is each kind's place in Helm 4's InstallOrder: Helm 3's,
// then the webhook configurations.
var installOrder4 = func() map[string]int {
	m := make(map[string]int, len(installOrder)+2)
	for k, i := range installOrder {
		m[k] = i
	}
	m["MutatingWebhookConfiguration"] = len(installOrder)
	m["ValidatingWebhookConfiguration"] = len(installOrder) + 1
	return m
}()

// capabilities4 is .Capabilities as Helm 4's templates see it.
type capabilities4 struct {
	KubeVersion kubeVersion4
	APIVersions chartutil.VersionSet
	HelmVersion helmBuild4
}

// kubeVersion4 is Helm 4's .Capabilities.KubeVersion: Version as given
// (with a "v"), vendor suffix and all; printed as the normalized version.
// The fields are in Helm 4's order, which %v shows ({{ quote
// .Capabilities.KubeVersion }}).
type kubeVersion4 struct {
	Version    string
	normalized string
	Major      string
	Minor      string
}

func (kv *kubeVersion4) String() string     { return kv.normalized }
func (kv *kubeVersion4) GitVersion() string { return kv.Version }

// helmBuild4 is Helm 4's .Capabilities.HelmVersion, as a helm 4 built
// from its module (no release ldflags) reports it.
type helmBuild4 struct {
	Version           string `json:"version,omitempty"`
	GitCommit         string `json:"git_commit,omitempty"`
	GitTreeState      string `json:"git_tree_state,omitempty"`
	GoVersion         string `json:"go_version,omitempty"`
	KubeClientVersion string `json:"kube_client_version"`
}

// helm4Version is the version Helm 4.3 reports of itself.
const helm4Version = "v4.3"

// newCapabilities4 makes Helm 4's .Capabilities for the Kubernetes version
// given (raw) and parsed (kv, Helm 3's parse of the same string), and the
// API versions.
func newCapabilities4(raw string, kv *chartutil.KubeVersion, apis chartutil.VersionSet) *capabilities4 {
	if !strings.HasPrefix(raw, "v") {
		raw = "v" + raw
	}
	return &capabilities4{
		KubeVersion: kubeVersion4{Version: raw, Major: kv.Major, Minor: kv.Minor, normalized: kv.Version},
		APIVersions: apis,
		HelmVersion: helmBuild4{Version: helm4Version, GoVersion: runtime.Version(), KubeClientVersion: kubeClientVersion()},
	}
}

// kubeClientVersion is the Kubernetes version of the client library
// linked in (k8s.io/client-go v0.37.1 is Kubernetes v1.37), as Helm 4
// reports it; "" when the build does not say. Read from the build once
// per process, not once per rendering.
var kubeClientVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path != "k8s.io/client-go" {
			continue
		}
		v, err := semver.NewVersion(m.Version)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("v%d.%d", v.Major()+1, v.Minor())
	}
	return ""
})

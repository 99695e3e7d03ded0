package lint

import "github.com/repotool/repotool/pkg/manifest"

// isKind reports whether an object is kind in group (any version).
func isKind(o *manifest.Object, group, kind string) bool {
	return o.Kind == kind && o.Group() == group
}

// The API groups, and the annotations' prefix, of the objects that make
// or copy Secrets (secrets.go), whose content the rules read whole
// (readWhole).
const (
	groupESO          = "external-secrets.io"
	groupCertManager  = "cert-manager.io"
	groupSecretMirror = "mirrors.kts.studio"
	reflectorPrefix   = "reflector.v1.k8s.emberstack.com/"
)

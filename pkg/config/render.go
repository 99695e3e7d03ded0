package config

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// RenderConfig configures how targets are rendered, in every command.
type RenderConfig struct {
	// Helm is the `helm template` whose output repotool's matches byte
	// for byte: "v3" (Helm 3.22, the default) or "v4" (Helm 4.3, what
	// Argo CD 3.5 and later run for native Helm sources). See
	// docs/render.md, "Which Helm".
	Helm string `yaml:"helm" json:"helm,omitempty"`
}

// The Helm versions whose `helm template` output repotool matches byte for
// byte (render.helm, --helm, render.Options.Helm): the one list.
const (
	// HelmV3 is Helm 3.22, the default.
	HelmV3 = "v3"
	// HelmV4 is Helm 4.3, which Argo CD 3.5 and later run for native Helm
	// sources.
	HelmV4 = "v4"
)

// IsHelmVersion reports whether v names a Helm repotool renders as ("" is
// the default, HelmV3).
func IsHelmVersion(v string) bool { return v == "" || v == HelmV3 || v == HelmV4 }

// CheckHelmVersion fails unless IsHelmVersion(v).
func CheckHelmVersion(v string) error {
	if IsHelmVersion(v) {
		return nil
	}
	return fmt.Errorf("%q is not a Helm version repotool renders as: use %s or %s", v, HelmV3, HelmV4)
}

func validateRender(file string, root *yaml.Node, cfg *Config) error {
	if err := CheckHelmVersion(cfg.Render.Helm); err != nil {
		return &Error{File: file, Line: yamlpos.Line(root, 1, "render", "helm"), Message: "render.helm: " + err.Error()}
	}
	return nil
}

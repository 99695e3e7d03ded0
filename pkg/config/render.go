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

// CheckHelmVersion fails unless v is empty or one of HelmVersions.
func CheckHelmVersion(v string) error {
	switch v {
	case "", "v3", "v4":
		return nil
	}
	return fmt.Errorf("%q is not a Helm version repotool renders as: use v3 or v4", v)
}

func validateRender(file string, root *yaml.Node, cfg *Config) error {
	if err := CheckHelmVersion(cfg.Render.Helm); err != nil {
		return &Error{File: file, Line: yamlpos.Line(root, 1, "render", "helm"), Message: "render.helm: " + err.Error()}
	}
	return nil
}

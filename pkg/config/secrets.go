package config

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// SecretsConfig configures how secret values files are decrypted.
type SecretsConfig struct {
	// AllowKeys are keys besides age identities that repotool may use
	// (KIND=ID, as --allow-key takes them: hc_vault=https://vault:8200,
	// kms=arn:..., pgp=FINGERPRINT, age-plugin=NAME). repotool.yaml is
	// content under review, so they are honoured only from a trusted
	// revision: the base of a comparison (diff, lint --changed-since,
	// lint --staged), never the head or the working tree being checked.
	// See docs/security.md.
	AllowKeys []string `yaml:"allowKeys" json:"allowKeys,omitempty"`
}

func validateSecrets(file string, root *yaml.Node, cfg *Config) error {
	if _, err := sopsfile.ParseKeyPolicy(cfg.Secrets.AllowKeys...); err != nil {
		return &Error{File: file, Line: yamlpos.Line(root, 1, "secrets", "allowKeys"), Message: "secrets.allowKeys: " + err.Error()}
	}
	return nil
}

package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// LintConfig configures repotool lint.
type LintConfig struct {
	// Ignore suppresses findings by rule and path or object, for files that
	// cannot carry a "# repotool:ignore" comment (third-party charts,
	// vendored archives).
	Ignore []LintIgnore `yaml:"ignore" json:"ignore,omitempty"`
	// Deprecations extend the built-in table of deprecated and removed API
	// versions used by the stray-api-version rule.
	Deprecations []Deprecation `yaml:"deprecations" json:"deprecations,omitempty"`
	// SchemaLocations are extra kubeconform schema locations (folders, or
	// file or URL templates) for custom resources whose CRDs are installed
	// some other way; URLs are downloaded once into the cache.
	SchemaLocations []string `yaml:"schemaLocations" json:"schemaLocations,omitempty"`
	// Rules configure rules by ID: lint.rules.<id>.severity.
	Rules map[string]RuleConfig `yaml:"rules" json:"rules,omitempty"`
	// Checks are the user's CEL checks (the custom-check rule).
	Checks []Check `yaml:"checks" json:"checks,omitempty"`
}

// RuleConfig configures one lint rule.
type RuleConfig struct {
	// Severity replaces the severity of every finding of the rule: error,
	// warning or info; off turns the rule off. Empty: the rule's own.
	Severity string `yaml:"severity" json:"severity,omitempty"`

	// Line is where the entry is in repotool.yaml (set by Parse).
	Line int `yaml:"-" json:"-"`
}

// LintIgnore suppresses the findings of one rule that match every pattern
// given (path.Match syntax; "**" is not special).
type LintIgnore struct {
	// Rule is the rule ID, e.g. "plaintext-secret".
	Rule string `yaml:"rule" json:"rule"`
	// Path matches the finding's file, e.g. "namespaces/argocd/*".
	Path string `yaml:"path" json:"path,omitempty"`
	// Object matches the object, "apiVersion/Kind namespace/name", e.g.
	// "v1/Secret argocd/cluster-*".
	Object string `yaml:"object" json:"object,omitempty"`
	// Cluster matches the target's cluster.
	Cluster string `yaml:"cluster" json:"cluster,omitempty"`
	// Reason says why; it is required.
	Reason string `yaml:"reason" json:"reason"`

	// Line is where the entry starts in repotool.yaml (set by Parse).
	Line int `yaml:"-" json:"-"`
}

// Deprecation is one entry of the deprecated-API table.
type Deprecation struct {
	APIVersion string `yaml:"apiVersion" json:"apiVersion"`
	Kind       string `yaml:"kind" json:"kind"`
	// DeprecatedIn and RemovedIn are Kubernetes versions ("1.22"); empty
	// when the API is not a Kubernetes one or not scheduled.
	DeprecatedIn string `yaml:"deprecatedIn" json:"deprecatedIn,omitempty"`
	RemovedIn    string `yaml:"removedIn" json:"removedIn,omitempty"`
	// Removed marks an API that is gone whatever the cluster version (a
	// third-party API its project no longer serves).
	Removed bool `yaml:"removed" json:"removed,omitempty"`
	// Replacement is the apiVersion to use instead, if any.
	Replacement string `yaml:"replacement" json:"replacement,omitempty"`
	// Note adds advice, e.g. "the project is archived".
	Note string `yaml:"note" json:"note,omitempty"`
}

// validateLint checks lint.rules and lint.ignore, setting their lines.
func validateLint(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
	if node, _ := yamlpos.Lookup(root, "lint", "ignore"); node != nil && node.Kind == yaml.SequenceNode {
		for i := range cfg.Lint.Ignore {
			if i < len(node.Content) {
				cfg.Lint.Ignore[i].Line = node.Content[i].Line
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(cfg.Lint.Rules)) {
		rc := cfg.Lint.Rules[id]
		rc.Line = yamlpos.Line(root, 1, "lint", "rules", id)
		cfg.Lint.Rules[id] = rc
		switch rc.Severity {
		case "", "error", "warning", "info", "off":
		default:
			return bad(fmt.Sprintf("lint.rules.%s.severity: %q is not a severity; use error, warning, info or off", id, rc.Severity), "lint", "rules", id, "severity")
		}
	}
	for i, ig := range cfg.Lint.Ignore {
		at := func(msg string) error {
			return &Error{File: file, Line: ig.Line, Message: fmt.Sprintf("lint.ignore[%d]: %s", i, msg)}
		}
		switch {
		case ig.Rule == "":
			return at("give the rule to ignore (rule: <rule-id>)")
		case strings.TrimSpace(ig.Reason) == "":
			return at("give a reason (reason: why this finding is acceptable)")
		case ig.Path == "" && ig.Object == "" && ig.Cluster == "":
			return at("give at least one of path, object or cluster; an ignore of a whole rule belongs in a rule's severity, not here")
		}
		for _, p := range []string{ig.Path, ig.Object, ig.Cluster} {
			if _, err := path.Match(p, ""); err != nil {
				return at(fmt.Sprintf("%q is not a valid pattern (path.Match syntax)", p))
			}
		}
	}
	return nil
}

// validateDeprecations checks lint.deprecations.
func validateDeprecations(file string, root *yaml.Node, cfg *Config) error {
	for i, d := range cfg.Lint.Deprecations {
		line := yamlpos.Line(root, 1, "lint", "deprecations")
		if d.APIVersion == "" || d.Kind == "" {
			return &Error{File: file, Line: line, Message: fmt.Sprintf("lint.deprecations[%d]: apiVersion and kind are required", i)}
		}
		for _, v := range []string{d.DeprecatedIn, d.RemovedIn} {
			if v != "" {
				if err := checkKubeVersion(v); err != nil {
					return &Error{File: file, Line: line, Message: fmt.Sprintf("lint.deprecations[%d]: %v", i, err)}
				}
			}
		}
		if !d.Removed && d.DeprecatedIn == "" && d.RemovedIn == "" {
			return &Error{File: file, Line: line, Message: fmt.Sprintf("lint.deprecations[%d]: say when: deprecatedIn, removedIn, or removed: true", i)}
		}
	}
	return nil
}

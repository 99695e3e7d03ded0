package config

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// The settings of the admission-policy and custom-check lint rules:
// clusters.<c>.admissionPolicies, namespaces.<ns>.labels and lint.checks.

// Check is a user's CEL check (lint.checks): an expression over object
// (and objects, every object of its cluster) that is true when the object
// passes.
type Check struct {
	// ID names the check in findings; lowercase letters, digits and dashes.
	ID string `yaml:"id" json:"id"`
	// Match selects the objects checked: by apiVersion and kind; an empty
	// field matches any.
	Match CheckMatch `yaml:"match" json:"match"`
	// Expression is the CEL expression, true when the object passes.
	Expression string `yaml:"expression" json:"expression"`
	// Message says what is wrong when it is false.
	Message string `yaml:"message" json:"message"`
	// Severity is error (default), warning or info.
	Severity string `yaml:"severity" json:"severity,omitempty"`

	// Line and ExpressionLine are where the entry and its expression are
	// in repotool.yaml (set by Parse).
	Line           int `yaml:"-" json:"-"`
	ExpressionLine int `yaml:"-" json:"-"`
}

// CheckMatch selects the objects a check runs on.
type CheckMatch struct {
	APIVersion string `yaml:"apiVersion" json:"apiVersion,omitempty"`
	Kind       string `yaml:"kind" json:"kind,omitempty"`
}

// Matches reports whether an object of apiVersion and kind is checked.
func (m CheckMatch) Matches(apiVersion, kind string) bool {
	return (m.APIVersion == "" || m.APIVersion == apiVersion) && (m.Kind == "" || m.Kind == kind)
}

var checkID = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// ClusterAdmissionPolicies returns the files and folders of admission
// policies repotool.yaml names for a cluster, with the line of each.
func (c *Config) ClusterAdmissionPolicies(cluster string) []PathAt {
	return c.Clusters[cluster].AdmissionPolicies
}

// ClusterFeatureGates returns the feature gates repotool.yaml declares for
// a cluster's API server.
func (c *Config) ClusterFeatureGates(cluster string) map[string]bool {
	return c.Clusters[cluster].FeatureGates
}

// NamespaceLabels returns the labels repotool.yaml declares for a
// namespace.
func (c *Config) NamespaceLabels(ns string) map[string]string {
	return c.Namespaces[ns].Labels
}

// featureGateRE is a feature gate's name, as the API server's
// --feature-gates takes it.
var featureGateRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// PathAt is a repository path given in repotool.yaml, and its line there.
type PathAt struct {
	Path string
	Line int
}

// UnmarshalYAML reads a path and remembers its line.
func (p *PathAt) UnmarshalYAML(n *yaml.Node) error {
	p.Line = n.Line
	return n.Decode(&p.Path)
}

// MarshalYAML writes the path alone.
func (p PathAt) MarshalYAML() (any, error) { return p.Path, nil }

// MarshalJSON writes the path alone.
func (p PathAt) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%q", p.Path)), nil }

// validateAdmission checks clusters.<c>.admissionPolicies,
// namespaces.<ns>.labels and lint.checks.
func validateAdmission(file string, root *yaml.Node, cfg *Config) error {
	bad := badAt(file, root)
	for _, name := range slices.Sorted(maps.Keys(cfg.Clusters)) {
		for _, g := range slices.Sorted(maps.Keys(cfg.Clusters[name].FeatureGates)) {
			if !featureGateRE.MatchString(g) {
				return bad(fmt.Sprintf("clusters.%s.featureGates: %q is not a feature gate's name (such as MutatingAdmissionPolicy)", name, g),
					"clusters", name, "featureGates")
			}
		}
		for _, p := range cfg.Clusters[name].AdmissionPolicies {
			if p.Path == "" || path.IsAbs(p.Path) || !fs.ValidPath(path.Clean(p.Path)) {
				return &Error{File: file, Line: p.Line, Message: fmt.Sprintf("clusters.%s.admissionPolicies: %q is not a path inside the repository: give it "+
					"relative to the repository's root, with slashes", name, p.Path)}
			}
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		for _, k := range slices.Sorted(maps.Keys(cfg.Namespaces[ns].Labels)) {
			if k == "" {
				return bad(fmt.Sprintf("namespaces.%s.labels: a label has an empty key", ns), "namespaces", ns, "labels")
			}
		}
	}
	node, _ := yamlpos.Lookup(root, "lint", "checks")
	seen := map[string]bool{}
	for i := range cfg.Lint.Checks {
		c := &cfg.Lint.Checks[i]
		if node != nil && node.Kind == yaml.SequenceNode && i < len(node.Content) {
			c.Line = node.Content[i].Line
			c.ExpressionLine = c.Line
			if _, l := yamlpos.Lookup(node.Content[i], "expression"); l > 0 {
				c.ExpressionLine = l
			}
		}
		at := func(msg string) error {
			return &Error{File: file, Line: c.Line, Message: fmt.Sprintf("lint.checks[%d]: %s", i, msg)}
		}
		switch {
		case !checkID.MatchString(c.ID):
			return at(fmt.Sprintf("id %q: give an id of lowercase letters, digits and dashes (it names the check in findings)", c.ID))
		case seen[c.ID]:
			return at(fmt.Sprintf("id %q is used twice", c.ID))
		case c.Expression == "":
			return at("give the CEL expression, true when the object passes (expression: ...)")
		case c.Message == "":
			return at("give the message a failing object is reported with (message: ...)")
		}
		switch c.Severity {
		case "", "error", "warning", "info":
		default:
			return at(fmt.Sprintf("severity %q: use error, warning or info", c.Severity))
		}
		seen[c.ID] = true
	}
	return nil
}

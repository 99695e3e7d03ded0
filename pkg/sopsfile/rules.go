package sopsfile

import (
	"fmt"
	"regexp"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// ConfigFile is SOPS's configuration at the repository's root: its
// creation rules say which files are encrypted, and for whom.
const ConfigFile = ".sops.yaml"

// CreationRule is one of ConfigFile's creation_rules, as far as the
// choice of a rule goes: its path_regex, where it stands, and the rule as
// written (its recipients are SOPS's to read).
type CreationRule struct {
	// PathRegex is the rule's path_regex: "" matches every file.
	PathRegex string
	// Line is the rule's line in ConfigFile.
	Line int
	// Node is the rule as written.
	Node *yaml.Node
	path *regexp.Regexp
}

// CreationRules are a ConfigFile's creation rules, in their order.
type CreationRules struct {
	Rules []CreationRule
}

// ParseCreationRules reads the creation rules of root, ConfigFile's first
// document (nil for an empty file). A path_regex that does not compile is
// an error, as it is to SOPS.
func ParseCreationRules(root *yaml.Node) (*CreationRules, error) {
	out := &CreationRules{}
	if root = yamlpos.Root(root); root == nil || root.Kind == 0 || root.Tag == "!!null" {
		return out, nil // an empty file
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: line %d: the file must be a mapping with creation_rules", ConfigFile, root.Line)
	}
	rules, _ := yamlpos.Lookup(root, "creation_rules")
	if rules == nil || rules.Tag == "!!null" {
		return out, nil
	}
	if rules.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: line %d: creation_rules must be a list", ConfigFile, rules.Line)
	}
	for _, n := range rules.Content {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: line %d: a creation rule must be a mapping", ConfigFile, n.Line)
		}
		r := CreationRule{Line: n.Line, Node: n}
		if re, _ := yamlpos.Lookup(n, "path_regex"); re != nil {
			if re.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s: line %d: path_regex must be a string", ConfigFile, re.Line)
			}
			r.PathRegex = re.Value
		}
		if r.PathRegex != "" {
			re, err := regexp.Compile(r.PathRegex)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: path_regex does not compile: %v", ConfigFile, r.Line, err)
			}
			r.path = re
		}
		out.Rules = append(out.Rules, r)
	}
	return out, nil
}

// For is the rule that covers p, a path relative to the repository's root
// (where ConfigFile is), as SOPS picks it: the first with no path_regex or
// one that matches p. nil when none does (or c is nil).
func (c *CreationRules) For(p string) *CreationRule {
	if c == nil {
		return nil
	}
	for i := range c.Rules {
		if r := &c.Rules[i]; r.path == nil || r.path.MatchString(p) {
			return r
		}
	}
	return nil
}

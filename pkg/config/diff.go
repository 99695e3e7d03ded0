package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gobwas/glob"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// DiffConfig configures repotool diff.
type DiffConfig struct {
	// Ignore are changes diff does not show: it counts them, and
	// --no-ignore shows them. Webhook caBundles, checksum/ annotations and
	// fields regenerated on every rendering are ignored by default.
	Ignore []DiffIgnore `yaml:"ignore" json:"ignore,omitempty"`
}

// DiffIgnore ignores changes to fields of the objects it matches: a
// changed object is not shown when every field that changed is ignored.
type DiffIgnore struct {
	// Object is group:kind:namespace/name, each part a glob ("*" for any;
	// the core group is empty: ":ConfigMap:*/*"; a cluster-scoped object's
	// namespace is its target's).
	Object string `yaml:"object" json:"object"`
	// Pointers are JSON pointers (/spec/replicas): a change at one of them
	// or below it is ignored.
	Pointers []string `yaml:"pointers" json:"pointers,omitempty"`
	// Patterns are regular expressions (Go syntax) matched against the
	// JSON pointer of a changed field.
	Patterns []string `yaml:"patterns" json:"patterns,omitempty"`
}

// ObjectGlobs are the globs of Object: group, kind, namespace, name.
func (d DiffIgnore) ObjectGlobs() ([4]glob.Glob, error) {
	var out [4]glob.Glob
	group, rest, ok1 := strings.Cut(d.Object, ":")
	kind, rest, ok2 := strings.Cut(rest, ":")
	ns, name, ok3 := strings.Cut(rest, "/")
	if !ok1 || !ok2 || !ok3 || kind == "" || ns == "" || name == "" {
		return out, fmt.Errorf("%q is not group:kind:namespace/name (\"apps:Deployment:*/web\"; the core group is empty: \":ConfigMap:*/*\")", d.Object)
	}
	for i, p := range []string{group, kind, ns, name} {
		g, err := glob.Compile(p)
		if err != nil {
			return out, fmt.Errorf("%q: %w", p, err)
		}
		out[i] = g
	}
	return out, nil
}

func validateDiff(file string, root *yaml.Node, cfg *Config) error {
	for _, d := range cfg.Diff.Ignore {
		at := func(string) int { return yamlpos.Line(root, 1, "diff", "ignore") } // the list's line: yamlpos does not index sequences
		if _, err := d.ObjectGlobs(); err != nil {
			return &Error{File: file, Line: at("object"), Message: "diff.ignore: " + err.Error()}
		}
		if len(d.Pointers)+len(d.Patterns) == 0 {
			return &Error{File: file, Line: at("object"), Message: "diff.ignore: give the fields to ignore, as pointers (/spec/replicas) or patterns (regular " +
				"expressions over the fields' JSON pointers)"}
		}
		for _, p := range d.Pointers {
			if !strings.HasPrefix(p, "/") {
				return &Error{File: file, Line: at("pointers"), Message: fmt.Sprintf("diff.ignore: %q is not a JSON pointer: start it with /", p)}
			}
		}
		for _, p := range d.Patterns {
			if _, err := regexp.Compile(p); err != nil {
				return &Error{File: file, Line: at("patterns"), Message: fmt.Sprintf("diff.ignore: %q is not a regular expression: %v", p, err)}
			}
		}
	}
	return nil
}

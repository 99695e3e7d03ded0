package sopsfile_test

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// TestCreationRulesFor: the rule SOPS picks for a path, its errors, and an
// empty or rule-less file.
func TestCreationRulesFor(t *testing.T) {
	for _, tc := range []struct {
		name, config, path string
		line               int // 0: no rule
		err                bool
	}{
		{"first match", "creation_rules:\n  - path_regex: a/\n  - path_regex: \\.yaml$\n", "a/x.yaml", 2, false},
		{"second match", "creation_rules:\n  - path_regex: a/\n  - path_regex: \\.yaml$\n", "b/x.yaml", 3, false},
		{"no regex matches all", "creation_rules:\n  - age: x\n  - path_regex: .*\n", "b/x.yaml", 2, false},
		{"none", "creation_rules:\n  - path_regex: ^a/\n", "b/x.yaml", 0, false},
		{"empty file", "", "b/x.yaml", 0, false},
		{"no rules", "stores: {}\n", "b/x.yaml", 0, false},
		{"bad regex", "creation_rules:\n  - path_regex: '('\n", "", 0, true},
		{"not a list", "creation_rules: {}\n", "", 0, true},
		{"rule not a map", "creation_rules: [x]\n", "", 0, true},
		{"regex not a string", "creation_rules:\n  - path_regex: [a]\n", "", 0, true},
		{"file not a map", "- a\n", "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.config), &doc); err != nil {
				t.Fatal(err)
			}
			rules, err := sopsfile.ParseCreationRules(&doc)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", err, tc.err)
			}
			if err != nil {
				return
			}
			r := rules.For(tc.path)
			if got := 0; r != nil {
				got = r.Line
				if got != tc.line {
					t.Errorf("rule at line %d, want %d", got, tc.line)
				}
			} else if tc.line != 0 {
				t.Errorf("no rule, want the one at line %d", tc.line)
			}
		})
	}
	if (*sopsfile.CreationRules)(nil).For("x") != nil {
		t.Error("no rules cover a path")
	}
}

// FuzzParseCreationRules: any .sops.yaml parses or fails, without a panic,
// and For never panics on what parsed.
func FuzzParseCreationRules(f *testing.F) {
	f.Add([]byte("creation_rules:\n  - path_regex: a/\n    age: x\n  - age: y\n"), "a/b.yaml")
	f.Add([]byte("keys: [&k x]\ncreation_rules: [{path_regex: '.*', age: *k}]\n"), "c")
	f.Fuzz(func(t *testing.T, config []byte, p string) {
		var doc yaml.Node
		if yaml.Unmarshal(config, &doc) != nil {
			return
		}
		if rules, err := sopsfile.ParseCreationRules(&doc); err == nil {
			rules.For(p)
		}
	})
}

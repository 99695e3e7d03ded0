package lint_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/lint"
)

func TestParseSuppressions(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		sups  []lint.Suppression
		probs []lint.SuppressionProblem
	}{
		{"above", "# repotool:ignore plaintext-secret demo token\nkey: v\n", []lint.Suppression{{Rules: []string{"plaintext-secret"}, Reason: "demo token", Line: 1, Next: 2}}, nil},
		{"trailing", "key: v # repotool:ignore layout,render known issue #123\n", []lint.Suppression{{Rules: []string{"layout", "render"}, Reason: "known issue #123", Line: 1, Next: 0}}, nil},
		{"skips comments and blanks", "# repotool:ignore layout why\n\n# another comment\n  key: v\n", []lint.Suppression{{Rules: []string{"layout"}, Reason: "why", Line: 1, Next: 4}}, nil},
		{"template comment", "{{/* repotool:ignore plaintext-secret fixture only */}}\n{{ .Values.x }}\n", []lint.Suppression{{Rules: []string{"plaintext-secret"}, Reason: "fixture only", Line: 1, Next: 2}}, nil},
		{"template trim comment", "{{- /* repotool:ignore render flaky upstream chart */ -}}\nx\n", []lint.Suppression{{Rules: []string{"render"}, Reason: "flaky upstream chart", Line: 1, Next: 2}}, nil},
		{"file", "a: 1\n# repotool:ignore-file stray-api-version legacy cluster only\n", []lint.Suppression{{Rules: []string{"stray-api-version"}, Reason: "legacy cluster only", Line: 2, WholeFile: true}}, nil},
		{"no reason", "# repotool:ignore plaintext-secret\n", nil, []lint.SuppressionProblem{{Line: 1, Message: "the suppression of plaintext-secret has no reason: say why the finding is acceptable after the rule ID"}}},
		{"no rule", "# repotool:ignore\n", nil, []lint.SuppressionProblem{{Line: 1, Message: "the suppression names no rule: write `repotool:ignore <rule-id> <reason>`"}}},
		{"bad rule", "# repotool:ignore Plaintext_Secret why\n", nil, []lint.SuppressionProblem{{Line: 1, Message: "\"Plaintext_Secret\" is not a rule ID: write `repotool:ignore <rule-id> <reason>`"}}},
		{"not a comment", "value: repotool:ignore layout nope\n", nil, nil},
		{"other word", "# repotool:ignored layout nope\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sups, probs := lint.ParseSuppressions([]byte(tt.in))
			if diff := cmp.Diff(tt.sups, sups); diff != "" {
				t.Errorf("suppressions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.probs, probs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseSuppressions(f *testing.F) {
	for _, s := range []string{
		"# repotool:ignore plaintext-secret demo\nx: 1\n",
		"# repotool:ignore-file layout why\n",
		"{{/* repotool:ignore render x */}}",
		"# repotool:ignore\n",
		"# repotool:ignore a,b,,c reason\n",
		"#repotool:ignore-filex",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sups, probs := lint.ParseSuppressions(data)
		lines := strings.Count(string(data), "\n") + 1
		for _, s := range sups {
			if len(s.Rules) == 0 || strings.TrimSpace(s.Reason) == "" {
				t.Fatalf("accepted a suppression without rule or reason: %+v", s)
			}
			if s.Line < 1 || s.Line > lines || s.Next > lines || (s.Next != 0 && s.Next <= s.Line) {
				t.Fatalf("bad lines %+v in %d lines", s, lines)
			}
		}
		for _, p := range probs {
			if p.Line < 1 || p.Line > lines || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
	})
}

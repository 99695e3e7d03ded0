package lint

import (
	"github.com/repotool/repotool/pkg/finding"
)

var ruleValuesUnused = &Rule{
	Rule: finding.Rule{
		ID:          "values-unused",
		Summary:     "A values file sets a key that changes nothing: the chart does not declare it, and every target renders byte-identical without it.",
		Remediation: "Fix the key's name (the finding suggests the nearest key the chart declares) or remove it.",
		Severity:    SeverityWarning,
		Description: "Helm ignores values no template reads, so a misspelt key in a cluster file (`replicasCount:`) is accepted in silence, and the change " +
			"it was meant to make never happens. repotool decides by evidence, not by reading templates: a key is reported when the charts' " +
			"defaults (the chart's values.yaml and its subcharts', under their names) do not declare it, and every target that uses the values " +
			"file renders to exactly the same bytes without it. A key under a value the chart leaves free-form (an empty map such as " +
			"`podAnnotations: {}`, or any non-map value) is the chart's to read and never a candidate, and a subtree a template prints whole " +
			"(`toYaml .Values.extra`) changes the output, so it is used. A key whose name some template of the chart contains is taken as read " +
			"(never reported, never rendered again: a conservative shortcut that can miss a typo, never invent one); the others are rendered " +
			"again, a target's together first; a target rendered with placeholders for secret values is not judged. A key from a secret values " +
			"file is named, never its value. A sharded run (lint --shard) leaves the decision to lint --merge, which sees every target of a file.",
		Bad: finding.Example{File: "clusters/prod/shop/prod-values.yaml", Content: `replicasCount: 3   # the chart reads replicaCount
`},
		Good: finding.Example{File: "clusters/prod/shop/prod-values.yaml", Content: `replicaCount: 3
`},
	},
	check: func(in *input, report func(Finding)) {
		if in.evidence != nil && in.evidence.laterUnused {
			return // judged once every cluster is checked (lintByCluster)
		}
		s := judgeValuesUnused(subjectsOf(in.results), in.evidence, in.at.valuesDocs)
		if in.sharded {
			in.unused = s // decided when the shards are merged: a file's targets may be in other shards
			return
		}
		s.reportUnused(in.repo.Repo, report)
	},
}

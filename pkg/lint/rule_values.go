package lint

import (
	"fmt"

	"github.com/repotool/repotool/pkg/finding"
)

var ruleValuesTypeMismatch = &Rule{
	Rule: finding.Rule{
		ID: "values-type-mismatch",
		Summary: "A values file gives a table where the chart's default is a single value, or the reverse; Helm keeps it and only warns, through a log " +
			"nobody reads.",
		Remediation: "Give the value the shape the chart expects (see the chart's values.yaml), or fix the key: it is often a value meant for a nested key, " +
			"or a subchart's.",
		Severity: SeverityWarning,
		Description: "Helm coalesces the values files over the chart's defaults; where one gives a table and the other a single value, Helm keeps the values " +
			"file's and prints `warning: skipped value for app.replicas: Not a table.` (or `cannot overwrite table with non table`) through Go's " +
			"global logger, with a timestamp and no file, or says nothing at all. Templates then get a table where they expect a number, or a " +
			"string where they expect `.repository` and `.tag`. repotool finds every such key, for the chart and its subcharts, reports it at the " +
			"values file and line that wins, and keeps Helm from printing.",
		Bad: Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `image: nginx:1.27   # the chart expects image.repository and image.tag
`},
		Good: Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `image:
  repository: nginx
  tag: "1.27"
`},
	},
	check: func(in *input, report func(Finding)) {
		for _, res := range in.results {
			for _, c := range res.Conflicts {
				msg := fmt.Sprintf("%s is a single value here, but a table in the chart's defaults: Helm keeps this value, and templates that read fields of it "+
					"get nothing", c.Key)
				if c.Table {
					msg = fmt.Sprintf("%s is a table here, but a single value in the chart's defaults: Helm keeps this table and warns \"skipped value ... Not a "+
						"table\" where nobody sees it", c.Key)
				}
				report(Finding{File: c.File, Line: c.Line, Targets: []string{res.Target.Name()}, Message: msg})
			}
		}
	},
}

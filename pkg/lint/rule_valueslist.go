package lint

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

var ruleValuesListReplaced = &Rule{
	Rule: finding.Rule{
		ID:          "values-list-replaced",
		Summary:     "A cluster values file sets a list that a common values file sets too: Helm replaces the list, it does not merge the two.",
		Remediation: "Repeat in the cluster file the items of the common list it should keep, or move the list out of the common file if every cluster sets its own.",
		Severity:    SeverityInfo,
		Off:         true,
		Description: "Helm merges values maps key by key, but a list in a later values file replaces the earlier list whole (helm#3486). A cluster file that " +
			"adds one item to `extraEnv` or `tolerations` drops every item the namespace's common file set, for that cluster only. repotool " +
			"compares each target's cluster values files with its common ones (the first YAML document of each, as Helm reads them; in secret " +
			"files only the keys, which SOPS leaves in clear) and reports every key path where both set a list, at the cluster file's line, with " +
			"the common file's line as a related location. The finding says how many items each list has, never what they are. Off by default, " +
			"since replacing a list is often meant: turn it on with `lint.rules.values-list-replaced.severity: info` in repotool.yaml.",
		Bad: finding.Example{File: "clusters/prod/shop/prod-values.yaml", Content: `# namespaces/shop/common-values.yaml sets
#   tolerations: [{key: dedicated, value: shop, effect: NoSchedule}]
tolerations:   # replaces it: prod pods lose the dedicated toleration
  - {key: spot, operator: Exists, effect: NoSchedule}
`},
		Good: finding.Example{File: "clusters/prod/shop/prod-values.yaml", Content: `tolerations:   # the common item repeated, and prod's own
  - {key: dedicated, value: shop, effect: NoSchedule}
  - {key: spot, operator: Exists, effect: NoSchedule}
`},
	},
	check: func(in *input, report func(Finding)) { checkValuesListReplaced(in.results, in.at.valuesDocs, report) },
}

// listPlace is where a values file sets a list: its key's line, and how many
// items it has.
type listPlace struct {
	file        string
	line, items int
}

func checkValuesListReplaced(results []*render.Result, docs valuesDocs, report func(Finding)) {
	for _, res := range results {
		t := &res.Target
		common := map[string]listPlace{}
		for _, vf := range t.Values {
			if vf.Scope != layout.ScopeCommon {
				continue
			}
			valuesLists(docs, vf, func(path string, at listPlace) { common[path] = at })
		}
		if len(common) == 0 {
			continue
		}
		for _, vf := range t.Values {
			if vf.Scope == layout.ScopeCommon {
				continue
			}
			valuesLists(docs, vf, func(path string, at listPlace) {
				prev, ok := common[path]
				if !ok {
					return
				}
				f := Finding{File: vf.Path, Line: at.line, Targets: []string{t.Name()},
					Message: fmt.Sprintf(
						"%s sets the list %s (%s), which replaces the whole list %s sets (%s): Helm does not merge lists",
						vf.Path,
						path,
						countItems(at.items),
						prev.file,
						countItems(prev.items),
					)}
				f.Related = []finding.Location{{File: prev.file, Line: prev.line, Message: "the common list replaced for this cluster"}}
				report(f)
			})
		}
	}
}

// valuesLists calls found for every list a values file sets, in the
// documents the Helm reads (layout.File.ValuesNode), with its key path
// (dot-separated, in the order of the file); a secret file's SOPS metadata
// is not values.
func valuesLists(docs valuesDocs, vf layout.ValueFile, found func(path string, at listPlace)) {
	doc, err := docs.node(vf.Path)
	if err != nil {
		return
	}
	var walk func(n *yaml.Node, path []string)
	walk = func(n *yaml.Node, path []string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if vf.Secret && sopsfile.IsMetadata(len(path), k.Value) {
				continue
			}
			p := append(path[:len(path):len(path)], k.Value)
			switch v.Kind {
			case yaml.SequenceNode:
				found(strings.Join(p, "."), listPlace{file: vf.Path, line: k.Line, items: len(v.Content)})
			case yaml.MappingNode:
				walk(v, p)
			}
		}
	}
	walk(doc, nil)
}

// countItems is "1 item" or "N items".
func countItems(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

package lint

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
)

var ruleShortnameCollision = &Rule{
	Rule: finding.Rule{
		ID:      "shortname-collision",
		Summary: "A CRD claims a short name, plural or singular that another resource also claims, so kubectl resolves it to only one of them.",
		Remediation: "Remove or rename the clashing name in the CRD you control, and use the full name (kubectl get externalsecrets.external-secrets.io) in " +
			"scripts and runbooks.",
		Severity: SeverityError,
		Description: "`kubectl get es` silently returned Argo Events EventSources instead of External Secrets Operator ExternalSecrets: both CRDs claim the " +
			"short name `es` (so do ECK's Elasticsearch and the archived kubernetes-external-secrets ExternalSecret). kubectl resolves a short " +
			"name, plural or singular by API discovery order: built-in groups first, then custom resource groups, which share one priority and are " +
			"listed by group name. The rule collects every CRD the repository installs (plain YAML files, charts' `crds/` folders and CRDs that " +
			"templates render), reports every name claimed by more than one resource with all claimants and the one kubectl picks, and every name " +
			"that shadows a built-in one (`po`, `svc`, `deploy`, `cm`, `ns`, `ing`, `sa`, ...).",
		Bad: Example{File: "namespaces/argo-events/crds/eventsources.yaml", Content: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: eventsources.argoproj.io
spec:
  group: argoproj.io
  names:
    kind: EventSource
    plural: eventsources
    singular: eventsource
    shortNames: [es]   # also claimed by externalsecrets.external-secrets.io
`},
		Good: Example{File: "namespaces/argo-events/crds/eventsources.yaml", Content: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: eventsources.argoproj.io
spec:
  group: argoproj.io
  names:
    kind: EventSource
    plural: eventsources
    singular: eventsource
    shortNames: [evs]
`},
	},
	check: func(in *input, report func(Finding)) { checkShortnames(in.repo.CRDs, report) },
}

//go:embed data/builtins.yaml
var builtinsYAML []byte

type builtinResource struct {
	Group      string   `json:"group"`
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular"`
	ShortNames []string `json:"shortNames"`
}

var builtins = sync.OnceValue(func() []builtinResource {
	var out []builtinResource
	if err := yaml.UnmarshalStrict(builtinsYAML, &out); err != nil {
		panic("lint: embedded data/builtins.yaml: " + err.Error()) // a build defect, caught by tests
	}
	return out
})

func resourceName(plural, group string) string {
	if group == "" {
		return plural
	}
	return plural + "." + group
}

type claim struct {
	resource, group, how string
	crd                  *CRD
	line                 int
}

func checkShortnames(all *manifest.CRDs, report func(Finding)) {
	claims := map[string][]claim{}
	add := func(token string, c claim) {
		if token == "" {
			return
		}
		for _, o := range claims[token] {
			if o.resource == c.resource {
				return // a resource claiming a name twice (plural == singular)
			}
		}
		claims[token] = append(claims[token], c)
	}
	for _, b := range builtins() {
		res := resourceName(b.Plural, b.Group)
		add(b.Plural, claim{resource: res, group: b.Group, how: "plural"})
		add(b.Singular, claim{resource: res, group: b.Group, how: "singular"})
		for _, s := range b.ShortNames {
			add(s, claim{resource: res, group: b.Group, how: "short name"})
		}
	}
	for i, crds := 0, all.All(); i < len(crds); i++ {
		c := &crds[i]
		res := resourceName(c.Plural, c.Group)
		add(c.Plural, claim{resource: res, group: c.Group, how: "plural", crd: c, line: c.PluralLine})
		add(c.Singular, claim{resource: res, group: c.Group, how: "singular", crd: c, line: c.SingularLine})
		for _, s := range c.ShortNames {
			add(s, claim{resource: res, group: c.Group, how: "short name", crd: c, line: c.ShortNameLines[s]})
		}
	}
	tokens := make([]string, 0, len(claims))
	for t := range claims {
		tokens = append(tokens, t)
	}
	slices.Sort(tokens)
	for _, token := range tokens {
		cs := claims[token]
		if len(cs) < 2 {
			continue
		}
		winner := kubectlPick(cs)
		for _, c := range cs {
			if c.crd == nil {
				continue
			}
			var others []string
			for _, o := range cs {
				if o.resource != c.resource {
					others = append(others, o.resource+" ("+o.how+")")
				}
			}
			var msg string
			switch {
			case winner.crd == nil:
				msg = fmt.Sprintf("%s %q of %s shadows the built-in %s: `kubectl get %s` always returns %s, never %s",
					c.how, token, c.resource, winner.resource, token, winner.resource, c.resource)
			case winner.resource == c.resource:
				msg = fmt.Sprintf("%s %q of %s is also claimed by %s; `kubectl get %s` returns %s (custom resource groups share one priority and kubectl takes "+
					"them in group-name order), so the others are reachable only by full name",
					c.how, token, c.resource, strings.Join(others, ", "), token, c.resource)
			default:
				msg = fmt.Sprintf("%s %q of %s is also claimed by %s; `kubectl get %s` returns %s, not %s (custom resource groups share one priority and kubectl "+
					"takes them in group-name order)",
					c.how, token, c.resource, strings.Join(others, ", "), token, winner.resource, c.resource)
			}
			line := c.line
			if line == 0 {
				line = c.crd.Line
			}
			report(Finding{File: c.crd.Source.String(), Line: line, Object: "apiextensions.k8s.io/v1/CustomResourceDefinition " + c.crd.Name, Message: msg})
		}
	}
}

// kubectlPick is the claimant kubectl resolves a name to: built-in groups
// come first in discovery, then custom resource groups by name.
func kubectlPick(cs []claim) claim {
	best := cs[0]
	for _, c := range cs[1:] {
		switch {
		case best.crd != nil && c.crd == nil:
			best = c
		case (best.crd == nil) == (c.crd == nil) && c.group < best.group:
			best = c
		}
	}
	return best
}

// Package lint checks a GitOps monorepo: its files, and the manifests every
// target renders to, before Argo CD ever sees them.
//
// A rule is a value (Rule) with a stable ID, a summary, a remediation, a
// default severity and a check; Rules lists them all, sorted by ID. Lint
// loads nothing itself: it takes a loaded layout.Repo, renders the targets
// with package render, runs every rule over the result, applies
// suppressions ("# repotool:ignore <rule> <reason>" comments and
// repotool.yaml lint.ignore entries) and returns a Result whose findings are
// sorted and de-duplicated across clusters. The Result decides the exit
// code. Findings never contain a secret value.
//
// Formatting findings is package output's job; this package never prints.
//
// Inside, the files stand in one order, each above the files it refers to
// and none referring back (TestFilesInOrder), from the top:
//
//   - lint.go (Lint, Check), bycluster.go (a run a cluster at a time, over
//     pkg/held's schedule), merge.go (shards folded into one result),
//     shard.go and inventory.go (a shard's targets, and the CRDs of the
//     others), admit.go (what render --as-admitted and diff --as-admitted
//     show), schemawarm.go;
//   - registry.go: the rules, sorted, and checkAll, which builds the input
//     and hands each rule its part (runRule stamps its ID and severity, and
//     repotool.yaml's override);
//   - the rules, rule_<name>.go, one Rule value each, and the function it
//     checks with, which takes the facts it reads (TestRulesReadNarrowFacts);
//   - what several rules share: the admission engine (admission*.go, one
//     evaluation per run for admission-policy and admission-drift),
//     values-unused's scan (unused.go), secrets.go (what makes a Secret);
//   - the input (input.go, built by shared.go's buildInput): the
//     repository's facts read once (repofacts.go: plain manifests, CRDs,
//     .sops.yaml, suppressions), the cluster views (cluster.go), positions
//     (positions.go: where objects and values are), evidence.go (what a run
//     renders again with), options.go;
//   - objects.go, the one door to rendered objects: contentOf and textOf,
//     whatever a run kept of an object, and objects.fact, the facts rules
//     declare (Rule.facts) kept for the objects whose parsed content a run
//     lets go; rule.go, the Rule type; finding.go, result.go.
//
// Lint renders with render.Renderer.RenderEach and, as each rendering
// arrives, lets go of the parsed content of the kinds no rule reads whole
// (readWhole), keeping the facts the rules declare. A run over more than
// Options.HeldTargets targets in more than one cluster is checked a cluster
// at a time (held.Run): every target renders once and is stored, compressed,
// in memory; then each cluster's renderings come back, are checked as a
// shard of as many as there are clusters, and are let go; values-unused is
// judged once over every target, and each part's findings folded in as
// Merge folds shards. It reports what one pass reports (TestByClusterExact).
package lint

package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/values"
)

// ShardReportVersion is the version of ShardReport's JSON.
const ShardReportVersion = 1

// ShardReport is what one shard of a sharded run (Options.Shard) hands the
// merge: its findings and counts, and values-unused's judgment of the
// keys its targets set, which Merge decides across shards. It holds key
// paths and positions, never a value.
type ShardReport struct {
	Version  int             `json:"version"`
	Shard    string          `json:"shard"`
	Findings []ShardFinding  `json:"findings"`
	Summary  finding.Summary `json:"summary"`
	Unused   []UnusedKey     `json:"unused"`
	// ValuesUnused is false when the rule did not judge (it is off, or
	// the run had nothing to judge by).
	ValuesUnused bool `json:"valuesUnused"`
	// Layout identifies the repository's layout the shard linted (its
	// targets, their charts and values files, repotool.yaml): Merge
	// refuses shards of different layouts.
	Layout string `json:"layout"`
}

// ShardFinding is a finding with the key its fingerprint is made of,
// which lint's JSON output leaves out.
type ShardFinding struct {
	finding.Finding
	Key string `json:"key,omitempty"`
}

// UnusedKey is an undeclared key a values file sets: the shard's targets
// that use the file, and whether one of them renders differently without
// it.
type UnusedKey struct {
	File    string   `json:"file"`
	Path    []string `json:"path"`
	Line    int      `json:"line"`
	Nearest string   `json:"nearest,omitempty"`
	Targets []string `json:"targets"`
	Used    bool     `json:"used,omitempty"`
}

// ShardReport is the run's report for the merge; shard is the run's
// Options.Shard.
func (r *Result) ShardReport(shard layout.Shard) *ShardReport {
	out := &ShardReport{Version: ShardReportVersion, Shard: shard.String(), Findings: []ShardFinding{}, Summary: r.Summary, Unused: []UnusedKey{},
		ValuesUnused: r.unused != nil, Layout: r.layout}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, ShardFinding{f, f.Key})
	}
	out.Unused = append(out.Unused, r.unused.undeclaredKeys()...)
	return out
}

// undeclaredKeys is what a part's values-unused scan found, as a ShardReport
// keeps them; none for nil.
func (u *unusedScan) undeclaredKeys() []UnusedKey {
	if u == nil {
		return nil
	}
	var out []UnusedKey
	for _, id := range u.order {
		k := u.keys[id]
		out = append(out, UnusedKey{File: k.file, Path: k.cand.Path, Line: k.cand.Line, Nearest: k.cand.Nearest,
			Targets: slices.Compact(slices.Sorted(slices.Values(k.targets))), Used: k.used})
	}
	return out
}

// ParseShardReport reads a ShardReport's JSON.
func ParseShardReport(data []byte) (*ShardReport, error) {
	r, err := decodeVersioned(data, "shard report", ShardReportVersion, func(r *ShardReport) int { return r.Version })
	if err != nil {
		return nil, err
	}
	if _, err := layout.ParseShard(r.Shard); err != nil {
		return nil, err
	}
	return r, nil
}

// Merge makes one run's result of the reports of every shard of a sharded
// run over repo (each shard once, all of one count): the findings the
// shards made, and values-unused decided over every target that uses a
// values file, with repo's suppressions and severities. It is what one
// run without shards reports. A Merger does the same one report at a time.
func Merge(repo *layout.Repo, reports []*ShardReport) (*Result, error) {
	mg := NewMerger(repo)
	for _, sr := range reports {
		if err := mg.Add(sr); err != nil {
			return nil, err
		}
	}
	return mg.Merged()
}

// A Merger merges the reports of a sharded run's shards as Merge does,
// one at a time: each report can be let go once added, so that the merge
// holds the findings once, not every shard's report.
type Merger struct {
	repo   *layout.Repo
	layout string
	shards shardSet
	fold   fold
}

// NewMerger returns a Merger for the shards of a run over repo.
func NewMerger(repo *layout.Repo) *Merger {
	return &Merger{repo: repo, layout: layoutDigest(repo), fold: fold{scan: newUnusedScan()}}
}

// Add adds a shard's report, refusing one of another run (another shard
// count, another layout) or a shard given before.
func (mg *Merger) Add(sr *ShardReport) error {
	if err := mg.shards.addShard(sr.Shard); err != nil {
		return err
	}
	if sr.Layout != mg.layout {
		return fmt.Errorf("shard %s linted another layout than the repository's here (another commit, or another repotool.yaml): "+
			"merge the reports of one run, in a checkout of the commit it linted", sr.Shard)
	}
	mg.fold.addReport(sr)
	return nil
}

// Merged is one run's result of the reports added, refused unless every
// shard was. It is to be asked once, after the last Add.
func (mg *Merger) Merged() (*Result, error) {
	if err := mg.shards.checkComplete(); err != nil {
		return nil, err
	}
	return mg.fold.finish(mg.repo, nil), nil
}

// A fold folds the reports of a run's parts one at a time (Merge's
// shards, or the clusters of a run checked a cluster at a time), each
// finding held once however many parts report it.
type fold struct {
	found  finding.Folder
	sum    finding.Summary
	scan   *unusedScan
	judged bool
}

// addReport folds a part's report in.
func (m *fold) addReport(sr *ShardReport) {
	for _, f := range sr.Findings {
		f.Finding.Key = f.Key
		m.found.Add(f.Finding)
	}
	s := sr.Summary
	m.sum.Suppressed += s.Suppressed
	m.sum.Targets += s.Targets
	m.sum.Rendered += s.Rendered
	m.sum.Placeholders = append(m.sum.Placeholders, s.Placeholders...)
	m.judged = m.judged || sr.ValuesUnused
	for _, u := range sr.Unused {
		m.scan.addKey(u)
	}
}

// checkAndFold checks the part of targets (their renderings, results) and folds
// its findings in as they are found, as a check and then addReport would fold
// them: a part's findings are never held together, nor its report. It
// returns the checks' own failure (Result.Err).
func (m *fold) checkAndFold(repo *layout.Repo, opts Options, targets []layout.Target, results []*render.Result, objs *objects, ev *evidence) error {
	keep := func(*Finding) bool { return true }
	if opts.Cluster != "" || opts.Shard.N > 1 || opts.Targets != nil { // as checkPart narrows
		keep = partFilter(targets, opts.Shard.First(), opts.Cluster != "")
	}
	unused, err := runChecks(repo, results, opts, objs, ev, func(f Finding, suppressed bool) {
		switch {
		case !keep(&f):
		case suppressed:
			m.sum.Suppressed++
		default:
			m.found.Add(f)
		}
	})
	countRendered(&m.sum, results)
	if unused != nil {
		m.judged = true
		for _, u := range unused.undeclaredKeys() {
			m.scan.addKey(u)
		}
	}
	return err
}

// finish is one run's result of the parts added, with values-unused
// decided over every part and repo's suppressions: sup when they have
// been read (nil: read them).
func (m *fold) finish(repo *layout.Repo, sup *suppressor) *Result {
	res := &Result{}
	res.Summary = m.sum
	slices.Sort(res.Summary.Placeholders)
	if m.judged {
		if sup == nil {
			r := &repoFacts{Repo: repo, files: repoFiles(repo)}
			r.readScanned()
			sup = r.loadSuppressions() // their problems are in the first shard's report
		}
		runRule(repo, ruleValuesUnused, func(emit func(Finding)) { m.scan.reportUnused(repo, emit) }, func(f Finding) {
			if sup.suppressed(f) {
				res.Summary.Suppressed++
				return
			}
			m.found.Add(f)
		})
	}
	res.Findings = m.found.Findings()
	res.Count() // a Folder's findings are in their printed order
	return res
}

// addKey merges a shard's judgment of a key into the scan.
func (s *unusedScan) addKey(u UnusedKey) {
	id := u.File + "\x00" + values.Key(u.Path)
	k := s.keys[id]
	if k == nil {
		k = &unusedKey{file: u.File, cand: values.Candidate{Path: u.Path, Line: u.Line, Nearest: u.Nearest}}
		s.keys[id] = k
		s.order = append(s.order, id)
	}
	k.targets = append(k.targets, u.Targets...)
	k.used = k.used || u.Used
}

// A shardSet is the shards of one run given to a merge, each once.
type shardSet struct {
	n    int
	seen map[int]bool
}

// addShard adds shard ("i/n"), refusing one of another count than those before
// or given before.
func (s *shardSet) addShard(shard string) error {
	sh, err := layout.ParseShard(shard)
	if err != nil {
		return err
	}
	switch {
	case s.n != 0 && sh.N != s.n:
		return fmt.Errorf("shard %s is of a run in %d shards, the others of one in %d", shard, sh.N, s.n)
	case s.seen[sh.I]:
		return fmt.Errorf("shard %s is given twice", shard)
	}
	if s.seen == nil {
		s.seen = map[int]bool{}
	}
	s.n, s.seen[sh.I] = sh.N, true
	return nil
}

// checkComplete refuses a set that is not every shard of one run.
func (s *shardSet) checkComplete() error {
	if s.n == 0 {
		return fmt.Errorf("no shard reports to merge")
	}
	var missing []string
	for i := 1; i <= s.n; i++ {
		if !s.seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, s.n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s is missing: merge the reports of every shard", strings.Join(missing, ", "))
	}
	return nil
}

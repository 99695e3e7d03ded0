package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
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
	if r.unused != nil {
		for _, id := range r.unused.order {
			k := r.unused.keys[id]
			out.Unused = append(out.Unused, UnusedKey{File: k.file, Path: k.cand.Path, Line: k.cand.Line, Nearest: k.cand.Nearest,
				Targets: slices.Compact(slices.Sorted(slices.Values(k.targets))), Used: k.used})
		}
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

// decodeVersioned reads the JSON of a file one run of repotool hands
// another (a shard report, a CRD inventory), refusing another version.
func decodeVersioned[T any](data []byte, what string, want int, version func(*T) int) (*T, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not a %s: %w", what, err)
	}
	if got := version(&v); got != want {
		return nil, fmt.Errorf("%s version %d, want %d: make it with the repotool that reads it", what, got, want)
	}
	return &v, nil
}

// Merge makes one run's result of the reports of every shard of a sharded
// run over repo (each shard once, all of one count): the findings the
// shards made, and values-unused decided over every target that uses a
// values file, with repo's suppressions and severities. It is what one
// run without shards reports.
func Merge(repo *layout.Repo, reports []*ShardReport) (*Result, error) {
	if err := checkShards(reports); err != nil {
		return nil, err
	}
	want := layoutDigest(repo)
	for _, sr := range reports {
		if sr.Layout != want {
			return nil, fmt.Errorf("shard %s linted another layout than the repository's here (another commit, or another repotool.yaml): "+
				"merge the reports of one run, in a checkout of the commit it linted", sr.Shard)
		}
	}
	return merge(repo, reports), nil
}

// merge is Merge of reports checked to be of one run over repo.
func merge(repo *layout.Repo, reports []*ShardReport) *Result {
	m := &merger{scan: newUnusedScan()}
	for _, sr := range reports {
		m.add(sr)
	}
	return m.finish(repo, nil)
}

// A merger folds the reports of a run's parts one at a time (Merge's
// shards, or the clusters of a run checked a cluster at a time), each
// finding held once however many parts report it.
type merger struct {
	found  finding.Folder
	sum    finding.Summary
	scan   *unusedScan
	judged bool
}

// add folds a part's report in.
func (m *merger) add(sr *ShardReport) {
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
		m.scan.add(u)
	}
}

// finish is one run's result of the parts added, with values-unused
// decided over every part and repo's suppressions: sup when they have
// been read (nil: read them).
func (m *merger) finish(repo *layout.Repo, sup *suppressor) *Result {
	res := &Result{}
	res.Summary = m.sum
	slices.Sort(res.Summary.Placeholders)
	if m.judged {
		if sup == nil {
			r := &repoFacts{Repo: repo, files: repoFiles(repo)}
			r.readScanned()
			sup = r.loadSuppressions(func(Finding) {}) // their own findings are in the first shard's report
		}
		runRule(repo, ruleValuesUnused, func(emit func(Finding)) { m.scan.report(repo, emit) }, func(f Finding) {
			if sup.suppressed(f) {
				res.Summary.Suppressed++
				return
			}
			m.found.Add(f)
		})
	}
	res.Findings = m.found.Findings()
	res.Finish()
	return res
}

// add merges a shard's judgment of a key into the scan.
func (s *unusedScan) add(u UnusedKey) {
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

// checkShards refuses reports that are not every shard of one run once.
func checkShards(reports []*ShardReport) error {
	if len(reports) == 0 {
		return fmt.Errorf("no shard reports to merge")
	}
	seen := map[int]bool{}
	n := 0
	for _, r := range reports {
		sh, err := layout.ParseShard(r.Shard)
		if err != nil {
			return err
		}
		switch {
		case n != 0 && sh.N != n:
			return fmt.Errorf("shard %s is of a run in %d shards, the others of one in %d", r.Shard, sh.N, n)
		case seen[sh.I]:
			return fmt.Errorf("shard %s is given twice", r.Shard)
		}
		n, seen[sh.I] = sh.N, true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s is missing: merge the reports of every shard", strings.Join(missing, ", "))
	}
	return nil
}

// layoutDigest identifies a repository's layout: its configuration file,
// and every target with its chart and values files, in order.
func layoutDigest(repo *layout.Repo) string {
	h := sha256.New()
	if repo.ConfigFile != "" {
		data, _ := repoFiles(repo).Get(repo.ConfigFile).Data()
		h.Write(data)
	}
	for _, t := range repo.Targets {
		fmt.Fprintf(h, "\x00%s %s", t.Name(), t.ChartDir)
		for _, v := range t.Values {
			fmt.Fprintf(h, " %s", v.Path)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

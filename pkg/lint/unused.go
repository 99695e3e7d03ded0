package lint

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/values"
)

// unusedKey is an undeclared key of one values file: the targets that use
// the file, and whether any of them renders differently without it.
type unusedKey struct {
	file    string
	cand    values.Candidate
	targets []string
	used    bool
}

// judgeValuesUnused judges the undeclared keys of the values files of the
// rendered targets; nil without evidence to judge by.
func judgeValuesUnused(subjects []unusedSubject, ev *evidence, docs valuesDocs) *unusedScan {
	if ev == nil {
		return nil
	}
	s := newUnusedScan()
	targets := make([]layout.Target, len(subjects))
	for i, sub := range subjects {
		targets[i] = sub.target
	}
	// A chart at a time, let go after its last target: judging loads
	// each chart again (its defaults, its templates, renderings without
	// keys).
	order := render.ByChart(targets)
	for k, i := range order {
		s.judge(docs, ev, &subjects[i])
		if k+1 == len(order) || targets[order[k+1]].ChartDir != targets[i].ChartDir {
			ev.renderer.ReleaseChart(targets[i].ChartDir)
		}
	}
	return s
}

// unusedSubject is a target values-unused judges: one that rendered, with
// its secret values (placeholders leave nothing to compare with), and the
// digest of its rendering, what a rendering without a key must match.
type unusedSubject struct {
	target layout.Target
	digest [sha256.Size]byte
}

// subjectsOf are the targets of results values-unused judges, in order.
func subjectsOf(results []*render.Result) []unusedSubject {
	var out []unusedSubject
	for _, res := range results {
		if sub, ok := subjectOf(res); ok {
			out = append(out, sub)
		}
	}
	return out
}

// subjectOf is res as values-unused judges it; false when it is not
// judged.
func subjectOf(res *render.Result) (unusedSubject, bool) {
	digest, ok := digestOf(res)
	return unusedSubject{target: res.Target, digest: digest}, ok
}

// digestOf is the digest of res's stream values-unused compares; false
// when res is not judged.
func digestOf(res *render.Result) ([sha256.Size]byte, bool) {
	if res.Err != nil || len(res.Placeholders) > 0 {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(res.Manifest), true
}

func newUnusedScan() *unusedScan {
	return &unusedScan{keys: map[string]*unusedKey{}, candidates: map[string][]values.Candidate{}}
}

// unusedScan are the undeclared keys of the values files, each with the
// targets that use its file and whether some target may read it.
type unusedScan struct {
	keys       map[string]*unusedKey         // by file and key
	order      []string                      // keys' ids in the order found
	candidates map[string][]values.Candidate // by values file: its chart's is the same for every target
}

// judge decides, for one rendered target, which of its files' undeclared
// keys it may read. One rendering without every key in question; only
// when that changes the output are they tried one by one. A key is
// reported only if, on its own, it changes nothing.
func (s *unusedScan) judge(docs valuesDocs, ev *evidence, sub *unusedSubject) {
	t := &sub.target
	defaults, err := ev.renderer.ChartDefaults(ev.ctx, t.ChartDir)
	if err != nil {
		return // the target rendered, so this cannot fail but by interrupt
	}
	open, paths := s.inQuestion(docs, ev, t, defaults)
	if len(paths) == 0 {
		return
	}
	same := func(ps ...[]string) bool {
		without, err := ev.renderer.Without(ev.ctx, t, ps...)
		return err == nil && sha256.Sum256(without) == sub.digest
	}
	all := same(paths...)
	for _, p := range paths {
		if (len(paths) == 1 && all) || (len(paths) > 1 && same(p)) {
			continue
		}
		for _, k := range open[values.Key(p)] {
			k.used = true // it changes the output, or may: not reported
		}
	}
}

// inQuestion records t's undeclared keys and returns those still in
// question, by path (two files may set the same key: removing it removes
// both), and their paths.
func (s *unusedScan) inQuestion(docs valuesDocs, ev *evidence, t *layout.Target, defaults values.Trace) (map[string][]*unusedKey, [][]string) {
	open := map[string][]*unusedKey{}
	var paths [][]string
	for _, vf := range t.Values {
		cands, ok := s.candidates[vf.Path]
		if !ok {
			cands = undeclared(docs, defaults, vf.Path, vf.Secret)
			s.candidates[vf.Path] = cands
		}
		for _, c := range cands {
			id := vf.Path + "\x00" + values.Key(c.Path)
			k := s.keys[id]
			if k == nil {
				k = &unusedKey{file: vf.Path, cand: c}
				s.keys[id] = k
				s.order = append(s.order, id)
			}
			k.targets = append(k.targets, t.Name())
			if k.used {
				continue
			}
			// A key some template names may be read: not a finding,
			// and not worth a rendering. One no template names (a
			// typo, a key for another chart) is rendered without.
			if named, err := ev.renderer.TemplatesMention(ev.ctx, t.ChartDir, c.Path[len(c.Path)-1]); err != nil || named {
				k.used = true
				continue
			}
			pk := values.Key(c.Path)
			if open[pk] == nil {
				paths = append(paths, c.Path)
			}
			open[pk] = append(open[pk], k)
		}
	}
	return open, paths
}

// reportUnused reports the keys no target reads. A file some target uses that
// this run did not judge (lint --changed-since renders only the affected
// targets; a target that did not render) may be read there: its keys are
// not reported.
func (s *unusedScan) reportUnused(repo *layout.Repo, report func(Finding)) {
	if s == nil {
		return
	}
	users := map[string]int{}
	for _, t := range repo.Targets {
		for _, vf := range t.Values {
			users[vf.Path]++
		}
	}
	for _, id := range s.order {
		k := s.keys[id]
		targets := slices.Compact(slices.Sorted(slices.Values(k.targets)))
		if k.used || len(targets) < users[k.file] {
			continue
		}
		msg := fmt.Sprintf("%s sets %s, which the chart does not declare and which changes nothing: %s the same without it",
			k.file, strings.Join(k.cand.Path, "."), renderList(targets))
		if k.cand.Nearest != "" {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(append(slices.Clone(k.cand.Path[:len(k.cand.Path)-1]), k.cand.Nearest), "."))
		}
		report(Finding{File: k.file, Line: k.cand.Line, Targets: targets, Message: msg})
	}
}

// undeclared are the keys a values file sets that defaults do not declare
// (values.Undeclared over the documents the Helm reads:
// layout.File.ValuesNode). A SOPS-encrypted file without the secret suffix
// (which plaintext-secret reports) has SOPS metadata too.
func undeclared(docs valuesDocs, defaults values.Trace, file string, secret bool) []values.Candidate {
	f := docs.files.Get(file)
	doc, err := f.ValuesNode(docs.helm4)
	if err != nil {
		return nil
	}
	return values.Undeclared(defaults, values.Layer{File: file, Doc: doc, Secret: secret || f.Sops() != nil})
}

// renderList says which targets render the same: "target c/n renders",
// "targets a, b render".
func renderList(names []string) string {
	if len(names) == 1 {
		return "target " + names[0] + " renders"
	}
	return "targets " + strings.Join(names, ", ") + " render"
}

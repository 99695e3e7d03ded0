package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// BaselineVersion is the version of the baseline file format.
const BaselineVersion = 1

// Baseline is a set of findings to leave out of later runs, by fingerprint
// (Finding.Fingerprint): what a repository had when it adopted repotool,
// so that only new findings fail its checks.
type Baseline struct {
	Version  int             `json:"version"`
	Findings []BaselineEntry `json:"findings"`
}

// BaselineEntry is one finding of a baseline. Rule, File and Message are
// there for people reading the file; only the fingerprint is matched.
type BaselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	File        string `json:"file,omitempty"`
	Message     string `json:"message"`
}

// NewBaseline records every finding of res.
func NewBaseline(res *Result) *Baseline {
	b := &Baseline{Version: BaselineVersion, Findings: []BaselineEntry{}}
	for _, f := range res.Findings {
		b.Findings = append(b.Findings, BaselineEntry{Fingerprint: f.Fingerprint(), Rule: f.Rule, File: f.File, Message: f.Message})
	}
	slices.SortFunc(b.Findings, func(a, c BaselineEntry) int {
		return strings.Compare(a.Fingerprint, c.Fingerprint)
	})
	b.Findings = slices.CompactFunc(b.Findings, func(a, c BaselineEntry) bool { return a.Fingerprint == c.Fingerprint })
	return b
}

// Write writes the baseline as indented JSON, sorted, so it diffs well.
func (b *Baseline) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// ReadBaseline reads a baseline file. name is for messages.
func ReadBaseline(name string, r io.Reader) (*Baseline, error) {
	dec := json.NewDecoder(io.LimitReader(r, 64<<20))
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: not a repotool baseline (%v); write one with `repotool lint --write-baseline %s`", name, err, name)
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf(
			"%s: baseline version %d, this repotool reads version %d; write it again with `repotool lint --write-baseline %s`",
			name,
			b.Version,
			BaselineVersion,
			name,
		)
	}
	return &b, nil
}

// ApplyBaseline leaves out the findings b records, counting them in
// Summary.Baselined, and recounts the summary.
func (r *Result) ApplyBaseline(b *Baseline) {
	known := map[string]bool{}
	for _, e := range b.Findings {
		known[e.Fingerprint] = true
	}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		if known[f.Fingerprint()] && f.Rule != invalidSuppression {
			r.Summary.Baselined++
			continue
		}
		kept = append(kept, f)
	}
	r.Findings = kept
	r.Count() // what is left of findings in their printed order stays in it
}

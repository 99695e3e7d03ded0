package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
)

// TestMergerRefuses: a Merger given the shards one at a time reports what
// Merge reports, and refuses a set that is not every shard of one run
// once, naming the shard.
func TestMergerRefuses(t *testing.T) {
	useTestKey(t)
	repo, opts := loadCase(t, fixture)
	shard := func(i, n int) *lint.ShardReport {
		o := opts
		o.Shard = layout.Shard{I: i, N: n}
		res, err := lint.Lint(context.Background(), repo, o)
		if err != nil {
			t.Fatal(err)
		}
		return res.ShardReport(o.Shard)
	}
	one, two, three := shard(1, 3), shard(2, 3), shard(3, 3)
	other := shard(1, 2)
	want, err := lint.Merge(repo, []*lint.ShardReport{one, two, three})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		reports []*lint.ShardReport
		err     string // "" for the merge of every shard
	}{
		{"every shard, in any order", []*lint.ShardReport{three, one, two}, ""},
		{"a shard missing", []*lint.ShardReport{one, three}, "shard 2/3 is missing"},
		{"a shard twice", []*lint.ShardReport{one, two, two, three}, "shard 2/3 is given twice"},
		{"a shard of another count", []*lint.ShardReport{one, other, two, three}, "shard 1/2 is of a run in 2 shards, the others of one in 3"},
		{"no shard", nil, "no shard reports to merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mg := lint.NewMerger(repo)
			var err error
			for _, sr := range tt.reports {
				if err = mg.Add(sr); err != nil {
					break
				}
			}
			var got *lint.Result
			if err == nil {
				got, err = mg.Merged()
			}
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err == "":
				if !cmp.Equal(want.Report, got.Report) {
					t.Errorf("Merger differs from Merge (-Merge +Merger):\n%s", cmp.Diff(want.Report, got.Report))
				}
			case err == nil || !strings.Contains(err.Error(), tt.err):
				t.Errorf("error %v, want one saying %q", err, tt.err)
			}
		})
	}
}

package layout

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Shard is one of N deterministic parts of a repository's targets, for
// spreading render and lint over CI jobs: every target of a namespace is in
// the same part (its chart is loaded once), chosen by a hash of the
// namespace's name, so a namespace stays in its part when others come and
// go. I is 1-based.
type Shard struct{ I, N int }

// MaxShards is the most parts a repository's targets can be split into:
// far more than CI jobs, and small enough for every hash and index.
const MaxShards = 10_000

// ParseShard parses "i/n", 1 <= i <= n <= MaxShards, in decimal without
// signs or leading zeros.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(is)
	n, nerr := strconv.Atoi(ns)
	sh = Shard{I: i, N: n}
	if !ok || ierr != nil || nerr != nil || sh.String() != s || n < 1 || n > MaxShards || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: give i/n with 1 <= i <= n <= %d, e.g. 2/4", s, MaxShards)
	}
	return sh, nil
}

// Holds reports whether the target is in the shard; every target is in the
// zero Shard.
func (s Shard) Holds(t Target) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(t.Short()))
	return int(h.Sum32()%uint32(s.N))+1 == s.I
}

// Targets returns the targets of ts in the shard, in order: ts itself
// when there is one part.
func (s Shard) Targets(ts []Target) []Target {
	if s.N <= 1 {
		return ts
	}
	var out []Target
	for _, t := range ts {
		if s.Holds(t) {
			out = append(out, t)
		}
	}
	return out
}

// First reports whether this is the first shard (or no sharding): the one
// that reports what belongs to no target.
func (s Shard) First() bool { return s.N <= 1 || s.I == 1 }

// ClusterTargets returns the targets of ts whose cluster is in the shard,
// in order: every target of a cluster is in the same part, so that the
// checks across a cluster's targets (lint's admission policies, duplicate
// objects, Secret conflicts, AppProject permissions) see all of them. The
// clusters, sorted by name, are dealt to the parts in turn.
func (s Shard) ClusterTargets(ts []Target) []Target {
	if s.N <= 1 {
		return ts
	}
	var clusters []string
	for _, t := range ts {
		clusters = append(clusters, t.Cluster)
	}
	slices.Sort(clusters)
	clusters = slices.Compact(clusters)
	var out []Target
	for _, t := range ts {
		if i, _ := slices.BinarySearch(clusters, t.Cluster); i%s.N+1 == s.I {
			out = append(out, t)
		}
	}
	return out
}

// String is "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

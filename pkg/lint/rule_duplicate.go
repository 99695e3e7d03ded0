package lint

import (
	"fmt"
	"hash/maphash"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/manifest"
)

var ruleDuplicateObject = &Rule{
	Rule: finding.Rule{
		ID:          "duplicate-object",
		Summary:     "The same object (group, kind, namespace, name) is rendered twice in one cluster: by two targets, or by two tiers.",
		Remediation: "Render the object from one chart only: remove it from the other, or give one of them another name.",
		Severity:    SeverityError,
		Description: "Argo CD tracks each live object as owned by one Application. When two Applications (two targets of a cluster, or two tiers) render the " +
			"same group, kind, namespace and name, it reports the object as a shared resource and the two fight over it: each sync overwrites the " +
			"other's version, and pruning one deletes the other's. The check runs per cluster over every target's rendered objects; an object's " +
			"namespace is where it lands (its own, or its target's). The finding is at the second object, with the first as a related location.",
		Bad: finding.Example{File: "namespaces/platform/templates/rbac.yaml", Content: `# namespaces/shop/templates/rbac.yaml renders the same ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-reader
`},
		Good: finding.Example{File: "namespaces/platform/templates/rbac.yaml", Content: `# one chart owns it; the other chart uses it
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-reader
`},
	},
	check: func(in *input, report func(Finding)) { checkDuplicateObjects(in.clusterViews(), in.at, report) },
}

func checkDuplicateObjects(views []*clusterView, at *positions, report func(Finding)) {
	for _, v := range views {
		first := newFirstSeen(len(v.objs))
		for i, p := range v.objs {
			j := first.indexOf(v.objs, i)
			if j == i {
				continue
			}
			prev := v.objs[j]
			where := "twice by " + p.res.Target.Name()
			if prev.res != p.res {
				where = fmt.Sprintf("by %s and %s", prev.res.Target.Name(), p.res.Target.Name())
			}
			f := at.objectFinding(p, fmt.Sprintf("%s %s is rendered %s in cluster %s: Argo CD would see it as shared by two Applications, which overwrite (and "+
				"may prune) each other's version", p.o.Kind, secretName(p.ns, p.o.Name), where, v.name))
			f.Related = []finding.Location{at.location(prev, "the same object, rendered first")}
			report(f)
		}
	}
}

// firstSeen finds the first of a cluster's objects with each key (group,
// kind, namespace, name): by the key's 64-bit hash, the index of the
// first object with it, and a key whose hash an earlier key took, in
// spill. A key held whole (four strings) and its object took some 100
// bytes an object, where a cluster of 1,000 targets holds some 45,000.
type firstSeen struct {
	hash  func(manifest.Key) uint64
	by    map[uint64]int32
	spill map[manifest.Key]int32
}

// newFirstSeen is a firstSeen for n objects.
func newFirstSeen(n int) *firstSeen {
	seed := maphash.MakeSeed()
	return &firstSeen{hash: func(k manifest.Key) uint64 { return maphash.Comparable(seed, k) }, by: make(map[uint64]int32, n)}
}

func keyOf(p placed) manifest.Key {
	return manifest.Key{Group: p.o.Group(), Kind: p.o.Kind, Namespace: p.ns, Name: p.o.Name}
}

// indexOf is the index of the first of objs[:i+1] with the key of objs[i],
// objects asked for in order.
func (s *firstSeen) indexOf(objs []placed, i int) int {
	k := keyOf(objs[i])
	h := s.hash(k)
	j, ok := s.by[h]
	switch {
	case !ok:
		s.by[h] = int32(i)
		return i
	case keyOf(objs[j]) == k:
		return int(j)
	}
	if j, ok := s.spill[k]; ok {
		return int(j)
	}
	if s.spill == nil {
		s.spill = map[manifest.Key]int32{}
	}
	s.spill[k] = int32(i)
	return i
}

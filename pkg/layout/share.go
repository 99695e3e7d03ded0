package layout

import "slices"

// Share makes r's targets hold other's strings and lists where they are
// equal, so that two layouts of one repository (the two revisions diff
// and lint --changed-since compare) hold what they have in common once:
// at 20,000 targets, some 3 MB of paths and values lists a layout. What r
// says does not change. Neither layout's targets may be changed after.
func (r *Repo) Share(other *Repo) {
	if r == nil || other == nil {
		return
	}
	for i := range r.Targets {
		t := &r.Targets[i]
		if o, ok := other.Target(t.Cluster, t.Short()); ok {
			t.share(o)
		}
	}
}

// share makes t hold o's strings and lists where they are equal.
func (t *Target) share(o *Target) {
	for _, s := range []struct{ mine, theirs *string }{
		{&t.Cluster, &o.Cluster}, {&t.Namespace, &o.Namespace}, {&t.Dir, &o.Dir}, {&t.ChartDir, &o.ChartDir},
		{&t.NamespaceDir, &o.NamespaceDir}, {&t.KubeVersion, &o.KubeVersion},
	} {
		if *s.mine == *s.theirs {
			*s.mine = *s.theirs
		}
	}
	if t.Tier == o.Tier {
		t.Tier = o.Tier
	}
	if slices.Equal(t.Values, o.Values) {
		t.Values = o.Values
	} else {
		for i := range t.Values {
			if j := slices.IndexFunc(o.Values, func(v ValueFile) bool { return v.Path == t.Values[i].Path }); j >= 0 {
				t.Values[i].Path = o.Values[j].Path
			}
		}
	}
	if slices.Equal(t.APIVersions, o.APIVersions) && len(t.APIVersions) > 0 {
		t.APIVersions = o.APIVersions
	}
}

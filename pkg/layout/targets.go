package layout

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/config"
)

// loadTarget loads the target of cluster cl whose folder is e: its
// values are the common ones, the cluster-wide ones and those its folder
// holds, or the list repotool.yaml gives it.
func (l *loader) loadTarget(cl *Cluster, e entry) (Target, bool, error) {
	t, ns := l.newTarget(cl, e.name, e.path)
	own, err := l.targetFiles(e)
	if err != nil {
		return t, false, err
	}
	listed, isListed := l.listedValues(&t)
	if isListed {
		t.Values = listed
		for _, f := range own {
			if !slices.ContainsFunc(listed, func(v ValueFile) bool { return v.Path == f.path }) {
				l.pending = append(l.pending, Diagnostic{Severity: SeverityWarning, Code: CodeFileUnrecognized, File: f.path,
					Message: fmt.Sprintf("target %s lists its values files in %s, without this one, so it is not read", t.Name(), l.repo.ConfigFile),
					Hint:    "add it to the target's values list where it belongs in the merge order, or remove it"})
			}
		}
	} else {
		var vs []ValueFile
		for _, f := range own {
			vs = append(vs, l.ownValueFile(f))
		}
		sortValues(vs)
		var common []ValueFile
		if ns != nil {
			common = ns.Values
		}
		t.Values = slices.Concat(common, cl.Values, vs)
	}
	return t, true, nil
}

// declaredTargets adds the targets of cl that repotool.yaml declares by
// listing their values (clusters.<c>.values.<ns>) and that have no folder:
// their folder is the cluster's.
func (l *loader) declaredTargets(cl *Cluster) {
	for _, name := range slices.Sorted(maps.Keys(l.repo.Config.Clusters[cl.Name].Values)) {
		if slices.Contains(cl.Namespaces, name) || l.only != nil && name != l.only.Namespace {
			continue
		}
		t, _ := l.newTarget(cl, name, cl.Dir)
		t.Declared = true
		t.Values, _ = l.listedValues(&t)
		cl.Namespaces = append(cl.Namespaces, name)
		l.repo.Targets = append(l.repo.Targets, t)
	}
	slices.Sort(cl.Namespaces)
}

// newTarget is the target of namespace name in cl, in folder dir, with
// its namespace (nil when there is none), without its values; a target
// without a chart is kept with a chart-missing error.
func (l *loader) newTarget(cl *Cluster, name, dir string) (Target, *Namespace) {
	cfg := &l.repo.Config
	nsDir := path.Join(cfg.Layout.NamespacesDir, name)
	ns, _ := l.repo.Namespace(name)
	t := Target{
		Cluster:     cl.Name,
		Namespace:   name,
		Tier:        cfg.NamespaceTier(name),
		Dir:         dir,
		ChartDir:    nsDir,
		KubeVersion: cl.KubeVersion,
		APIVersions: cl.APIVersions,
	}
	if shared := cfg.Namespaces[name].Chart.Path; shared != "" {
		t.ChartDir, t.NamespaceDir = shared, nsDir
	}
	if d, ok := l.missing[name]; ok {
		t.Errors = append(t.Errors, d) // the setting names no chart
	} else if ns == nil || ns.Chart == nil {
		// The cluster folder declares the target: keep it, so that every
		// command fails it instead of acting as if it did not exist.
		l.diag(SeverityError, CodeChartMissing, dir, 0,
			fmt.Sprintf("cluster %q deploys namespace %q, but %s/Chart.yaml does not exist or is invalid", cl.Name, name, t.ChartDir),
			fmt.Sprintf("add the chart at %s/, or remove %s if the namespace is gone", t.ChartDir, targetWhere(&t)))
	}
	if ns != nil {
		t.Tier = ns.Tier
		if t.NamespaceDir == "" {
			t.ChartDir = ns.Dir
		}
		ns.Clusters = append(ns.Clusters, cl.Name)
	}
	return t, ns
}

// targetWhere is what declares t: its folder, or its values list.
func targetWhere(t *Target) string {
	if t.Declared {
		return fmt.Sprintf("clusters.%s.values.%s from %s", t.Cluster, t.Namespace, config.FileName)
	}
	return t.Dir + "/"
}

// targetFiles are the values files the patterns find in a target's
// folder, with a diagnostic for what else is there.
func (l *loader) targetFiles(e entry) ([]entry, error) {
	cfg := &l.repo.Config
	entries, err := l.readDir(e.path)
	if err != nil {
		return nil, err
	}
	var own []entry
	for _, f := range entries {
		switch {
		case f.dir && matchAny(cfg.Layout.ClusterValues, f.name):
			l.checkValuesFolder(f, cfg.Layout.ClusterValues)
		case f.dir:
			l.diag(SeverityWarning, CodeFileUnrecognized, f.path, 0,
				"folder is not part of the layout and is ignored",
				"values files go directly in "+e.path+"/; move or remove the folder")
		case isValuesSchema(f.name):
			l.diag(SeverityWarning, CodeFileUnrecognized, f.path, 0, "a values schema is not values, and a target's folder holds no chart: it is not read",
				"move it into the chart's folder, where Helm validates values with it, or remove it")
		case matchAny(cfg.Layout.ClusterValues, f.name):
			if !l.gitIgnored(f) {
				own = append(own, f)
			}
		case isYAML(f.name):
			l.diag(SeverityWarning, CodeFileUnrecognized, f.path, 0,
				fmt.Sprintf("YAML file matches no values pattern (%s) and is ignored", strings.Join(cfg.Layout.ClusterValues, ", ")),
				"rename it like <env>-values-<name>.yaml (or <env>-values-<name>.secret.yaml), or change layout.clusterValues in "+config.FileName)
		}
	}
	return own, nil
}

// inClusterFolder reports whether the file p lies in a cluster's folder
// (its targets' own values files are there).
func (l *loader) inClusterFolder(p string) bool {
	return slices.ContainsFunc(l.repo.Clusters, func(c Cluster) bool { return strings.HasPrefix(p, c.Dir+"/") })
}

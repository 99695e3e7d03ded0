package render

import (
	"path"
	"strings"
)

// templateFile maps Helm's template path to the file in the repository: the
// chart with the longest full path that prefixes it owns it.
func templateFile(tpl string, origins map[string]string) (file, member string) {
	best := ""
	for full := range origins {
		if strings.HasPrefix(tpl, full+"/") && len(full) > len(best) {
			best = full
		}
	}
	if best == "" {
		return "", ""
	}
	origin := origins[best]
	if strings.HasSuffix(origin, ".tgz") {
		// The archive's root chart is the shortest chart path it holds; the
		// archive stores files as "<root chart name>/<path below it>".
		root := best
		for full, o := range origins {
			if o == origin && len(full) < len(root) {
				root = full
			}
		}
		return origin, path.Join(path.Base(root), strings.TrimPrefix(tpl, root+"/"))
	}
	return path.Join(origin, strings.TrimPrefix(tpl, best+"/")), ""
}

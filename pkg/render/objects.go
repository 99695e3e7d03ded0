package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/repotool/repotool/pkg/manifest"
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

// Only returns a rendering of res's objects that keep accepts alone, for
// a caller that holds a few of a rendering's objects long after it: what
// else res holds (its stream, what it was rendered from) is not kept. Its
// FromSecrets still knows res's secret values; its RedactedObjects fail
// when res had secret values (the placeholders' rendering needs what is
// not kept).
func (res *Result) Only(keep func(*manifest.Object) bool) *Result {
	out := &Result{Target: res.Target, Capabilities: res.Capabilities, Err: res.Err, red: res.red}
	if res.safe != nil {
		out.safe = func() ([]manifest.Object, error) {
			return nil, fmt.Errorf("%s: the rendering with placeholders was not kept with its objects", res.Target.Name())
		}
	}
	for i := range res.Objects {
		if keep(&res.Objects[i]) {
			out.Objects = append(out.Objects, res.Objects[i])
		}
	}
	return out
}

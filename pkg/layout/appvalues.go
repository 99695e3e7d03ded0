package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// An Application's valueFiles, resolved as the repo-server resolves them
// (reposerver/repository's getResolvedValueFiles): from the chart folder,
// or from the repository's root for a path from "/" or a $<ref>/ of a
// ref source; a glob expanded in lexical order, leaving out the files
// listed by name, which keep their own place; each file once, at its
// first place.

// valuePath is one valueFiles entry resolved: a repository path (or glob),
// and whether helm-secrets' secrets:// marks it secret.
type valuePath struct {
	path   string
	secret bool
}

// appValueFiles are h's values files; the entry and a message when one
// cannot be followed.
func (l *loader) appValueFiles(dir string, h *appHelm, refs map[string]string, env func(string) (string, bool)) ([]ValueFile, []string, string, string) {
	resolved := make([]valuePath, len(h.ValueFiles))
	named := map[string]bool{}
	for i, raw := range h.ValueFiles {
		vp, msg := l.valuePath(dir, raw, refs, env)
		if msg != "" {
			return nil, nil, raw, msg
		}
		resolved[i] = vp
		if !isGlob(vp.path) {
			named[vp.path] = true
		}
	}
	out, globs := []ValueFile{}, []string(nil)
	add := func(vf ValueFile) {
		if !slices.ContainsFunc(out, func(v ValueFile) bool { return v.Path == vf.Path }) {
			out = append(out, vf)
		}
	}
	for i, vp := range resolved {
		if !isGlob(vp.path) {
			vf, msg := l.appValueFile(vp, h.IgnoreMissingValueFiles)
			if msg != "" {
				return nil, nil, h.ValueFiles[i], msg
			}
			if vf.Path != "" {
				add(vf)
			}
			continue
		}
		globs = append(globs, vp.path)
		matches := l.valuesGlob(vp.path)
		if len(matches) == 0 && !h.IgnoreMissingValueFiles {
			return nil, nil, h.ValueFiles[i], "the glob matches no file (ignoreMissingValueFiles leaves it out)"
		}
		for _, m := range matches {
			if named[m] {
				continue // listed by name too: its place is there
			}
			vf, msg := l.appValueFile(valuePath{m, vp.secret}, false)
			if msg != "" {
				return nil, nil, m, msg
			}
			add(vf)
		}
	}
	return out, globs, "", ""
}

// valuePath resolves one valueFiles entry.
func (l *loader) valuePath(dir, raw string, refs map[string]string, env func(string) (string, bool)) (valuePath, string) {
	ref, rest, _ := strings.Cut(raw, "/")
	repoURL, isRef := refs[strings.TrimPrefix(ref, "$")]
	switch {
	case isRef && strings.HasPrefix(ref, "$"):
		// A file of the source whose ref it names, from that source's
		// root: this repository's, the only one repotool reads.
		if msg := l.ownRepo(repoURL); msg != "" {
			return valuePath{}, fmt.Sprintf("source %s: %s", ref, msg)
		}
		raw = "/" + rest
	case strings.HasPrefix(raw, "$") && !strings.HasPrefix(raw, "$ARGOCD_") && !strings.HasPrefix(raw, "$$"):
		return valuePath{}, fmt.Sprintf("it names source %s, but no source of the Application has ref %s", ref, strings.TrimPrefix(ref, "$"))
	}
	p, ok := env(raw)
	if !ok {
		return valuePath{}, "it names the revision, which repotool does not fill in yet"
	}
	secret := false
	if rest, found := strings.CutPrefix(p, "secrets://"); found { // helm-secrets' SOPS files
		p, secret = rest, true
	}
	if u, err := url.Parse(p); err == nil && u.Scheme != "" {
		return valuePath{}, "a values file from the network: repository content never chooses where repotool connects; keep the file in the repository"
	}
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)[1:]
	} else {
		p = path.Join(dir, p)
	}
	if p == "" || p == ".." || strings.HasPrefix(p, "../") {
		return valuePath{}, "it leaves the repository"
	}
	if isGlob(p) && !doublestar.ValidatePattern(p) {
		return valuePath{}, "it is not a valid glob"
	}
	return valuePath{p, secret}, ""
}

// isGlob reports whether p is a pattern, as the repo-server tells one.
func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// valuesGlob are the repository's files the pattern matches, in lexical
// order, but those Git ignores.
func (l *loader) valuesGlob(pattern string) []string {
	var out []string
	for p := range l.repo.Files.Paths() {
		if ok, _ := doublestar.Match(pattern, p); ok && (l.ignored == nil || !l.ignored(p)) {
			out = append(out, p)
		}
	}
	return out
}

// appValueFile is the values file at vp, checked once; a zero ValueFile
// for a missing file with ignoreMissing, a message when it cannot be read.
func (l *loader) appValueFile(vp valuePath, ignoreMissing bool) (ValueFile, string) {
	p := vp.path
	real, err := resolve(l.fsys, p)
	switch {
	case ignoreMissing && errors.Is(err, fs.ErrNotExist):
		return ValueFile{}, ""
	case err != nil:
		return ValueFile{}, "cannot be read: " + err.Error()
	}
	name := path.Base(p)
	secret := vp.secret || l.isSecret(name) || l.repo.Files.Get(p).Encrypted()
	if _, ok := l.checked[p]; ok {
		return ValueFile{Path: p, Scope: ScopeCluster, Secret: secret}, ""
	}
	l.checked[p] = struct{}{}
	return l.checkValueFileAs(entry{name: name, path: p, real: real}, ScopeCluster, secret), ""
}

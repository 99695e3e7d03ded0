package appset

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/yamlpos"
)

type gitGen struct {
	RepoURL         string            `yaml:"repoURL"`
	Revision        string            `yaml:"revision"`
	PathParamPrefix string            `yaml:"pathParamPrefix"`
	Values          map[string]string `yaml:"values"`
	Directories     []gitPath         `yaml:"directories"`
	Files           []gitPath         `yaml:"files"`
}

type gitPath struct {
	Path    string `yaml:"path"`
	Exclude bool   `yaml:"exclude"`
}

// git is the git generator, on the repository under check (at the
// revision under check, which is the one its Applications render).
func (s *set) git(n *yaml.Node) ([]pset, error) {
	var g gitGen
	if err := n.Decode(&g); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return nil, &Error{Line: line, Msg: msg}
	}
	if why := s.env.OwnRepo(g.RepoURL); why != "" {
		return nil, &Error{Line: yamlpos.Line(n, n.Line, "repoURL"), Unsupported: true, Msg: "git generator: " + why}
	}
	var out []pset
	switch {
	case len(g.Directories) > 0:
		dirs, err := s.dirs(n, g.Directories)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			out = append(out, pset{p: s.pathParams(d, g.PathParamPrefix)})
		}
	case len(g.Files) > 0:
		var err error
		if out, err = s.files(n, g); err != nil {
			return nil, err
		}
	default:
		return nil, &Error{Line: n.Line, Msg: "a git generator lists directories or files"}
	}
	for _, p := range out {
		if err := s.appendValues(n, g.Values, p.p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// dirs are the repository's folders (not hidden ones, nor those in
// them, as the repo-server walks them) that an include pattern matches
// and no exclude pattern does (path.Match, as Argo CD's).
func (s *set) dirs(n *yaml.Node, pats []gitPath) ([]string, error) {
	paths, err := s.env.Paths()
	if err != nil {
		return nil, &Error{Line: n.Line, Msg: "git generator: cannot list the repository's folders: " + err.Error()}
	}
	seen := map[string]bool{}
	var all []string
	for _, p := range paths {
		for d := path.Dir(p); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if !hidden(d) {
				all = append(all, d)
			}
		}
	}
	slices.Sort(all)
	var out []string
	for _, d := range all {
		in, ex := false, false
		for _, pat := range pats {
			if ok, err := path.Match(pat.Path, d); ok && err == nil {
				in, ex = in || !pat.Exclude, ex || pat.Exclude
			}
		}
		if in && !ex {
			out = append(out, d)
		}
	}
	for _, pat := range pats {
		s.globs = append(s.globs, pat.Path)
	}
	return out, nil
}

// hidden reports whether a folder of the path d is hidden.
func hidden(d string) bool {
	for seg := range strings.SplitSeq(d, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// files are the parameter sets of the files the patterns match (as git
// ls-files matches a pathspec), each file's object or list of objects.
func (s *set) files(n *yaml.Node, g gitGen) ([]pset, error) {
	paths, err := s.env.Paths()
	if err != nil {
		return nil, &Error{Line: n.Line, Msg: "git generator: cannot list the repository's files: " + err.Error()}
	}
	var found []string
	for _, p := range paths {
		in, ex := false, false
		for _, pat := range g.Files {
			if pathspecMatch(pat.Path, p) {
				in, ex = in || !pat.Exclude, ex || pat.Exclude
			}
		}
		if in && !ex {
			found = append(found, p)
		}
	}
	for _, pat := range g.Files {
		s.globs = append(s.globs, pat.Path)
	}
	slices.Sort(found)
	var out []pset
	for _, f := range found {
		data, err := s.env.Read(f)
		if err != nil {
			return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("git generator: cannot read %s: %v", f, err)}
		}
		objs, err := fileObjects(data)
		if err != nil {
			return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("git generator: unable to process file '%s': %v", f, err)}
		}
		for _, o := range objs {
			out = append(out, pset{s.fileParams(f, o, g.PathParamPrefix), []string{f}})
		}
	}
	return out, nil
}

// fileObjects are a git generator file's object, or its list of objects.
func fileObjects(data []byte) ([]map[string]any, error) {
	one := map[string]any{}
	if err := sigsyaml.Unmarshal(data, &one); err == nil {
		return []map[string]any{one}, nil
	}
	var many []map[string]any
	if err := sigsyaml.Unmarshal(data, &many); err != nil {
		return nil, fmt.Errorf("unable to parse file: %w", err)
	}
	return many, nil
}

// pathParams are a folder's parameters.
func (s *set) pathParams(d, prefix string) map[string]any {
	p := map[string]any{}
	if s.r.goTemplate {
		pp := map[string]any{"path": d, "basename": path.Base(d), "basenameNormalized": sanitizeName(path.Base(d)), "segments": strings.Split(d, "/")}
		setPath(p, prefix, pp)
		return p
	}
	name := strings.TrimPrefix(prefix+".path", ".")
	p[name], p[name+".basename"], p[name+".basenameNormalized"] = d, path.Base(d), sanitizeName(path.Base(d))
	segments(p, name, d)
	return p
}

// fileParams are a file's object's parameters, with its path's.
func (s *set) fileParams(f string, o map[string]any, prefix string) map[string]any {
	d := path.Dir(f)
	p := map[string]any{}
	if s.r.goTemplate {
		maps.Copy(p, o)
		pp := map[string]any{
			"path": d, "basename": path.Base(d), "filename": path.Base(f),
			"basenameNormalized": sanitizeName(path.Base(d)), "filenameNormalized": sanitizeName(path.Base(f)),
			"segments": strings.Split(d, "/"),
		}
		setPath(p, prefix, pp)
		return p
	}
	for k, v := range flatten(o) {
		p[k] = v
	}
	name := strings.TrimPrefix(prefix+".path", ".")
	p[name], p[name+".basename"], p[name+".filename"] = d, path.Base(d), path.Base(f)
	p[name+".basenameNormalized"], p[name+".filenameNormalized"] = sanitizeName(path.Base(d)), sanitizeName(path.Base(f))
	segments(p, name, d)
	return p
}

// setPath puts the path parameters at path, or at <prefix>.path.
func setPath(p map[string]any, prefix string, pp map[string]any) {
	if prefix != "" {
		p[prefix] = map[string]any{"path": pp}
		return
	}
	p["path"] = pp
}

// segments adds name[i] for each non-empty segment of d.
func segments(p map[string]any, name, d string) {
	for i, seg := range strings.Split(d, "/") {
		if seg != "" {
			p[name+"["+strconv.Itoa(i)+"]"] = seg
		}
	}
}

package testtool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"sigs.k8s.io/yaml"
)

// LinkTree builds an fstest.MapFS-style set of entries under root from a
// fuzzer's bytes: NUL-separated pairs of a path (at most four segments,
// "." and ".." dropped) and a link target; an empty target makes a folder
// holding f.yaml instead of a link. add is called for each entry: a link
// (target != "") or a file (target == "").
func LinkTree(data []byte, add func(path, target string)) {
	parts := strings.Split(string(data), "\x00")
	for i := 0; i+1 < len(parts) && i < 40; i += 2 {
		var segs []string
		for _, p := range strings.Split(parts[i], "/") {
			if p == "" || p == "." || p == ".." || len(segs) == 4 {
				continue
			}
			segs = append(segs, p)
		}
		if len(segs) == 0 {
			continue
		}
		name := strings.Join(segs, "/")
		if target := parts[i+1]; target != "" {
			add(name, target)
		} else {
			add(name+"/f.yaml", "")
		}
	}
}

// WriteFiles writes files (slash paths relative to dir, and their
// content) under dir, making folders as needed.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// GitCommit commits everything in dir (added, changed and removed files)
// to the Git repository there, making the repository on first use, with a
// fixed author and date so that commits are reproducible.
func GitCommit(t testing.TB, dir, msg string) {
	t.Helper()
	g, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		g, err = git.PlainInit(dir, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

// StringLeaves returns every string value of a YAML document, at any
// depth: the values of a decrypted secrets file that must never show.
func StringLeaves(t testing.TB, doc []byte) []string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			out = append(out, v)
		}
	}
	walk(v)
	return out
}

// MapFS is the regular files below dir, read into memory: a repository a
// test edits without touching disk.
func MapFS(t testing.TB, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(os.DirFS(dir), p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Edited is a copy of m (each file's entry copied) with edit applied: a
// second revision of an in-memory repository.
func Edited(m fstest.MapFS, edit func(fstest.MapFS)) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range m {
		c := *v
		out[k] = &c
	}
	edit(out)
	return out
}

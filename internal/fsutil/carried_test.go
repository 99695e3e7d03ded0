package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// carriedTree is a work tree with Git's directory, the .git file of a
// submodule, a file Git ignores and links to each.
func carriedTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range map[string]string{
		".git/config":              "[http]\n\textraheader = AUTHORIZATION: basic CANARY\n",
		"ns/Chart.yaml":            "name: ns\n",
		"ns/files/ok.txt":          "ok\n",
		"ns/files/creds.json":      "{}\n",
		"sub/.git":                 "gitdir: ../.git/modules/sub\n",
		"sub/x.yaml":               "a: 1\n",
		"store/objects/keep":       "x\n",
		"ns/ignored-dir/inner.txt": "inner\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ns/files/gitcfg":   "../../.git/config",
		"ns/files/gitdir":   "../../.git",
		"ns/files/sub":      "../../sub/.git",
		"ns/files/creds":    "creds.json",
		"ns/files/okay":     "ok.txt",
		"ns/files/store":    "../../store/objects/keep",
		"ns/files/ignlink2": "../ignored-dir/inner.txt",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCarried(t *testing.T) {
	root := carriedTree(t)
	ignored := func(p string) bool {
		return p == "ns/files/creds.json" || strings.HasPrefix(p, "ns/ignored-dir/")
	}
	fsys := Carried(os.DirFS(root), ignored, "store")
	tests := []struct {
		name string
		want error // nil: readable
	}{
		{"ns/files/ok.txt", nil},
		{"ns/files/okay", nil},
		{".git/config", ErrGitDir},
		{"ns/files/gitcfg", ErrGitDir},
		{"ns/files/gitdir", ErrGitDir},
		{"sub/.git", ErrGitDir},
		{"ns/files/sub", ErrGitDir},
		{"store/objects/keep", ErrGitDir},
		{"ns/files/store", ErrGitDir},
		{"ns/files/creds.json", ErrGitIgnored},
		{"ns/files/creds", ErrGitIgnored},
		{"ns/files/ignlink2", ErrGitIgnored},
		{"ns/ignored-dir/inner.txt", ErrGitIgnored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The way every reader goes: links resolved inside the root,
			// then the file read.
			real, err := Resolve(fsys, tt.name)
			if err == nil {
				_, err = ReadFile(fsys, real, 0)
			}
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("read: %v", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("read: %v, want %v", err, tt.want)
			case tt.want != nil && !errors.Is(err, ErrNotCarried):
				t.Fatalf("%v does not wrap ErrNotCarried", err)
			case err != nil && strings.Contains(err.Error(), "CANARY"):
				t.Fatalf("the error quotes the file: %v", err)
			}
		})
	}
}

func TestCarriedListings(t *testing.T) {
	root := carriedTree(t)
	fsys := Carried(os.DirFS(root), func(p string) bool { return p == "ns/files/creds.json" }, "store")
	var seen []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		seen = append(seen, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range seen {
		if p == ".git" || strings.HasPrefix(p, ".git/") || p == "sub/.git" || strings.HasPrefix(p, "store") {
			t.Errorf("listed %s", p)
		}
	}
	// An ignored file is listed and can be looked at (so that what lists
	// it can say it is left out), never read.
	if !slices.Contains(seen, "ns/files/creds.json") {
		t.Errorf("the ignored file is not listed: %v", seen)
	}
	if _, err := fs.Stat(fsys, "ns/files/creds.json"); err != nil {
		t.Errorf("stat of an ignored file: %v", err)
	}
	if err := Withheld(fsys, "ns/files/creds.json"); !errors.Is(err, ErrGitIgnored) {
		t.Errorf("Withheld = %v", err)
	}
	if err := Withheld(os.DirFS(root), ".git/config"); err != nil {
		t.Errorf("an FS that is not a CarriedFS withholds %v", err)
	}
	// An ignored folder can be listed; its files are withheld by ignored's
	// answer for them.
	if _, err := fs.ReadDir(fsys, "ns/ignored-dir"); err != nil {
		t.Errorf("readdir: %v", err)
	}
}

package render_test

import (
	"context"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"testing"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// recordingFS is a file system that records every path asked of it (opened,
// listed, stated, or read as a link).
type recordingFS struct {
	fsys fs.FS
	mu   sync.Mutex
	seen map[string]bool
}

func (r *recordingFS) note(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[name] = true
}

func (r *recordingFS) Open(name string) (fs.File, error) { r.note(name); return r.fsys.Open(name) }

func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r.note(name)
	return fs.ReadDir(r.fsys, name)
}

func (r *recordingFS) Stat(name string) (fs.FileInfo, error) {
	r.note(name)
	return fs.Stat(r.fsys, name)
}

func (r *recordingFS) ReadFile(name string) ([]byte, error) {
	r.note(name)
	return fs.ReadFile(r.fsys, name)
}

func (r *recordingFS) ReadLink(name string) (string, error) {
	r.note(name)
	return fs.ReadLink(r.fsys, name)
}

func (r *recordingFS) Lstat(name string) (fs.FileInfo, error) {
	r.note(name)
	return fs.Lstat(r.fsys, name)
}

// TestOneTargetReadsItsInputs renders each fixture target as render -c -n
// and the Argo CD plugin do (layout.Options.Only) on a file system that
// records every path asked of it: nothing outside the target's inputs
// (layout.Repo.Inputs, which generate's manifest-generate-paths and diff
// use) is read, apart from listing the folders that lead to them. A read
// outside the inputs would be a file whose change Argo CD does not see.
func TestOneTargetReadsItsInputs(t *testing.T) {
	useTestKey(t)
	all := loadRepo(t, fixture)
	for _, tg := range all.Targets {
		t.Run(tg.Name(), func(t *testing.T) {
			rec := &recordingFS{fsys: os.DirFS(fixture), seen: map[string]bool{}}
			repo, err := layout.Load(context.Background(), rec, layout.Options{Only: &layout.TargetRef{Cluster: tg.Cluster, Namespace: tg.Namespace}})
			if err != nil {
				t.Fatal(err)
			}
			one, ok := repo.Target(tg.Cluster, tg.Namespace)
			if !ok || len(repo.Targets) != 1 || len(repo.Namespaces) != 1 {
				t.Fatalf("loaded %d targets and %d namespaces, want the one", len(repo.Targets), len(repo.Namespaces))
			}
			if _, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), one); err != nil {
				t.Fatal(err)
			}
			inputs := repo.Inputs(one)
			if !slices.Equal(inputs, all.Inputs(&tg)) {
				t.Errorf("inputs of the one-target load %v, of the full load %v", inputs, all.Inputs(&tg))
			}
			// The folders above the inputs are listed to find them.
			listed := map[string]bool{".": true}
			for _, in := range inputs {
				for d := path.Dir(in); d != "."; d = path.Dir(d) {
					listed[d] = true
				}
			}
			var outside []string
			for p := range rec.seen {
				if listed[p] || slices.ContainsFunc(inputs, func(in string) bool { return p == in || len(p) > len(in) && p[:len(in)+1] == in+"/" }) {
					continue
				}
				outside = append(outside, p)
			}
			slices.Sort(outside)
			if len(outside) > 0 {
				t.Errorf("read outside the target's inputs %v: %v", inputs, outside)
			}
			if len(rec.seen) == 0 {
				t.Error("nothing was recorded")
			}
		})
	}
}

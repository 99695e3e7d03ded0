package gitrev

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CommitInfo is what CommitFiles records besides the files.
type CommitInfo struct {
	Message     string
	Name, Email string
	When        time.Time
	// NotesRef and Note, when Note is not empty, attach Note to the
	// branch's commit (the new one, or its head when nothing changed)
	// under NotesRef (refs/notes/<namespace>), as `git notes` does.
	NotesRef string
	Note     []byte
	// Expect, when not nil, is the branch head the files were made
	// against ("" for no branch): a branch that has moved since (another
	// hydration committed to it) is not committed to, and the error says
	// so. It covers what the caller read before CommitFiles, as the
	// reference's compare-and-set covers what CommitFiles reads.
	Expect *string
}

// ErrMoved is the error of CommitFiles for a branch that moved since the
// head CommitInfo.Expect names.
var ErrMoved = errors.New("the branch moved since its previous content was read")

// Moved is the error for branch, which moved from the head its content was
// read at: what CommitFiles returns, and what a caller that checks first
// says.
func Moved(branch string) error {
	return fmt.Errorf("branch %s: %w (another hydration committed to it): nothing was committed to it; run hydrate again", branch, ErrMoved)
}

// BranchTree returns the whole tree of the local branch (not only the
// repotool repository's folder), nil when there is no such branch.
func (r *Repo) BranchTree(branch string) (fs.FS, error) {
	_, tree, err := r.Branch(branch)
	return tree, err
}

// Branch returns the local branch's head and whole tree, read together:
// "" and nil when there is no such branch.
func (r *Repo) Branch(branch string) (head string, tree fs.FS, err error) {
	if err := CheckBranchName(branch); err != nil {
		return "", nil, err
	}
	ref, err := r.git.Reference(plumbing.NewBranchReferenceName(branch), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	c, err := r.git.CommitObject(ref.Hash())
	if err != nil {
		return "", nil, fmt.Errorf("branch %s: %w", branch, err)
	}
	t, err := c.Tree()
	if err != nil {
		return "", nil, fmt.Errorf("branch %s: %w", branch, err)
	}
	return ref.Hash().String(), &treeFS{repo: r.git, tree: t, when: c.Committer.When}, nil
}

// CommitFiles makes the files at paths (slash-separated), each one's
// content given by data when its blob is written (so that a caller need
// not hold them all at once), the whole tree of the local branch, created
// when missing: one commit on top of the branch's head, or none when the
// tree is the head's already. The branch moves only if nobody moved it
// meanwhile, and never while it is checked out (its work tree would then
// look changed): objects are written first, the reference last, so a
// failure leaves the branch as it was. It returns the branch's commit and
// whether it is a new one. Nothing is pushed.
func (r *Repo) CommitFiles(branch string, paths []string, data func(p string) ([]byte, error), info CommitInfo) (sha string, committed bool, err error) {
	if err := CheckBranchName(branch); err != nil {
		return "", false, err
	}
	name := plumbing.NewBranchReferenceName(branch)
	if head, err := r.git.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference && head.Target() == name {
		return "", false, fmt.Errorf("branch %s is checked out: check out another branch, since hydrate commits to it without a work tree", branch)
	}
	old, err := r.git.Storer.Reference(name)
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", false, err
	}
	if info.Expect != nil {
		now := ""
		if old != nil {
			now = old.Hash().String()
		}
		if now != *info.Expect {
			return "", false, Moved(branch)
		}
	}
	tree, err := r.writeTree(paths, data)
	if err != nil {
		return "", false, err
	}
	var parents []plumbing.Hash
	if old != nil {
		head, err := r.git.CommitObject(old.Hash())
		if err != nil {
			return "", false, fmt.Errorf("branch %s: %w", branch, err)
		}
		if head.TreeHash == tree {
			return old.Hash().String(), false, r.addNote(old.Hash(), info)
		}
		parents = []plumbing.Hash{old.Hash()}
	}
	sig := object.Signature{Name: info.Name, Email: info.Email, When: info.When}
	commit, err := r.writeObject(&object.Commit{Author: sig, Committer: sig, Message: info.Message, TreeHash: tree, ParentHashes: parents})
	if err != nil {
		return "", false, err
	}
	if err := r.git.Storer.CheckAndSetReference(plumbing.NewHashReference(name, commit), old); err != nil {
		return "", false, fmt.Errorf("branch %s moved while hydrate committed to it: %w", branch, err)
	}
	return commit.String(), true, r.addNote(commit, info)
}

// encoder is a Git object go-git encodes.
type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func (r *Repo) writeObject(o encoder) (plumbing.Hash, error) {
	obj := r.git.Storer.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.git.Storer.SetEncodedObject(obj)
}

func (r *Repo) writeBlob(data []byte) (plumbing.Hash, error) {
	obj := r.git.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.git.Storer.SetEncodedObject(obj)
}

// writeTree writes the blobs of the files at paths, with their content
// from data, and the trees that hold them, and returns the root tree's
// hash.
func (r *Repo) writeTree(paths []string, data func(p string) ([]byte, error)) (plumbing.Hash, error) {
	entries := map[string][]object.TreeEntry{} // folder -> its entries
	dirs := map[string]bool{"": true}
	seen := map[string]bool{}
	for _, p := range paths {
		switch {
		case !fs.ValidPath(p) || p == ".":
			return plumbing.ZeroHash, fmt.Errorf("%q is not a path inside a tree", p)
		case seen[p]:
			return plumbing.ZeroHash, fmt.Errorf("%q is given twice", p)
		}
		seen[p] = true
		content, err := data(p)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		h, err := r.writeBlob(content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		dir, base := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		entries[dir] = append(entries[dir], object.TreeEntry{Name: base, Mode: filemode.Regular, Hash: h})
		for d := dir; !dirs[d]; d = parentDir(d) {
			dirs[d] = true
		}
	}
	// Deepest folders first, so that each tree's subtrees exist.
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	sort.Strings(order)
	sort.SliceStable(order, func(i, j int) bool { return depth(order[i]) > depth(order[j]) })
	var root plumbing.Hash
	for _, d := range order {
		es := entries[d]
		sort.Slice(es, func(i, j int) bool { return treeName(es[i]) < treeName(es[j]) })
		h, err := r.writeObject(&object.Tree{Entries: es})
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if d == "" {
			root = h
			continue
		}
		parent := parentDir(d)
		entries[parent] = append(entries[parent], object.TreeEntry{Name: path.Base(d), Mode: filemode.Dir, Hash: h})
	}
	return root, nil
}

func parentDir(d string) string {
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		return d[:i]
	}
	return ""
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// treeName is the name Git sorts a tree entry by: a folder's with a
// slash after it.
func treeName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// addNote attaches info.Note to commit under info.NotesRef: a new commit
// of the notes reference whose tree holds the note as a blob named by the
// commit's hash, replacing an earlier note of that commit.
func (r *Repo) addNote(commit plumbing.Hash, info CommitInfo) error {
	if len(info.Note) == 0 {
		return nil
	}
	// Notes of every branch share one reference: a hydration committing
	// to another branch at the same time may move it. A note only adds
	// an entry, so it is added again on the reference's new commit.
	for try := 1; ; try++ {
		err := r.addNoteOnce(commit, info)
		if !errors.Is(err, errNotesMoved) || try == 5 {
			return err
		}
	}
}

// errNotesMoved is addNoteOnce's error when the notes moved meanwhile.
var errNotesMoved = errors.New("reference has changed concurrently")

func (r *Repo) addNoteOnce(commit plumbing.Hash, info CommitInfo) error {
	name := plumbing.ReferenceName(info.NotesRef)
	old, err := r.git.Storer.Reference(name)
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return err
	}
	var entries []object.TreeEntry
	var parents []plumbing.Hash
	if old != nil {
		c, err := r.git.CommitObject(old.Hash())
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		t, err := c.Tree()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, e := range t.Entries {
			if e.Name != commit.String() {
				entries = append(entries, e)
			}
		}
		parents = []plumbing.Hash{old.Hash()}
	}
	blob, err := r.writeBlob(info.Note)
	if err != nil {
		return err
	}
	entries = append(entries, object.TreeEntry{Name: commit.String(), Mode: filemode.Regular, Hash: blob})
	sort.Slice(entries, func(i, j int) bool { return treeName(entries[i]) < treeName(entries[j]) })
	tree, err := r.writeObject(&object.Tree{Entries: entries})
	if err != nil {
		return err
	}
	sig := object.Signature{Name: info.Name, Email: info.Email, When: info.When}
	c, err := r.writeObject(&object.Commit{Author: sig, Committer: sig, Message: "Notes added by 'repotool hydrate'\n", TreeHash: tree, ParentHashes: parents})
	if err != nil {
		return err
	}
	if err := r.git.Storer.CheckAndSetReference(plumbing.NewHashReference(name, c), old); err != nil {
		return fmt.Errorf("%s moved while hydrate added a note: %w (%w)", name, errNotesMoved, err)
	}
	return nil
}

// Subject is the first line of the message of the commit rev names.
func (r *Repo) Subject(rev string) (string, error) {
	h, err := r.Commit(rev)
	if err != nil {
		return "", err
	}
	c, err := r.git.CommitObject(plumbing.NewHash(h))
	if err != nil {
		return "", fmt.Errorf("revision %q: %w", rev, err)
	}
	subject, _, _ := strings.Cut(c.Message, "\n")
	return subject, nil
}

package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultMaxFileSize bounds a repository file repotool reads whole when the
// reader names no other limit: far above any manifest, values or
// configuration file, CRD bundles included (the largest upstream ones are
// under 10 MiB).
const DefaultMaxFileSize = 32 << 20

// ErrNotRegular is wrapped by errors about a path that is not a regular
// file: a named pipe, a device or a socket, which a read could wait on
// forever or never finish.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by errors about a file over a reader's limit.
var ErrTooLarge = errors.New("file too large")

// NotRegularError is a path that is not a regular file.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string {
	return "it is " + modeName(e.Mode) + ", not a regular file; repotool reads regular files only"
}

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError is a file over a reader's limit.
type TooLargeError struct{ Size, Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the file has %d bytes, more than the limit of %d", e.Size, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file (" + m.Type().String() + ")"
}

// ReadFile reads the file name of fsys, which must be a regular file of at
// most limit bytes (no limit when limit is not positive): every file
// repotool reads from a repository, a cache or an output folder is read
// through it. It looks before it opens, since opening a named pipe waits
// for a writer, and stops reading at the limit, should the file grow in
// between. Links are followed as fs.Stat follows them; callers resolve
// them inside the repository first (Resolve).
func ReadFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(st, limit); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(st, limit); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data := make([]byte, 0, st.Size()+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Size: int64(len(data)), Limit: limit}}
	}
	return data, nil
}

func check(st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &NotRegularError{Mode: st.Mode()}
	}
	if limit > 0 && st.Size() > limit {
		return &TooLargeError{Size: st.Size(), Limit: limit}
	}
	return nil
}

// ReadOSFile is ReadFile for a path of the operating system's (an output
// folder's file, a cache entry, a file named on the command line).
func ReadOSFile(file string, limit int64) ([]byte, error) {
	data, err := ReadFile(os.DirFS(filepath.Dir(file)), filepath.Base(file), limit)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = file // as os.ReadFile names it
	}
	return data, err
}

// Open opens the regular file name of fsys, looking before it opens (see
// ReadFile), for a reader that streams it.
func Open(fsys fs.FS, name string) (fs.File, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(st, 0); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fsys.Open(name)
}

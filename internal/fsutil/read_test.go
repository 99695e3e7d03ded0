package fsutil

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFile: regular files within the limit are read whole; a named
// pipe, a socket, a device and a folder are refused without being opened
// (a pipe's open would wait for a writer forever), and a file over the
// limit without being read.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("a: 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.yaml"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(strings.Repeat("x", 100)), 0o644)
	os.Mkdir(filepath.Join(dir, "folder.yaml"), 0o755)
	os.Symlink("ok.yaml", filepath.Join(dir, "link.yaml"))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fsys := os.DirFS(dir)
	for _, tt := range []struct {
		fsys  fs.FS
		name  string
		limit int64
		want  string // the content, or a part of the message
		is    error
	}{
		{fsys, "ok.yaml", 0, "a: 1\n", nil},
		{fsys, "ok.yaml", 5, "a: 1\n", nil},
		{fsys, "empty.yaml", 10, "", nil},
		{fsys, "link.yaml", 10, "a: 1\n", nil},
		{fsys, "big.yaml", 99, "read big.yaml: the file has 100 bytes, more than the limit of 99", ErrTooLarge},
		{fsys, "pipe.yaml", 0, "read pipe.yaml: it is a named pipe (FIFO), not a regular file; repotool reads regular files only", ErrNotRegular},
		{fsys, "sock.yaml", 0, "it is a socket, not a regular file", ErrNotRegular},
		{fsys, "folder.yaml", 0, "it is a folder, not a regular file", ErrNotRegular},
		{os.DirFS("/dev"), "null", 0, "it is a character device, not a regular file", ErrNotRegular},
		{fsys, "missing.yaml", 0, "missing.yaml", fs.ErrNotExist},
	} {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() { data, err = ReadFile(tt.fsys, tt.name, tt.limit); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile did not return")
			}
			if tt.is == nil {
				if err != nil || string(data) != tt.want {
					t.Fatalf("got %q, %v; want %q", data, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %v holding %q", err, tt.is, tt.want)
			}
		})
	}
}

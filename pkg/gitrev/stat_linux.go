package gitrev

import (
	"io/fs"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// sameSystemInfo compares what Linux records beyond the modification time,
// as Git does (core.trustctime): the change time, which no one can set
// back, and the inode, which an editor that writes a new file changes.
// An entry without them (written elsewhere) is not trusted.
func sameSystemInfo(e *index.Entry, info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || e.Inode == 0 {
		return false
	}
	return uint32(st.Ino) == e.Inode && time.Unix(st.Ctim.Unix()).Equal(e.CreatedAt)
}

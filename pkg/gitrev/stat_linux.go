package gitrev

import (
	"io/fs"
	"syscall"
)

// sameSystemInfo compares what Linux records beyond the modification time,
// as Git does (core.trustctime): the change time, which no one can set
// back, and the inode, which an editor that writes a new file changes.
// An entry without them (written elsewhere) is not trusted.
func sameSystemInfo(e statEntry, info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || e.inode == 0 {
		return false
	}
	return uint32(st.Ino) == e.inode && st.Ctim.Nano() == e.ctime
}

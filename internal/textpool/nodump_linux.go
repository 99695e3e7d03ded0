package textpool

import "golang.org/x/sys/unix"

// noDump leaves mem out of the process's core dumps: the texts of a pool
// hold renderings with decrypted values. It is advice; a kernel that
// does not take it leaves mem in them, as the rest of the heap is.
func noDump(mem []byte) { _ = unix.Madvise(mem, unix.MADV_DONTDUMP) }

//go:build unix

package textpool

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// mapChunk maps n bytes of memory of the process's own, off Go's heap,
// left out of core dumps where the system allows it (noDump).
func mapChunk(n int) ([]byte, error) {
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("textpool: mapping %d bytes of memory: %w", n, err)
	}
	noDump(mem)
	return mem, nil
}

// unmapChunk gives back memory mapChunk mapped.
func unmapChunk(mem []byte) error {
	if err := unix.Munmap(mem); err != nil {
		return fmt.Errorf("textpool: giving back %d bytes of memory: %w", len(mem), err)
	}
	return nil
}

//go:build !unix

package textpool

// mapChunk is n bytes of Go's heap, where memory is not mapped here
// (offheap_unix.go).
func mapChunk(n int) ([]byte, error) { return make([]byte, n), nil }

// unmapChunk leaves mem to the collector.
func unmapChunk([]byte) error { return nil }

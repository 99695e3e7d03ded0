//go:build unix && !linux

package textpool

// noDump does nothing where no advice leaves memory out of core dumps
// (nodump_linux.go).
func noDump([]byte) {}

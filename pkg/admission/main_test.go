package admission

import (
	"flag"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain keeps the oracle's informers from logging to the test output,
// or to files.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("log_file", os.DevNull) // not files in the temporary directory
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

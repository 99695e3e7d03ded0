package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionText: the commit and its dirty flag come from the build
// information when the build recorded them, and "unknown" otherwise,
// also with no build information at all.
func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"a clean checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "f29c4f1aa"}, {Key: "vcs.modified", Value: "false"}, {Key: "vcs.time", Value: "2026-11-27T05:00:00Z"}}},
			"repotool v1.2.3\ncommit:      f29c4f1aa, 2026-11-27T05:00:00Z\ngo:          go1.26.0\n"},
		{"a dirty checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "f29c4f1aa"}, {Key: "vcs.modified", Value: "true"}}},
			"commit:      f29c4f1aa (dirty: built with uncommitted changes)\n"},
		{"go install", &debug.BuildInfo{GoVersion: "go1.26.0"}, "commit:      unknown (this build did not record it"},
		{"no build information", nil, "repotool v1.2.3\ncommit:      unknown"},
	} {
		if got := versionText("v1.2.3", tc.bi); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q in it", tc.name, got, tc.want)
		}
	}
}

package layout_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/repotool/repotool/internal/testing/synth"
	"github.com/repotool/repotool/pkg/layout"
)

const fixture = "../../testdata/monorepo"

func synthRepo(tb testing.TB, clusters, namespaces int) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	if _, err := synth.Generate(dir, synth.Options{Source: fixture, Clusters: clusters, Namespaces: namespaces}); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// retainedMiB is the heap that what load returns keeps, once collected:
// what a stage after it pays for holding it.
func retainedMiB(tb testing.TB, load func() any) float64 {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	held := load()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(held)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
}

// TestLoadThousandTargets checks correctness at scale; the speed is measured
// by BenchmarkLoad and recorded in docs/performance.md.
func TestLoadThousandTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1,000-target repository")
	}
	dir := synthRepo(t, 20, 48) // 20 x (48 + 2 platform namespaces)
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(repo.Targets) != 1000 || len(repo.Diagnostics) != 0 {
		t.Fatalf("targets = %d, diagnostics = %v", len(repo.Targets), repo.Diagnostics)
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, size := range []struct {
		name                 string
		clusters, namespaces int
	}{{"targets=9/fixture", 0, 0}, {"targets=200", 10, 18}, {"targets=1000", 20, 48}} {
		b.Run(size.name, func(b *testing.B) {
			dir := fixture
			if size.clusters > 0 {
				dir = synthRepo(b, size.clusters, size.namespaces)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if _, err := layout.LoadDir(ctx, dir, layout.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(retainedMiB(b, func() any {
				repo, err := layout.LoadDir(ctx, dir, layout.Options{})
				if err != nil {
					b.Fatal(err)
				}
				return repo
			}), "retained-MiB")
		})
	}
}

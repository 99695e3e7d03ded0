// Package testtool builds the reference CLIs that tests compare repotool
// against (helm, sops) from the Go module versions in go.mod, and repotool
// itself, once per checkout state, into a temporary folder that the test
// binaries of all packages share (sharedDir). Tests that need them are
// skipped with -short.
//
// Inside: builds the reference CLIs (helm, sops, actionlint, kubeconform) from
// the versions pinned in `go.mod`'s `tool` block, and repotool itself, for
// parity and integration tests, once per state of the checkout into a
// temporary folder all packages' test binaries share (a file lock per binary);
// `Require` for Debian-installed commands (`testtool.go`); the environments
// that keep the machine's HOME and SOPS keys out of a test (`env.go`), fixture
// files, link trees and Git commits (`files.go`), and the community charts of
// `internal/corpus` (`community.go`). Imported by tests only.
package testtool

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// Helm returns the path of a helm CLI built from the helm.sh/helm/v3
// version repotool itself uses.
func Helm(t testing.TB) string { return build(t, "helm.sh/helm/v3/cmd/helm") }

// Helm4 returns the path of a helm CLI built from the helm.sh/helm/v4
// version pinned in go.mod's tool block (Argo CD 3.5 and later render
// native Helm sources with Helm 4).
func Helm4(t testing.TB) string { return buildAs(t, "helm.sh/helm/v4/cmd/helm", "helm4") }

// SOPS returns the path of a sops CLI built from the SOPS module version
// repotool uses.
func SOPS(t testing.TB) string { return build(t, "github.com/getsops/sops/v3/cmd/sops") }

// Actionlint returns the path of actionlint built from the version pinned in
// go.mod's tool block.
func Actionlint(t testing.TB) string { return build(t, "github.com/rhysd/actionlint/cmd/actionlint") }

// Repotool returns the path of repotool built from this checkout.
func Repotool(t testing.TB) string { return build(t, "github.com/repotool/repotool/cmd/repotool") }

// CorpusDir returns the module cache folder of a module of the real
// upstream material pinned in internal/corpus/go.mod (the README's test
// command downloads them first; tests never download).
func CorpusDir(t testing.TB, module string) string {
	t.Helper()
	// The corpus module needs a newer Go than repotool (argo-cd v3.6
	// requires Go 1.27): GOTOOLCHAIN=auto runs the one its go.mod names,
	// which the README's test command brought into the module cache when
	// it downloaded the corpus, so nothing is downloaded here.
	return moduleDir(t, filepath.Join(moduleRoot(t), "internal", "corpus"), module, "GOTOOLCHAIN=auto")
}

// ModuleDir returns the module cache folder of a module repotool's
// go.mod requires, at the version it requires.
func ModuleDir(t testing.TB, module string) string {
	t.Helper()
	return moduleDir(t, moduleRoot(t), module)
}

func moduleDir(t testing.TB, mainModule, module string, env ...string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Dir = mainModule
	cmd.Env = append(append(os.Environ(), "HOME="+startHome, "XDG_CACHE_HOME="+startXDGCache), env...)
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("%s is not in the module cache (%v): run `go mod download` in %s first, as the README's test command does", module, err, mainModule)
	}
	return dir
}

// Shared returns the folder name of ../shared (the read-only third-party
// material beside the checkout: kes, eso, ...; see its SOURCES.md files),
// or skips the test, saying so, when it is absent.
func Shared(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "..", "shared", name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared material %s is not here: %v", dir, err)
	}
	return dir
}

// ModuleRoot returns the folder holding repotool's go.mod.
func ModuleRoot(t testing.TB) string { return moduleRoot(t) }

// Require returns the path of a system command the test needs (installed
// from Debian packages by .ci/run). Under CI a missing command fails the
// test; elsewhere it skips it.
func Require(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; .ci/run installs it (apt-get install %s)", name, name)
	}
	t.Skipf("%s is not installed (apt-get install %s)", name, name)
	return ""
}

// startHome and startXDGCache are HOME and XDG_CACHE_HOME as the test
// binary started: where Go's build and module caches are.
var startHome, startXDGCache = os.Getenv("HOME"), os.Getenv("XDG_CACHE_HOME")

func build(t testing.TB, pkg string) string {
	t.Helper()
	return buildAs(t, pkg, filepath.Base(pkg))
}

// buildAs builds pkg into the shared folder as name.
func buildAs(t testing.TB, pkg, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: not building %s", pkg)
	}
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	if dir == "" {
		d, err := sharedDir(moduleRoot(t))
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	out := filepath.Join(dir, name)
	if err := buildShared(moduleRoot(t), pkg, out); err != nil {
		t.Fatal(err)
	}
	built[pkg] = out
	return out
}

// sharedDir is the folder for the binaries built from this checkout as it
// is now, shared by the test binaries of one `go test ./...` (each
// package's tests run in a process of their own) and by later runs: a
// folder of the temporary directory named by a digest of the Go version,
// go.mod, go.sum and every file the binaries are built from. Linking
// repotool, helm and sops takes half a minute on a busy 2-core machine;
// each package linking its own took minutes of the suite. Folders of other
// checkouts left for an hour are removed: each edit of the sources makes a
// new one of some 400 MB, and a day of edits filled the disk.
func sharedDir(root string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", runtime.Version(), os.Getenv("GOFLAGS"))
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case d.Name() == "testdata", strings.HasPrefix(d.Name(), ".") && rel != ".",
				rel == filepath.Join("internal", "corpus"), rel == filepath.Join("internal", "argocdcheck"):
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", err
	}
	parent := filepath.Join(os.TempDir(), "repotool-testtool")
	d := filepath.Join(parent, hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	now := time.Now()
	os.Chtimes(d, now, now)
	if others, err := os.ReadDir(parent); err == nil {
		for _, o := range others {
			if info, err := o.Info(); err == nil && o.Name() != filepath.Base(d) && now.Sub(info.ModTime()) > time.Hour {
				os.RemoveAll(filepath.Join(parent, o.Name()))
			}
		}
	}
	return d, nil
}

// buildShared builds pkg into out unless another test binary did: the
// first takes a lock on out, builds into a temporary file and renames it,
// and the others wait for the lock and find out there.
func buildShared(root, pkg, out string) error {
	lock, err := os.OpenFile(out+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(out); err == nil {
		return nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, pkg)
	cmd.Dir = root
	// The environment the test binary started with: a test that isolated
	// HOME (IsolateSOPS) must not send go build to a cold cache.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "HOME="+startHome, "XDG_CACHE_HOME="+startXDGCache)
	if b, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
	}
	return os.Rename(tmp, out)
}

// moduleRoot finds the folder holding repotool's go.mod.
func moduleRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	for d := filepath.Dir(file); ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			t.Fatal("go.mod not found")
		}
		d = parent
	}
}

package repotool_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// preCommitEnv is a clean environment for pre-commit with its cache in tmp.
func preCommitEnv(t *testing.T, tmp string, extra ...string) []string {
	t.Helper()
	key := testtool.TestKey(t)
	env := []string{
		"HOME=" + tmp,
		"PRE_COMMIT_HOME=" + filepath.Join(tmp, "pre-commit"),
		"SOPS_AGE_KEY_FILE=" + key,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	for _, k := range []string{"PATH", "GOPROXY", "GOFLAGS", "GOCACHE", "GOMODCACHE", "GONOSUMDB", "GOSUMDB", "GOTOOLCHAIN", "LANG"} {
		v := os.Getenv(k)
		if k == "GOFLAGS" {
			// Let go install stamp the version from Git, as on a user's machine.
			v = strings.Join(slices.DeleteFunc(strings.Fields(v), func(f string) bool { return strings.HasPrefix(f, "-buildvcs") }), " ")
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} { // share the caches so pre-commit's go install is warm
		if os.Getenv(k) == "" {
			out, err := exec.Command("go", "env", k).Output()
			if err == nil {
				env = append(env, k+"="+strings.TrimSpace(string(out)))
			}
		}
	}
	// As testtool builds its binaries: pre-commit's go install then finds
	// the packages compiled in the build cache, where with cgo it would
	// compile Helm, Kubernetes and SOPS once more (minutes on a cold cache).
	env = append(env, "CGO_ENABLED=0")
	return append(env, extra...)
}

// hookRepo makes a git repository holding this module's tracked files (and
// the working tree's version of them), as pre-commit clones hook repos.
func hookRepo(t *testing.T, dir string) string {
	t.Helper()
	root := testtool.ModuleRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the working tree
		}
		write(t, filepath.Join(dir, f), data)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	rev, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(rev))
}

// userRepo makes a git repository holding a copy of the fixture monorepo
// with a .pre-commit-config.yaml using hookID from the hook repository.
func userRepo(t *testing.T, dir, hooks, rev, hookID string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS("testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".pre-commit-config.yaml"), []byte("repos:\n  - repo: "+hooks+"\n    rev: "+rev+"\n    hooks:\n      - id: "+hookID+"\n"))
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
}

func runPreCommit(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(testtool.Require(t, "pre-commit"), args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPreCommitSystemHook installs the system hook with the real pre-commit
// into a repository holding the fixture, and checks a clean commit passes
// and a commit adding a plain-text Secret is refused.
func TestPreCommitSystemHook(t *testing.T) {
	testtool.Require(t, "pre-commit")
	repotool := testtool.Repotool(t)
	tmp := t.TempDir()
	hooks, repo := filepath.Join(tmp, "hooks"), filepath.Join(tmp, "repo")
	rev := hookRepo(t, hooks)
	userRepo(t, repo, hooks, rev, "repotool-lint-system")
	env := preCommitEnv(t, tmp)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(repotool) + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	if out, err := runPreCommit(t, repo, env, "install"); err != nil {
		t.Fatalf("pre-commit install: %v\n%s", err, out)
	}
	commit := exec.Command("git", "commit", "-qm", "fixture")
	commit.Dir, commit.Env = repo, env
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("a clean commit was refused: %v\n%s", err, out)
	}
	// A broken file that is not staged does not block an unrelated
	// commit: the hook lints Git's index.
	write(t, filepath.Join(repo, "clusters", "dev-cluster", "namespace-b", "dev-values-wip.yaml"), []byte("replicaCount: [\n"))
	values := filepath.Join(repo, "clusters", "dev-cluster", "namespace-a", "dev-values-a.yaml")
	data, err := os.ReadFile(values)
	if err != nil {
		t.Fatal(err)
	}
	write(t, values, []byte(strings.Replace(string(data), "LOG_LEVEL: debug", "LOG_LEVEL: info", 1)))
	git(t, repo, "add", values)
	commit = exec.Command("git", "commit", "-qm", "log less")
	commit.Dir, commit.Env = repo, env
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("an untracked broken file blocked an unrelated commit: %v\n%s", err, out)
	}
	// Staged, it does.
	git(t, repo, "add", "clusters/dev-cluster/namespace-b/dev-values-wip.yaml")
	commit = exec.Command("git", "commit", "-qm", "wip")
	commit.Dir, commit.Env = repo, env
	if out, err := commit.CombinedOutput(); err == nil || !strings.Contains(string(out), "dev-values-wip.yaml") {
		t.Fatalf("a commit adding a broken values file passed: %v\n%s", err, out)
	}
	git(t, repo, "rm", "-q", "--cached", "clusters/dev-cluster/namespace-b/dev-values-wip.yaml")

	write(t, filepath.Join(repo, "bootstrap", "secret.yaml"), []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: oops\nstringData:\n  token: hunter2-precommit\n"))
	git(t, repo, "add", "bootstrap/secret.yaml")
	commit = exec.Command("git", "commit", "-qm", "add a secret")
	commit.Dir, commit.Env = repo, env
	out, err := commit.CombinedOutput()
	if err == nil {
		t.Fatalf("a commit adding a plain-text Secret passed:\n%s", out)
	}
	if !strings.Contains(string(out), "bootstrap/secret.yaml:6:10: error [plaintext-secret]") || strings.Contains(string(out), "hunter2-precommit") {
		t.Errorf("unexpected hook output:\n%s", out)
	}
}

// TestPreCommitGolangHook lets pre-commit build repotool from the hook
// repository with `go install`, as users of the golang hook get it.
func TestPreCommitGolangHook(t *testing.T) {
	testtool.Require(t, "pre-commit")
	if testing.Short() {
		t.Skip("-short: builds repotool inside pre-commit")
	}
	tmp := t.TempDir()
	hooks, repo := filepath.Join(tmp, "hooks"), filepath.Join(tmp, "repo")
	rev := hookRepo(t, hooks)
	userRepo(t, repo, hooks, rev, "repotool-lint")
	out, err := runPreCommit(t, repo, preCommitEnv(t, tmp), "run", "--all-files")
	if err != nil {
		t.Fatalf("pre-commit run (golang hook) failed on the clean fixture: %v\n%s", err, out)
	}
	if !strings.Contains(out, "repotool lint") || !strings.Contains(out, "Passed") {
		t.Errorf("unexpected output:\n%s", out)
	}
	// pre-commit runs go install ./... in the hook repository: only the CLI
	// is installed (the development tools need the tools tag), and it knows
	// its version (Go stamps it from the hook repository's commit).
	bins, _ := filepath.Glob(filepath.Join(tmp, "pre-commit", "*", "golangenv-*", "bin", "*"))
	if len(bins) != 1 || filepath.Base(bins[0]) != "repotool" {
		t.Fatalf("pre-commit installed %v, want repotool alone", bins)
	}
	version, err := exec.Command(bins[0], "version").Output()
	if err != nil || strings.HasPrefix(string(version), "repotool (devel)") || !strings.Contains(string(version), "\ncommit:      ") {
		t.Errorf("the installed repotool does not know its version: %v\n%s", err, version)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

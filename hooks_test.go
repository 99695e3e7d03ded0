package repotool_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestActionlint checks action.yml and the documented workflow with
// actionlint: the workflow uses the Action from the repository root (./), so
// actionlint also checks the Action's inputs against its metadata.
func TestActionlint(t *testing.T) {
	actionlint := testtool.Actionlint(t)
	dir := t.TempDir()
	wf, err := os.ReadFile("docs/examples/github-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(wf, []byte("uses: repotool/repotool@v1")) {
		t.Fatal("the example workflow no longer uses repotool/repotool@v1")
	}
	wf = bytes.ReplaceAll(wf, []byte("uses: repotool/repotool@v1"), []byte("uses: ./"))
	write(t, filepath.Join(dir, ".github", "workflows", "repotool.yml"), wf)
	action, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "action.yml"), action)
	diffWF, err := os.ReadFile("docs/examples/github-diff-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".github", "workflows", "repotool-diff.yml"), bytes.ReplaceAll(diffWF, []byte("uses: repotool/repotool@v1"), []byte("uses: ./")))
	release, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".github", "workflows", "release.yml"), release)
	git(t, dir, "init", "-q")
	cmd := exec.Command(actionlint, "-color")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}

	// A wrong input name must be caught, or the check above proves nothing.
	write(t, filepath.Join(dir, ".github", "workflows", "repotool.yml"), bytes.Replace(wf, []byte("fail-on: error"), []byte("fail_on: error"), 1))
	cmd = exec.Command(actionlint, "-color")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("fail_on")) {
		t.Errorf("actionlint accepted an unknown input: %v\n%s", err, out)
	}
}

// TestActionScripts runs shellcheck over every run: script of action.yml,
// with the ${{ }} expressions replaced by placeholders.
func TestActionScripts(t *testing.T) {
	shellcheck := testtool.Require(t, "shellcheck")
	action := readAction(t)
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", action.Runs.Using)
	}
	scripts := 0
	for _, s := range action.Runs.Steps {
		if s.Run == "" {
			continue
		}
		scripts++
		if s.Shell != "bash" {
			t.Errorf("step %q: composite run steps need shell: bash", s.Name)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q: pass inputs through env, not ${{ }} inside the script (script injection)", s.Name)
		}
		cmd := exec.Command(shellcheck, "-s", "bash", "-")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("shellcheck step %q: %v\n%s", s.Name, err, out)
		}
	}
	if scripts == 0 {
		t.Fatal("no run steps found")
	}
	// The scripts the Action runs, and the benchmark scripts.
	sh, _ := filepath.Glob("scripts/*.sh")
	if len(sh) < 4 {
		t.Errorf("scripts: %v", sh)
	}
	cmd := exec.Command(shellcheck, append([]string{"-x"}, sh...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("shellcheck scripts: %v\n%s", err, out)
	}
}

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	var action actionFile
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	return action
}

// actionSteps reads action.yml's steps.
func actionSteps(t *testing.T) []actionStep {
	t.Helper()
	return readAction(t).Runs.Steps
}

// runStep runs one of the Action's scripts with bash as the runner would,
// env given in the runner's terms, and returns what it wrote to
// $GITHUB_OUTPUT, $GITHUB_PATH and its output.
func runStep(t *testing.T, step actionStep, dir string, env ...string) (outputs, ghPath, out string, err error) {
	t.Helper()
	tmp := t.TempDir()
	outFile, pathFile := filepath.Join(tmp, "output"), filepath.Join(tmp, "path")
	os.WriteFile(outFile, nil, 0o644)
	os.WriteFile(pathFile, nil, 0o644)
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", step.Run)
	cmd.Dir = dir
	cmd.Env = append([]string{"GITHUB_OUTPUT=" + outFile, "GITHUB_PATH=" + pathFile, "RUNNER_TEMP=" + tmp, "HOME=" + tmp}, env...)
	b, err := cmd.CombinedOutput()
	o, _ := os.ReadFile(outFile)
	p, _ := os.ReadFile(pathFile)
	return string(o), string(p), string(b), err
}

// TestActionSteps runs the Action's own scripts: the release download with
// a ref that is no release (it must fall back to building, without the
// network), and the lint step on a repository in a subfolder of its Git
// repository (the path: input), whose annotations must name paths from the
// Git root.
func TestActionSteps(t *testing.T) {
	steps := map[string]actionStep{}
	for _, s := range actionSteps(t) {
		steps[s.ID] = s
	}
	outputs, _, out, err := runStep(t, steps["release"], t.TempDir(), "INPUT_VERSION=", "ACTION_REF=main", "PATH="+os.Getenv("PATH"))
	if err != nil || !strings.Contains(outputs, "found=false") || !strings.Contains(outputs, "version=main") {
		t.Errorf("release step with ref main: %v\n%s\n%s", err, outputs, out)
	}
	outputs, _, _, _ = runStep(t, steps["release"], t.TempDir(), "INPUT_VERSION=", "ACTION_REF=", "PATH="+os.Getenv("PATH"))
	if !strings.Contains(outputs, "version=latest") {
		t.Errorf("no version and no ref: %s", outputs)
	}

	bin := testtool.Repotool(t)
	work := t.TempDir()
	repo := filepath.Join(work, "deploy", "gitops")
	if err := os.CopyFS(repo, os.DirFS("testdata/lint/stray-api-version/repo")); err != nil {
		t.Fatal(err)
	}
	git(t, work, "init", "-q")
	outputs, _, out, err = runStep(t, steps["lint"], work, "INPUT_PATH=deploy/gitops", "INPUT_FAIL_ON=error", "INPUT_SARIF_FILE=repotool.sarif", "INPUT_DECRYPT=false",
		"SOPS_AGE_KEY=", "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	if err == nil || !strings.Contains(out, "::error file=deploy/gitops/bootstrap/legacy-2019.yaml,line=4,") || !strings.Contains(out, "repotool (devel)") {
		t.Errorf("lint step with path: deploy/gitops: %v\n%s", err, out)
	}
	if !strings.Contains(outputs, "sarif-file=repotool.sarif") {
		t.Errorf("outputs: %s", outputs)
	}
	sarif, err := os.ReadFile(filepath.Join(work, "repotool.sarif"))
	if err != nil || !bytes.Contains(sarif, []byte(`"uri": "deploy/gitops/bootstrap/legacy-2019.yaml"`)) {
		t.Errorf("SARIF paths are not from the Git root: %v", err)
	}
}

// TestReleaseMatchesAction: the archives .goreleaser.yaml publishes are the
// ones action.yml downloads, for the platforms GitHub runs.
func TestReleaseMatchesAction(t *testing.T) {
	var cfg struct {
		Builds []struct {
			GOOS   []string `yaml:"goos"`
			GOARCH []string `yaml:"goarch"`
			Main   string   `yaml:"main"`
			Binary string   `yaml:"binary"`
		} `yaml:"builds"`
		Archives []struct {
			Formats      []string `yaml:"formats"`
			NameTemplate string   `yaml:"name_template"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	data, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	b := cfg.Builds[0]
	if strings.Join(b.GOOS, ",") != "linux,darwin" || strings.Join(b.GOARCH, ",") != "amd64,arm64" || b.Main != "./cmd/repotool" || b.Binary != "repotool" {
		t.Errorf("builds = %+v", b)
	}
	a := cfg.Archives[0]
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || strings.Join(a.Formats, ",") != "tar.gz" {
		t.Errorf("archives = %+v", a)
	}
	if cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum = %+v", cfg.Checksum)
	}
	var release actionStep
	for _, s := range actionSteps(t) {
		if s.ID == "release" {
			release = s
		}
	}
	for _, want := range []string{`archive="repotool_${version#v}_${os}_${arch}.tar.gz"`, `"$base/checksums.txt"`, "sha256sum -c", `tar -xzf "$dir/$archive" -C "$dir" repotool`} {
		if !strings.Contains(release.Run, want) {
			t.Errorf("action.yml's release step does not say %s", want)
		}
	}
}

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

// TestActionDiffStep runs the Action's diff step on a Git repository with
// a change in the working tree: it reports the change, writes the
// markdown parts and the step summary, and a second run with no change
// says so.
func TestActionDiffStep(t *testing.T) {
	bin := testtool.Repotool(t)
	steps := map[string]actionStep{}
	for _, s := range actionSteps(t) {
		steps[s.ID] = s
	}
	work := t.TempDir()
	repo := filepath.Join(work, "gitops")
	if err := os.CopyFS(repo, os.DirFS("testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, work, "base")
	summary := filepath.Join(t.TempDir(), "summary.md")
	run := func() (string, string) {
		t.Helper()
		outputs, _, out, err := runStep(t, steps["diff"], work, "INPUT_PATH=gitops", "INPUT_BASE=HEAD", "INPUT_DECRYPT=false", "SOPS_AGE_KEY=",
			"GITHUB_STEP_SUMMARY="+summary, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		if err != nil {
			t.Fatalf("diff step: %v\n%s", err, out)
		}
		return outputs, out
	}
	outputs, out := run()
	if !strings.Contains(outputs, "changed=false") || !strings.Contains(outputs, "status=0") {
		t.Errorf("no change: outputs %s\n%s", outputs, out)
	}
	values := filepath.Join(repo, "clusters", "prod-cluster", "namespace-a", "prod-values-a.yaml")
	data, err := os.ReadFile(values)
	if err != nil {
		t.Fatal(err)
	}
	write(t, values, []byte(strings.Replace(string(data), "LOG_LEVEL: info", "LOG_LEVEL: trace", 1)))
	outputs, out = run()
	if !strings.Contains(outputs, "changed=true") || !strings.Contains(out, "LOG_LEVEL") {
		t.Errorf("a change: outputs %s\n%s", outputs, out)
	}
	dir := ""
	for _, l := range strings.Split(outputs, "\n") {
		if d, ok := strings.CutPrefix(l, "dir="); ok {
			dir = d
		}
	}
	part, err := os.ReadFile(filepath.Join(dir, "diff-001.md"))
	if err != nil || !strings.HasPrefix(string(part), "<!-- repotool-diff part 1/1 -->") || !strings.Contains(string(part), "Secret values were not decrypted") {
		t.Errorf("the part: %v\n%s", err, part)
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), string(part)) {
		t.Error("the step summary does not hold the diff")
	}
}

// TestActionDiffComments runs the comment script against a stand-in for
// the GitHub CLI that keeps a pull request's comments in a folder: the
// parts are posted once, left alone when unchanged, updated in place, and
// the parts beyond a shorter diff deleted; other comments are never
// touched. A read-only token fails with what to do.
func TestActionDiffComments(t *testing.T) {
	testtool.Require(t, "jq")
	tmp := t.TempDir()
	bin, comments, parts := filepath.Join(tmp, "bin"), filepath.Join(tmp, "comments"), filepath.Join(tmp, "parts")
	for _, d := range []string{bin, comments, parts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(bin, "gh"), []byte(fakeGH))
	if err := os.Chmod(filepath.Join(bin, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(comments, "1"), []byte("LGTM <!-- repotool-diff part 1/1 --> quoted"))
	log := filepath.Join(tmp, "log")
	run := func(extra ...string) (string, error) {
		t.Helper()
		os.WriteFile(log, nil, 0o644)
		cmd := exec.Command("bash", "scripts/diff-comment.sh")
		cmd.Env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FAKE_GH=" + tmp, "PARTS_DIR=" + parts,
			"REPOSITORY=o/r", "PR_NUMBER=7", "GH_TOKEN=t"}, extra...)
		out, err := cmd.CombinedOutput()
		calls, _ := os.ReadFile(log)
		return strings.TrimSpace(string(calls)), fmt.Errorf("%w: %s", err, out)
	}
	setParts := func(bodies ...string) {
		t.Helper()
		old, _ := filepath.Glob(filepath.Join(parts, "*"))
		for _, f := range old {
			os.Remove(f)
		}
		for i, b := range bodies {
			write(t, filepath.Join(parts, fmt.Sprintf("diff-%03d.md", i+1)), []byte(fmt.Sprintf("<!-- repotool-diff part %d/%d -->\n%s\n", i+1, len(bodies), b)))
		}
	}
	state := func() string {
		entries, _ := os.ReadDir(comments)
		var out []string
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(comments, e.Name()))
			out = append(out, e.Name()+":"+strings.TrimSpace(string(data[strings.LastIndex(string(data), ">")+1:])))
		}
		return strings.Join(out, " ")
	}

	setParts("first", "second", "third")
	if calls, err := run(); calls != "GET repos/o/r/issues/7/comments?per_page=100\nPOST repos/o/r/issues/7/comments\nPOST repos/o/r/issues/7/comments\nPOST repos/o/r/issues/7/comments" {
		t.Fatalf("first run: %s\n%v", calls, err)
	}
	if s := state(); s != "1:quoted 2:first 3:second 4:third" {
		t.Errorf("after the first run: %s", s)
	}
	if calls, err := run(); calls != "GET repos/o/r/issues/7/comments?per_page=100" {
		t.Errorf("the same parts again: %s\n%v", calls, err)
	}
	setParts("first, changed")
	if calls, err := run(); calls != "GET repos/o/r/issues/7/comments?per_page=100\nPATCH repos/o/r/issues/comments/2\nDELETE repos/o/r/issues/comments/3\nDELETE repos/o/r/issues/comments/4" {
		t.Errorf("a shorter diff: %s\n%v", calls, err)
	}
	if s := state(); s != "1:quoted 2:first, changed" {
		t.Errorf("after the shorter diff: %s", s)
	}
	// No parts (repotool diff failed): nothing is deleted.
	setParts()
	if calls, err := run(); calls != "" || err == nil {
		t.Errorf("no parts: %s\n%v", calls, err)
	}
	setParts("first, changed", "new second")
	calls, err := run("FAKE_GH_READONLY=1")
	if err == nil || !strings.Contains(err.Error(), "::error::could not write the pull request's comments") || !strings.Contains(err.Error(), "pull-requests: write") {
		t.Errorf("a read-only token: %s\n%v", calls, err)
	}
}

// fakeGH stands in for `gh api` over a pull request whose comments are the
// files of $FAKE_GH/comments (named by id). It lists them in two pages, as
// --paginate prints them, and logs every call to $FAKE_GH/log.
const fakeGH = `#!/usr/bin/env bash
set -euo pipefail
[ "$1" = api ] || exit 64
shift
method=GET body="" url=""
while [ $# -gt 0 ]; do
  case "$1" in
    -X) method=$2; shift 2 ;;
    --paginate) shift ;;
    -F) body=${2#body=@}; shift 2 ;;
    *) url=$1; shift ;;
  esac
done
echo "$method $url" >> "$FAKE_GH/log"
dir=$FAKE_GH/comments
if [ "$method" != GET ] && [ -n "${FAKE_GH_READONLY:-}" ]; then
  echo '{"message":"Resource not accessible by integration","status":"403"}' >&2
  exit 1
fi
case "$method" in
  GET)
    ids=$(ls "$dir" | sort -n)
    first=$(echo "$ids" | head -n 2); rest=$(echo "$ids" | tail -n +3)
    for page in "$first" "$rest"; do
      for id in $page; do jq -Rs --argjson id "$id" '{id: $id, body: .}' "$dir/$id"; done | jq -s .
    done ;;
  POST)
    last=$(ls "$dir" | sort -n | tail -n 1)
    cp "$body" "$dir/$(( ${last:-0} + 1 ))" ;;
  PATCH) cp "$body" "$dir/${url##*/}" ;;
  DELETE) rm "$dir/${url##*/}" ;;
esac
`
